// A run's episodes as jobs on pg-boss (docs/runs.md "Runs as jobs"), the kept PostgreSQL job-queue
// library, on the playground's own database pool (its connections carry the process's name, so a
// worker's death shows there as the rest of its work does): one queue per run (a worker takes only
// runs it can play), one job per (task, repeat) to play, fetched with SKIP LOCKED by whichever worker
// asks first, failed to be played again after pg-boss's backoff, completed once the store says the
// episode is settled. Which attempt counts is the store's to say (RunStore.endAttempt), not the queue's.
import "server-only";
import PgBoss from "pg-boss";
import type { PostgresDatabase } from "@/lib/store/postgres/db";
import { ATTEMPT_EPISODE_JOIN, PLAYED_ATTEMPT } from "@/lib/store/run-rows";
import type { RunEpisodeKey } from "@/lib/store/types";

/** pg-boss's tables live in a schema of their own. */
export const JOB_SCHEMA = "ors_playground_jobs";

export interface EpisodeJob extends RunEpisodeKey {
  id: string;
  runId: string;
}

export interface JobQueue {
  readonly ready: Promise<void>;
  /** Creates the run's queue and a job per episode to play (`delaySeconds` before the first may start). */
  enqueue(
    runId: string,
    keys: readonly RunEpisodeKey[],
    o: { maxAttempts: number; timeoutMs: number },
  ): Promise<void>;
  /** At most `n` jobs of the run to play now (each now active for this worker). */
  fetch(runId: string, n: number): Promise<EpisodeJob[]>;
  /** The episode is settled: its job is done. */
  complete(job: { runId: string; id: string }): Promise<void>;
  /** The attempt failed (an infrastructure outcome, a dead worker): pg-boss plays it again after its backoff. */
  fail(job: { runId: string; id: string }, why: string): Promise<void>;
  /**
   * Jobs a worker fetched and died before claiming (or right after ending its attempt, before it
   * settled the job): active for more than `idleMs`, their episode with no attempt playing and none
   * ended in the last `idleMs`. Nobody's lease names them, so only this finds them before pg-boss's
   * expiry (the episode's time limit and two minutes). Each is handed to one caller only: the
   * caller fails it.
   */
  abandoned(idleMs: number): Promise<EpisodeJob[]>;
  /** Drops the run's queue and its jobs (cancelled, deleted, done). */
  drop(runId: string): Promise<void>;
  close(): Promise<void>;
}

export const queueName = (runId: string) => `ors-run-${runId}`;

/** The first wait before a failed job is played again; pg-boss doubles it (with jitter) each time. */
const RETRY_DELAY_S = 1;

export function createJobQueue(db: PostgresDatabase, opts: { log?: (m: string) => void } = {}): JobQueue {
  const log = opts.log ?? ((m: string) => console.error(`[queue] ${m}`));
  const boss = new PgBoss({
    db: { executeSql: (text: string, values?: unknown[]) => db.use(() => db.pool.query(text, values)) },
    schema: JOB_SCHEMA,
    // No cron here; expiry is a backstop only (a dead worker's jobs are failed by the takeover).
    schedule: false,
    maintenanceIntervalSeconds: 30,
  } as PgBoss.ConstructorOptions);
  boss.on("error", (e: Error) => log(`pg-boss: ${e.message}`));
  const ready = db.ready.then(() => boss.start()).then(() => {});
  ready.catch(() => {});
  const ignoreGone = (e: Error) => {
    // The run's queue was dropped meanwhile (cancelled, deleted): nothing to do.
    if (!/does not exist|not found|not be marked/i.test(e.message)) throw e;
  };
  return {
    ready,
    async enqueue(runId, keys, o) {
      await ready;
      const name = queueName(runId);
      if (!(await boss.getQueue(name)))
        await boss.createQueue(name, { name, policy: "standard" } as PgBoss.Queue);
      // Retries beyond the store's limit: the store decides when an episode is errored, pg-boss never first.
      const retryLimit = o.maxAttempts + 2;
      const expireInSeconds = Math.ceil(o.timeoutMs / 1000) + 120;
      for (let i = 0; i < keys.length; i += 1000)
        await boss.insert(
          keys.slice(i, i + 1000).map((k) => ({
            name,
            data: { runId, taskIndex: k.taskIndex, repeat: k.repeat },
            retryLimit,
            retryDelay: RETRY_DELAY_S,
            retryBackoff: true,
            expireInSeconds,
          })),
        );
    },
    async fetch(runId, n) {
      await ready;
      const jobs = await boss
        .fetch<{ runId: string; taskIndex: number; repeat: number }>(queueName(runId), { batchSize: n })
        .catch((e: Error) => {
          ignoreGone(e);
          return [];
        });
      return (jobs ?? []).map((j) => ({
        id: j.id,
        runId,
        taskIndex: j.data.taskIndex,
        repeat: j.data.repeat,
      }));
    },
    async complete(job) {
      await boss.complete(queueName(job.runId), job.id).catch(ignoreGone);
    },
    async fail(job, why) {
      await boss.fail(queueName(job.runId), job.id, { message: why }).catch(ignoreGone);
    },
    async abandoned(idleMs) {
      await ready;
      // Taken in one statement: the jobs found are locked (others' sweeps skip them) and their
      // start moved to now, so a sweep that comes after finds them young. Only one sweep fails each
      // (a second fail would land on the job played again).
      const { rows } = await db.use(() =>
        db.pool.query<{ id: string; data: { runId: string; taskIndex: number; repeat: number } }>(
          `WITH found AS (
             SELECT j.id, j.name FROM ${JOB_SCHEMA}.job j
             WHERE j.state = 'active' AND starts_with(j.name, 'ors-run-')
               AND j.started_on < now() - make_interval(secs => $1::double precision / 1000)
               AND NOT EXISTS (
                 SELECT 1 FROM run_attempts a JOIN ${ATTEMPT_EPISODE_JOIN}
                 WHERE a.run_id = j.data->>'runId' AND a.task_index = (j.data->>'taskIndex')::int
                   AND a.repeat = (j.data->>'repeat')::int AND ((${PLAYED_ATTEMPT}) OR a.ended_at >= $2))
             FOR UPDATE SKIP LOCKED)
           UPDATE ${JOB_SCHEMA}.job j SET started_on = now() FROM found
           WHERE j.name = found.name AND j.id = found.id
           RETURNING j.id, j.data`,
          [idleMs, Date.now() - idleMs],
        ),
      );
      return rows.map((r) => ({ id: r.id, ...r.data }));
    },
    async drop(runId) {
      await ready;
      const name = queueName(runId);
      if (!(await boss.getQueue(name))) return;
      // pg-boss 10 drops a queue only once it holds no job: its jobs go first (their ids read from
      // its job table, as docs/sql of pg-boss describes it), whatever state they are in.
      const { rows } = await boss
        .getDb()
        .executeSql(`SELECT id FROM ${JOB_SCHEMA}.job WHERE name = $1`, [name]);
      const ids = (rows as { id: string }[]).map((r) => r.id);
      for (let i = 0; i < ids.length; i += 1000)
        await boss.deleteJob(name, ids.slice(i, i + 1000)).catch(ignoreGone);
      await boss.deleteQueue(name).catch(ignoreGone);
    },
    async close() {
      await ready.catch(() => {});
      await boss.stop({ graceful: false, close: false, wait: true }).catch(() => {});
    },
  };
}
