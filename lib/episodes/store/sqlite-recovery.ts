// Recovery after a crash in the SQLite store (the contract's `recoverOrphans`, ./types.ts): what a
// recording process that died left behind — steps in flight, episodes it was playing, runs it
// was executing — is marked so, by the next process that starts (or sweeps).
import "server-only";
import type { EndReason } from "@/lib/episodes/schema";
import type { Db } from "./db";
import type { SqliteRuns } from "./sqlite-runs";
import { INTERRUPTED_STEP_ERROR, type OrphanRecovery, type RecoveredOrphans } from "./types";

/** The built-in host's sessions die with the process that hosts them. */
const LOCAL_LOST = "the server restarted: the built-in host lost the session";
const INTERRUPTED_EPISODE = "interrupted: the playground stopped while this episode was running";
const RUN_STOPPED = "the process playing this run stopped";

type End = (id: string, reason: EndReason, at: number, error: string) => boolean;

export function recoverOrphans(
  db: Db,
  runs: SqliteRuns,
  at: number,
  o: OrphanRecovery,
  endEpisode: End,
): RecoveredOrphans {
  const sql = (q: string) => db.prepare(q);
  const rows = sql("SELECT id, pid, host, beat_at FROM instances WHERE id != ?").all(o.self) as {
    id: string;
    pid: number;
    host: string;
    beat_at: number;
  }[];
  const dead = rows.filter((r) => r.beat_at < at - o.staleMs || !o.alive(r)).map((r) => r.id);
  const out: RecoveredOrphans = { ended: [], steps: 0, runs: [] };
  const orphaned = `(instance_id IS NULL OR instance_id IN (SELECT value FROM json_each(@dead)))`;
  const params = { dead: JSON.stringify(dead), self: o.self };
  db.transaction(() => {
    out.runs = (
      sql(
        `SELECT id FROM runs WHERE status IN ('queued', 'running')
             AND (instance_id IS NULL OR instance_id != @self) AND ${orphaned}`,
      ).all(params) as { id: string }[]
    ).map((r) => r.id);
    for (const id of out.runs) {
      runs.setRunStatus(id, "interrupted", at, { error: RUN_STOPPED });
      runs.setEpisodesStatus(id, ["running"], "interrupted", RUN_STOPPED);
    }
    const running = sql(
      `SELECT id, server, run_id FROM trajectories WHERE end_reason IS NULL
           AND (instance_id IS NULL OR instance_id != @self) AND ${orphaned}`,
    ).all(params) as { id: string; server: string; run_id: string | null }[];
    for (const t of running) {
      const inflight = sql(
        "UPDATE steps SET ok = 0, error = ? WHERE trajectory_id = ? AND ok IS NULL RETURNING idx",
      ).all(INTERRUPTED_STEP_ERROR, t.id).length;
      out.steps += inflight;
      let how: { reason: EndReason; error: string } | null = null;
      if (t.server === "local") how = { reason: "error", error: LOCAL_LOST };
      else if (inflight > 0 || (t.run_id !== null && out.runs.includes(t.run_id)))
        how = { reason: "interrupted", error: INTERRUPTED_EPISODE };
      if (how && endEpisode(t.id, how.reason, at, how.error)) out.ended.push({ id: t.id, ...how, at });
    }
    if (dead.length)
      sql("DELETE FROM instances WHERE id IN (SELECT value FROM json_each(?))").run(params.dead);
  })();
  return out;
}
