// Leases and recovery in the PostgreSQL store (the contract's `beat` and `recoverOrphans`, its
// "Leases", ../types.ts; ../sqlite/recovery.ts in SQLite). Several replicas sweep at once: each dead
// instance is recovered by the one that locks its row first (FOR UPDATE SKIP LOCKED), in one
// transaction. Besides the lease and the pid, PostgreSQL knows which replicas still hold a connection.
import "server-only";
import type pg from "pg";
import type { EndReason } from "@/lib/trajectory/schema";
import {
  HOST_STOPPED_ERROR,
  INTERRUPTED_EPISODE_ERROR,
  INTERRUPTED_STEP_ERROR,
  type OrphanRecovery,
  type RecoveredOrphans,
  RUN_STOPPED_ERROR,
  type StoreInstance,
} from "../types";
import { APPLICATION_NAME_PREFIX, type PostgresDatabase } from "./db";

export async function beat(db: PostgresDatabase, i: StoreInstance, at: number): Promise<void> {
  await db.use(() =>
    db.pool.query(
      `INSERT INTO instances (id, pid, host, started_at, beat_at) VALUES ($1, $2, $3, $4, $4)
       ON CONFLICT (id) DO UPDATE SET beat_at = GREATEST(instances.beat_at, EXCLUDED.beat_at)`,
      [i.id, i.pid, i.host, at],
    ),
  );
}

type InstanceRow = StoreInstance & { beat_at: number };

/** The instances among `rows` that are dead at `at` (see "Leases"). */
function deadAmong(rows: InstanceRow[], connected: Set<string>, at: number, o: OrphanRecovery): string[] {
  return rows
    .filter(
      (r) =>
        r.beat_at < at - o.staleMs ||
        !o.alive(r) ||
        (!connected.has(r.id) && r.beat_at < at - 1.5 * o.everyMs),
    )
    .map((r) => r.id);
}

/** Ids of the instances that hold a connection to the database now. */
async function connectedInstances(c: pg.PoolClient): Promise<Set<string>> {
  const r = await c.query<{ id: string }>(
    `SELECT DISTINCT substr(application_name, $1) AS id FROM pg_stat_activity
     WHERE starts_with(application_name, $2)`,
    [APPLICATION_NAME_PREFIX.length + 1, APPLICATION_NAME_PREFIX],
  );
  return new Set(r.rows.map((x) => x.id));
}

export async function recoverOrphans(
  db: PostgresDatabase,
  self: string,
  at: number,
  o: OrphanRecovery,
): Promise<RecoveredOrphans> {
  return db.transaction(async (c) => {
    const out: RecoveredOrphans = { ended: [], steps: [], runs: [] };
    const select = "SELECT id, pid, host, beat_at FROM instances";
    const all = (await c.query<InstanceRow>(`${select} WHERE id <> $1`, [self])).rows;
    const connected = await connectedInstances(c);
    const suspects = deadAmong(all, connected, at, o);
    // Locked, then judged again as they now stand (one may have renewed its lease meanwhile);
    // those another replica is recovering right now are skipped.
    const locked = suspects.length
      ? (await c.query<InstanceRow>(`${select} WHERE id = ANY($1) FOR UPDATE SKIP LOCKED`, [suspects])).rows
      : [];
    const dead = deadAmong(locked, connected, at, o);
    // Trajectories recorded before instances existed count as a dead one's.
    const orphaned = (col: string) => `(${col} IS NULL OR ${col} = ANY($1::text[]))`;
    if (dead.length) {
      out.runs = (
        await c.query<{ id: string }>(
          `UPDATE runs SET status = 'interrupted', ended_at = $2, error = $3
           WHERE status IN ('queued', 'running') AND instance_id = ANY($1::text[]) RETURNING id`,
          [dead, at, RUN_STOPPED_ERROR],
        )
      ).rows.map((r) => r.id);
    }
    if (out.runs.length) {
      // Episodes whose trajectory finished were played whole: done, never played again.
      await c.query(
        `UPDATE run_episodes e SET status = 'done', error = NULL, finished = 1, stop = 'finished',
           outcome = 'scored', reward = t.total_reward, steps = t.num_steps, ended_at = t.ended_at,
           duration_ms = t.ended_at - e.started_at
         FROM trajectories t
         WHERE e.run_id = ANY($1::text[]) AND e.status = 'running' AND t.id = e.trajectory_id
           AND t.end_reason = 'finished'`,
        [out.runs],
      );
      await c.query(
        `UPDATE run_episodes SET status = 'interrupted', outcome = 'interrupted', error = $2
         WHERE run_id = ANY($1::text[]) AND status = 'running'`,
        [out.runs, RUN_STOPPED_ERROR],
      );
      // Their attempts end as their episodes did (the finished one counted).
      await c.query(
        `UPDATE run_attempts a SET outcome = e.outcome, error = e.error, reward = e.reward,
           trajectory_id = e.trajectory_id, ended_at = COALESCE(e.ended_at, a.started_at),
           counted = CASE WHEN e.status = 'done' THEN 1 ELSE 0 END
         FROM run_episodes e
         WHERE a.run_id = ANY($1::text[]) AND a.outcome IS NULL AND e.run_id = a.run_id
           AND e.task_index = a.task_index AND e.repeat = a.repeat AND e.attempts = a.attempt`,
        [out.runs],
      );
    }
    // The calls they carried (a step's own instance, else its trajectory's): cut.
    out.steps = (
      await c.query<{ id: string; index: number }>(
        `UPDATE steps s SET ok = 0, error = $2 FROM trajectories t
         WHERE t.id = s.trajectory_id AND t.end_reason IS NULL AND s.ok IS NULL
           AND ${orphaned("COALESCE(s.instance_id, t.instance_id)")}
         RETURNING s.trajectory_id AS id, s.idx AS "index"`,
        [dead, INTERRUPTED_STEP_ERROR],
      )
    ).rows.sort((a, b) => (a.id === b.id ? a.index - b.index : a.id < b.id ? -1 : 1));
    const running = (
      await c.query<{ id: string; server: string; run_id: string | null }>(
        `SELECT id, server, run_id FROM trajectories WHERE end_reason IS NULL AND ${orphaned("instance_id")}`,
        [dead],
      )
    ).rows;
    const ends: { ids: string[]; reason: EndReason; error: string }[] = [
      { ids: [], reason: "error", error: HOST_STOPPED_ERROR },
      { ids: [], reason: "interrupted", error: INTERRUPTED_EPISODE_ERROR },
    ];
    for (const t of running) {
      if (t.server === "local") ends[0]!.ids.push(t.id);
      else if (t.run_id !== null && out.runs.includes(t.run_id)) ends[1]!.ids.push(t.id);
    }
    for (const e of ends) {
      if (!e.ids.length) continue;
      const r = await c.query<{ id: string }>(
        `UPDATE trajectories SET end_reason = $2, ended_at = $3, error = $4
         WHERE id = ANY($1::text[]) AND end_reason IS NULL RETURNING id`,
        [e.ids, e.reason, at, e.error],
      );
      for (const { id } of r.rows) out.ended.push({ id, reason: e.reason, error: e.error, at });
    }
    if (dead.length) await c.query("DELETE FROM instances WHERE id = ANY($1::text[])", [dead]);
    return out;
  });
}
