// Each worker's word on whether it can play a run (docs/runs.md "Runs as jobs"): a worker takes only
// runs whose server and model endpoint it knows and whose script it can load; what no worker can
// play waits, and the run page says why from what the workers noted here (in the database, so every
// replica reads every worker's word; in memory for one process).
import "server-only";
import type { PostgresDatabase } from "@/lib/store/postgres/db";

export interface WorkerVerdict {
  worker: string;
  canPlay: boolean;
  /** Why it cannot (null when it can). */
  reason: string | null;
  at: number;
}

export interface WorkerVerdicts {
  note(runId: string, worker: string, canPlay: boolean, reason: string | null): Promise<void>;
  /** The living workers' verdicts on a run. */
  of(runId: string): Promise<WorkerVerdict[]>;
}

export function memoryVerdicts(): WorkerVerdicts {
  const all = new Map<string, Map<string, WorkerVerdict>>();
  return {
    async note(runId, worker, canPlay, reason) {
      const m = all.get(runId) ?? new Map<string, WorkerVerdict>();
      m.set(worker, { worker, canPlay, reason, at: Date.now() });
      all.set(runId, m);
    },
    async of(runId) {
      return [...(all.get(runId)?.values() ?? [])];
    },
  };
}

export function postgresVerdicts(db: PostgresDatabase): WorkerVerdicts {
  return {
    async note(runId, worker, canPlay, reason) {
      await db.use(() =>
        db.pool.query(
          `INSERT INTO run_workers (run_id, worker, can_play, reason, at) VALUES ($1, $2, $3, $4, $5)
           ON CONFLICT (run_id, worker) DO UPDATE SET can_play = EXCLUDED.can_play, reason = EXCLUDED.reason, at = EXCLUDED.at`,
          [runId, worker, canPlay ? 1 : 0, reason, Date.now()],
        ),
      );
    },
    async of(runId) {
      const r = await db.use(() =>
        db.pool.query<{ worker: string; can_play: number; reason: string | null; at: number }>(
          `SELECT worker, can_play, reason, at FROM run_workers w
           WHERE run_id = $1 AND EXISTS (SELECT 1 FROM instances i WHERE i.id = w.worker) ORDER BY worker`,
          [runId],
        ),
      );
      return r.rows.map((x) => ({ worker: x.worker, canPlay: x.can_play === 1, reason: x.reason, at: x.at }));
    },
  };
}
