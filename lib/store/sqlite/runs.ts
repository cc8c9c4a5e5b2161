// Runs in the SQLite store (the RunStore half of ../types.ts): a run's row, its episodes' rows, and
// the aggregates of its summary computed in SQL (counts, sums, histogram, percentiles), so a
// 10,000-episode run's results are read without loading its trajectories.
import "server-only";
import { insertOf } from "../rows";
import {
  ATTEMPT_EPISODE_JOIN,
  type AttemptRow,
  EPISODE_COLUMNS,
  type EpisodeRow,
  newRunId,
  newRunRow,
  ORPHANED_ATTEMPTS_SQL,
  PLAYED_ATTEMPT,
  type RunRow,
  statusAfterAttempt,
  toAttempt,
  toEpisode,
  toRun,
} from "../run-rows";
import {
  type AppAnnouncement,
  type AttemptEnd,
  FINAL_RUN_STATUSES,
  type NewRun,
  type OrphanedAttempt,
  RETRIED_OUTCOMES,
  type RunAggregates,
  type RunAttempt,
  type RunEpisode,
  type RunEpisodeKey,
  type RunEpisodePatch,
  type RunEpisodeStatus,
  type RunListFilter,
  type RunProgressCounts,
  type RunRecord,
  type RunStatus,
  type RunStatusChange,
  type RunStore,
  type StoreInstance,
} from "../types";
import type { Db, Statements } from "./db";
import { episodeCounts, runAggregates } from "./run-aggregates";

export function getRun(sql: Statements, id: string): RunRecord | null {
  const r = sql("SELECT * FROM runs WHERE id = ?").get(id) as RunRow | undefined;
  return r ? toRun(r) : null;
}

export function setRunStatus(
  sql: Statements,
  id: string,
  status: RunStatus,
  at: number,
  o: RunStatusChange = {},
): boolean {
  const sets = ["status = @status"];
  if (status === "running")
    sets.push("started_at = COALESCE(started_at, @at)", "ended_at = NULL", "error = NULL");
  if (FINAL_RUN_STATUSES.includes(status)) sets.push("ended_at = @at");
  if (o.error !== undefined) sets.push("error = @error");
  if (o.instance !== undefined) sets.push("instance_id = @instance");
  const from = o.from ? "AND status IN (SELECT value FROM json_each(@from))" : "";
  const owner = o.owner !== undefined ? "AND instance_id IS @owner" : "";
  return (
    sql(`UPDATE runs SET ${sets.join(", ")} WHERE id = @id ${from} ${owner}`).run({
      id,
      status,
      at,
      error: o.error ?? null,
      instance: o.instance ?? null,
      from: JSON.stringify(o.from ?? []),
      owner: o.owner ?? null,
    }).changes > 0
  );
}

/** The SET list of an episode patch and its named parameters. */
function patchOf(patch: RunEpisodePatch, params: Record<string, unknown>): string[] {
  const sets: string[] = [];
  for (const [k, v] of Object.entries(patch) as [keyof RunEpisodePatch, unknown][]) {
    if (v === undefined) continue;
    const col = EPISODE_COLUMNS[k];
    sets.push(`${col} = @${col}`);
    params[col] = typeof v === "boolean" ? (v ? 1 : 0) : v;
  }
  return sets;
}

export function updateEpisode(
  sql: Statements,
  runId: string,
  key: RunEpisodeKey,
  patch: RunEpisodePatch,
  owner?: string,
): boolean {
  const params: Record<string, unknown> = { run: runId, task: key.taskIndex, repeat: key.repeat, owner };
  const sets = patchOf(patch, params);
  if (!sets.length) return false;
  const held = owner === undefined ? "" : "AND instance_id = @owner AND status IN ('running', 'interrupted')";
  return (
    sql(
      `UPDATE run_episodes SET ${sets.join(", ")}
         WHERE run_id = @run AND task_index = @task AND repeat = @repeat ${held}`,
    ).run(params).changes > 0
  );
}

/**
 * The running episodes of a run whose process stopped: those whose trajectory finished were
 * played whole (done, with its reward; turns and tokens unknown), the others are interrupted.
 */
export function settleEpisodesOfStopped(sql: Statements, runId: string, error: string): void {
  sql(
    `UPDATE run_episodes SET status = 'done', error = NULL, finished = 1, stop = 'finished', outcome = 'scored',
         reward = t.total_reward, steps = t.num_steps, ended_at = t.ended_at,
         duration_ms = t.ended_at - run_episodes.started_at
       FROM trajectories t
       WHERE run_episodes.run_id = ? AND run_episodes.status = 'running'
         AND t.id = run_episodes.trajectory_id AND t.end_reason = 'finished'`,
  ).run(runId);
  sql(
    `UPDATE run_episodes SET status = 'interrupted', outcome = 'interrupted', error = ?
       WHERE run_id = ? AND status = 'running'`,
  ).run(error, runId);
  // Their attempts end as their episodes did (the finished one counted).
  sql(
    `UPDATE run_attempts SET outcome = e.outcome, error = e.error, reward = e.reward,
         trajectory_id = e.trajectory_id, ended_at = COALESCE(e.ended_at, run_attempts.started_at),
         counted = CASE WHEN e.status = 'done' THEN 1 ELSE 0 END
       FROM run_episodes e
       WHERE run_attempts.run_id = ? AND run_attempts.outcome IS NULL AND e.run_id = run_attempts.run_id
         AND e.task_index = run_attempts.task_index AND e.repeat = run_attempts.repeat
         AND e.attempts = run_attempts.attempt`,
  ).run(runId);
}

/**
 * The RunStore contract (../types.ts) over SQLite: the store's runs half (./store.ts extends it).
 * better-sqlite3 is synchronous; the methods are async only to honour the contract.
 */
export abstract class SqliteRunStore implements RunStore {
  protected abstract readonly db: Db;
  protected abstract readonly sql: Statements;
  abstract readonly instance: StoreInstance;

  async announce(app: AppAnnouncement): Promise<void> {
    this.db
      .prepare("UPDATE instances SET app_json = ? WHERE id = ?")
      .run(JSON.stringify(app), this.instance.id);
  }
  async liveApps(since: number): Promise<AppAnnouncement[]> {
    return (
      this.db
        .prepare(
          "SELECT app_json FROM instances WHERE app_json IS NOT NULL AND beat_at >= ? ORDER BY beat_at DESC",
        )
        .all(since) as { app_json: string }[]
    ).map((r) => JSON.parse(r.app_json) as AppAnnouncement);
  }

  async getRun(id: string): Promise<RunRecord | null> {
    return getRun(this.sql, id);
  }
  async setRunStatus(id: string, status: RunStatus, at: number, o?: RunStatusChange): Promise<boolean> {
    return setRunStatus(this.sql, id, status, at, o);
  }
  async updateEpisode(
    runId: string,
    key: RunEpisodeKey,
    patch: RunEpisodePatch,
    o?: { owner?: string },
  ): Promise<boolean> {
    return updateEpisode(this.sql, runId, key, patch, o?.owner);
  }
  async deleteRun(id: string): Promise<boolean> {
    return this.db.transaction(() => {
      this.db.prepare("DELETE FROM trajectories WHERE run_id = ?").run(id);
      return this.db.prepare("DELETE FROM runs WHERE id = ?").run(id).changes > 0;
    })();
  }
  async createRun(run: NewRun): Promise<RunRecord> {
    const id = run.id ?? newRunId();
    const insertEpisode = this.sql(
      "INSERT INTO run_episodes (run_id, task_index, repeat, status) VALUES (?, ?, ?, 'pending')",
    );
    this.db.transaction(() => {
      const row = insertOf("runs", newRunRow(id, run), false);
      this.sql(row.sql).run(...row.values);
      for (const task of run.tasks)
        for (let repeat = 0; repeat < run.repeats; repeat++) insertEpisode.run(id, task, repeat);
    })();
    return getRun(this.sql, id)!;
  }

  async listRuns(f: RunListFilter = {}): Promise<{ items: RunRecord[]; total: number }> {
    const clauses: string[] = [];
    const params: Record<string, unknown> = {};
    for (const k of ["server", "env", "status"] as const)
      if (f[k]) {
        clauses.push(`${k} = @${k}`);
        params[k] = f[k];
      }
    if (f.tag) {
      clauses.push("EXISTS (SELECT 1 FROM json_each(runs.tags_json) WHERE value = @tag)");
      params.tag = f.tag;
    }
    const where = clauses.length ? `WHERE ${clauses.join(" AND ")}` : "";
    const total = this.sql(`SELECT COUNT(*) FROM runs ${where}`).pluck().get(params) as number;
    const rows = this.sql(
      `SELECT * FROM runs ${where} ORDER BY created_at DESC, rowid DESC LIMIT @limit OFFSET @offset`,
    ).all({ ...params, limit: f.limit ?? 100, offset: f.offset ?? 0 }) as RunRow[];
    return { items: rows.map(toRun), total };
  }

  async pendingEpisodes(runId: string): Promise<RunEpisodeKey[]> {
    return (
      this.sql(
        `SELECT task_index, repeat FROM run_episodes
           WHERE run_id = ? AND status IN ('pending', 'cancelled', 'interrupted')
           ORDER BY repeat, task_index`,
      ).all(runId) as { task_index: number; repeat: number }[]
    ).map((r) => ({ taskIndex: r.task_index, repeat: r.repeat }));
  }

  async claimEpisode(
    runId: string,
    key: RunEpisodeKey,
    owner: string,
    patch: RunEpisodePatch,
    o: { jobId?: string } = {},
  ): Promise<boolean> {
    const params: Record<string, unknown> = {
      run: runId,
      task: key.taskIndex,
      repeat: key.repeat,
      owner,
      job: o.jobId ?? null,
    };
    const sets = [...patchOf(patch, params), "instance_id = @owner", "attempts = attempts + 1"];
    return this.db.transaction(() => {
      const claimed =
        this.sql(
          `UPDATE run_episodes SET ${sets.join(", ")}
             WHERE run_id = @run AND task_index = @task AND repeat = @repeat
               AND status IN ('pending', 'cancelled', 'interrupted')
               AND EXISTS (SELECT 1 FROM runs WHERE id = @run AND status = 'running'
                             AND (instance_id = @owner OR instance_id IS NULL))`,
        ).run(params).changes > 0;
      if (claimed)
        this.sql(
          `INSERT INTO run_attempts (run_id, task_index, repeat, attempt, worker, started_at, job_id)
             SELECT run_id, task_index, repeat, attempts, instance_id, COALESCE(started_at, 0), @job FROM run_episodes
             WHERE run_id = @run AND task_index = @task AND repeat = @repeat`,
        ).run(params);
      return claimed;
    })();
  }

  async endAttempt(
    runId: string,
    key: RunEpisodeKey,
    end: AttemptEnd,
    o: { owner: string; maxAttempts: number },
  ): Promise<RunEpisodeStatus | null> {
    const k = { run: runId, task: key.taskIndex, repeat: key.repeat, owner: o.owner };
    return this.db.transaction(() => {
      const ep = this.sql(
        `SELECT e.attempts FROM run_attempts a JOIN ${ATTEMPT_EPISODE_JOIN}
         WHERE a.run_id = @run AND a.task_index = @task AND a.repeat = @repeat AND a.worker = @owner
           AND ${PLAYED_ATTEMPT}`,
      ).get(k) as { attempts: number } | undefined;
      if (!ep) return null;
      const failures =
        (this.sql(
          `SELECT COUNT(*) FROM run_attempts WHERE run_id = @run AND task_index = @task AND repeat = @repeat
             AND attempt < @attempt AND outcome IN (SELECT value FROM json_each(@retried))`,
        )
          .pluck()
          .get({ ...k, attempt: ep.attempts, retried: JSON.stringify(RETRIED_OUTCOMES) }) as number) +
        (RETRIED_OUTCOMES.includes(end.outcome) ? 1 : 0);
      const status = statusAfterAttempt(end.outcome, failures, o.maxAttempts);
      this.sql(
        `UPDATE run_attempts SET outcome = @outcome, stop = @stop, error = @error, trajectory_id = @trajectory,
             reward = @reward, ended_at = @endedAt, counted = @counted
           WHERE run_id = @run AND task_index = @task AND repeat = @repeat AND attempt = @attempt`,
      ).run({
        ...k,
        attempt: ep.attempts,
        outcome: end.outcome,
        stop: end.stop ?? null,
        error: end.error ?? null,
        trajectory: end.trajectoryId ?? null,
        reward: end.reward ?? null,
        endedAt: end.endedAt,
        counted: status === "done" ? 1 : 0,
      });
      updateEpisode(this.sql, runId, key, { ...end, status });
      return status;
    })();
  }

  async orphanedAttempts(staleBefore: number): Promise<OrphanedAttempt[]> {
    return (
      this.sql(ORPHANED_ATTEMPTS_SQL.replace("$1", "?")).all(staleBefore) as (AttemptRow & {
        server: string;
        sid: string | null;
      })[]
    ).map((r) => ({ ...toAttempt(r), runId: r.run_id, server: r.server, sid: r.sid }));
  }

  async runAttempts(runId: string, key?: RunEpisodeKey): Promise<RunAttempt[]> {
    const one = key ? "AND task_index = @task AND repeat = @repeat" : "";
    return (
      this.sql(
        `SELECT * FROM run_attempts WHERE run_id = @run ${one} ORDER BY task_index, repeat, attempt`,
      ).all({ run: runId, task: key?.taskIndex, repeat: key?.repeat }) as AttemptRow[]
    ).map(toAttempt);
  }

  async setEpisodesStatus(
    runId: string,
    from: readonly RunEpisodeStatus[],
    status: RunEpisodeStatus,
    error: string | null,
  ): Promise<number> {
    return this.sql(
      `UPDATE run_episodes SET status = ?, error = COALESCE(?, error)
         WHERE run_id = ? AND status IN (SELECT value FROM json_each(?))`,
    ).run(status, error, runId, JSON.stringify(from)).changes;
  }

  async runEpisodes(runId: string, o: { limit?: number; offset?: number } = {}): Promise<RunEpisode[]> {
    return (
      this.sql(
        "SELECT * FROM run_episodes WHERE run_id = ? ORDER BY task_index, repeat LIMIT ? OFFSET ?",
      ).all(runId, o.limit ?? -1, o.offset ?? 0) as EpisodeRow[]
    ).map(toEpisode);
  }

  async runProgress(runId: string, since: number): Promise<RunProgressCounts> {
    const endedSince = this.sql(
      "SELECT COUNT(*) FROM run_episodes WHERE run_id = ? AND ended_at >= ? AND status IN ('done', 'errored')",
    )
      .pluck()
      .get(runId, since) as number;
    return { counts: episodeCounts(this.sql, runId), endedSince };
  }

  async runAggregates(
    runId: string,
    o: { successAt: number; histogramBins: number },
  ): Promise<RunAggregates> {
    return runAggregates(this.sql, runId, o, getRun(this.sql, runId)?.repeats ?? 1);
  }
}
