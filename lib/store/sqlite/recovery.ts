// Recovery after a crash in the SQLite store (the contract's `recoverOrphans` and its "Leases",
// ../types.ts): what a recording process that died left behind — steps in flight, episodes it was
// playing, runs it was executing — is marked so, by the next process that starts (or sweeps).
import "server-only";
import type { EndReason } from "@/lib/trajectory/schema";
import {
  HOST_STOPPED_ERROR,
  INTERRUPTED_EPISODE_ERROR,
  INTERRUPTED_STEP_ERROR,
  type OrphanRecovery,
  type RecoveredOrphans,
  RUN_STOPPED_ERROR,
} from "../types";
import type { Db, Statements } from "./db";
import { setRunStatus, settleEpisodesOfStopped } from "./runs";

type End = (id: string, reason: EndReason, at: number, error: string) => boolean;

export function recoverOrphans(
  db: Db,
  statements: Statements,
  at: number,
  o: OrphanRecovery & { self: string },
  endEpisode: End,
): RecoveredOrphans {
  const sql = (q: string) => db.prepare(q);
  const out: RecoveredOrphans = { ended: [], steps: [], runs: [] };
  // One transaction, begun before the leases are read: a process sharing the file (a CLI run)
  // that recovers at the same moment waits, then finds the dead already forgotten.
  db.transaction(() => {
    const rows = sql("SELECT id, pid, host, beat_at FROM instances WHERE id != ?").all(o.self) as {
      id: string;
      pid: number;
      host: string;
      beat_at: number;
    }[];
    const dead = rows.filter((r) => r.beat_at < at - o.staleMs || !o.alive(r)).map((r) => r.id);
    // Trajectories recorded before instances existed count as a dead one's.
    const orphaned = (col: string) => `(${col} IS NULL OR ${col} IN (SELECT value FROM json_each(@dead)))`;
    const params = { dead: JSON.stringify(dead), self: o.self };
    out.runs = (
      sql(
        `SELECT id FROM runs WHERE status IN ('queued', 'running')
           AND instance_id IN (SELECT value FROM json_each(@dead))`,
      ).all(params) as { id: string }[]
    ).map((r) => r.id);
    for (const id of out.runs) {
      setRunStatus(statements, id, "interrupted", at, { error: RUN_STOPPED_ERROR });
      settleEpisodesOfStopped(statements, id, RUN_STOPPED_ERROR);
    }
    // The calls it carried: cut (a step's own instance, else its trajectory's).
    out.steps = (
      sql(
        `UPDATE steps SET ok = 0, error = @error
           WHERE ok IS NULL AND trajectory_id IN (SELECT id FROM trajectories WHERE end_reason IS NULL)
             AND ${orphaned("COALESCE(instance_id, (SELECT t.instance_id FROM trajectories t WHERE t.id = steps.trajectory_id))")}
           RETURNING trajectory_id AS id, idx AS "index"`,
      ).all({ ...params, error: INTERRUPTED_STEP_ERROR }) as { id: string; index: number }[]
    ).sort((a, b) => (a.id === b.id ? a.index - b.index : a.id < b.id ? -1 : 1));
    const running = sql(
      `SELECT id, server, run_id FROM trajectories WHERE end_reason IS NULL AND ${orphaned("instance_id")}`,
    ).all(params) as { id: string; server: string; run_id: string | null }[];
    for (const t of running) {
      let how: { reason: EndReason; error: string } | null = null;
      if (t.server === "local") how = { reason: "error", error: HOST_STOPPED_ERROR };
      else if (t.run_id !== null && out.runs.includes(t.run_id))
        how = { reason: "interrupted", error: INTERRUPTED_EPISODE_ERROR };
      if (how && endEpisode(t.id, how.reason, at, how.error)) out.ended.push({ id: t.id, ...how, at });
    }
    if (dead.length)
      sql("DELETE FROM instances WHERE id IN (SELECT value FROM json_each(?))").run(params.dead);
  })();
  return out;
}
