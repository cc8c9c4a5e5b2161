// Runs in the PostgreSQL store (the RunStore half of ../types.ts, as ../sqlite/runs.ts in SQLite): a
// run's row, its episodes' rows, claims that one replica wins (FOR UPDATE SKIP LOCKED), and the
// aggregates of its summary computed in SQL, so a 10,000-episode run is read without its trajectories.
import "server-only";
import type pg from "pg";
import { insertOf } from "../rows";
import {
  ATTEMPT_EPISODE_JOIN,
  type AttemptRow,
  aggregatesOf,
  type DoneSums,
  EPISODE_COLUMNS,
  type EpisodeRow,
  histogramBins,
  histogramOf,
  newRunId,
  newRunRow,
  ORPHANED_ATTEMPTS_SQL,
  outcomeCounts,
  PLAYED_ATTEMPT,
  type RunRow,
  statusAfterAttempt,
  statusCounts,
  type TaskEpisodeRow,
  taskRows,
  toAttempt,
  toEpisode,
  toRun,
} from "../run-rows";
import {
  type AppAnnouncement,
  type AttemptEnd,
  type AttemptOutcome,
  FINAL_RUN_STATUSES,
  type NewRun,
  type OrphanedAttempt,
  type Percentiles,
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
import type { PostgresDatabase } from "./db";

const KEY = "run_id = $1 AND task_index = $2 AND repeat = $3";

/** An episode patch as a SET list over numbered parameters (after those already in `params`). */
function setsOf(patch: RunEpisodePatch, params: unknown[]): string[] {
  const sets: string[] = [];
  for (const [k, v] of Object.entries(patch) as [keyof RunEpisodePatch, unknown][]) {
    if (v === undefined) continue;
    params.push(typeof v === "boolean" ? (v ? 1 : 0) : v);
    sets.push(`${EPISODE_COLUMNS[k]} = $${params.length}`);
  }
  return sets;
}

/** The RunStore contract over PostgreSQL: the store's runs half (./store.ts extends it). */
export abstract class PostgresRunStore implements RunStore {
  abstract readonly db: PostgresDatabase;
  abstract readonly instance: StoreInstance;

  async announce(app: AppAnnouncement): Promise<void> {
    await this.query("UPDATE instances SET app_json = $1 WHERE id = $2", [
      JSON.stringify(app),
      this.instance.id,
    ]);
  }
  async liveApps(since: number): Promise<AppAnnouncement[]> {
    const r = await this.query<{ app_json: string }>(
      "SELECT app_json FROM instances WHERE app_json IS NOT NULL AND beat_at >= $1 ORDER BY beat_at DESC",
      [since],
    );
    return r.rows.map((x) => JSON.parse(x.app_json) as AppAnnouncement);
  }

  protected query<R extends pg.QueryResultRow>(text: string, values: unknown[] = []) {
    return this.db.use(() => this.db.pool.query<R>(text, values));
  }

  async createRun(run: NewRun): Promise<RunRecord> {
    const id = run.id ?? newRunId();
    // The run and its episodes in one statement (tasks × repeats rows: ten thousand at once).
    const row = insertOf("runs", newRunRow(id, run), true, "RETURNING *");
    const r = await this.query<RunRow>(
      `WITH r AS (${row.sql}),
       e AS (
         INSERT INTO run_episodes (run_id, task_index, repeat)
         SELECT r.id, t.task, k FROM r, unnest($${row.values.length + 1}::int[]) AS t(task),
           generate_series(0, r.repeats - 1) AS k)
       SELECT * FROM r`,
      [...row.values, run.tasks],
    );
    return toRun(r.rows[0]!);
  }

  async getRun(id: string): Promise<RunRecord | null> {
    const r = await this.query<RunRow>("SELECT * FROM runs WHERE id = $1", [id]);
    return r.rows[0] ? toRun(r.rows[0]) : null;
  }

  async listRuns(f: RunListFilter = {}): Promise<{ items: RunRecord[]; total: number }> {
    const clauses: string[] = [];
    const params: unknown[] = [];
    for (const k of ["server", "env", "status"] as const)
      if (f[k]) {
        params.push(f[k]);
        clauses.push(`${k} = $${params.length}`);
      }
    if (f.tag) {
      params.push(f.tag);
      clauses.push(`COALESCE(tags_json, '[]')::jsonb ? $${params.length}`);
    }
    const where = clauses.length ? `WHERE ${clauses.join(" AND ")}` : "";
    const total = await this.query<{ n: number }>(`SELECT COUNT(*)::int AS n FROM runs ${where}`, params);
    const n = params.length;
    const rows = await this.query<RunRow>(
      `SELECT * FROM runs ${where} ORDER BY created_at DESC, seq DESC LIMIT $${n + 1} OFFSET $${n + 2}`,
      [...params, f.limit ?? 100, f.offset ?? 0],
    );
    return { items: rows.rows.map(toRun), total: total.rows[0]!.n };
  }

  async setRunStatus(id: string, status: RunStatus, at: number, o: RunStatusChange = {}): Promise<boolean> {
    const params: unknown[] = [id, status, at];
    const sets = ["status = $2"];
    if (status === "running")
      sets.push("started_at = COALESCE(started_at, $3)", "ended_at = NULL", "error = NULL");
    if (FINAL_RUN_STATUSES.includes(status)) sets.push("ended_at = $3");
    if (o.error !== undefined) {
      params.push(o.error);
      sets.push(`error = $${params.length}`);
    }
    if (o.instance !== undefined) {
      params.push(o.instance);
      sets.push(`instance_id = $${params.length}`);
    }
    let where = "id = $1";
    if (o.from) {
      params.push(o.from);
      // A claim of the right to play it: when another replica is claiming it at this moment, this
      // one does not wait to lose, it loses now.
      where =
        o.instance !== undefined
          ? `id = (SELECT id FROM runs WHERE id = $1 AND status = ANY($${params.length}) FOR UPDATE SKIP LOCKED)`
          : `id = $1 AND status = ANY($${params.length})`;
    }
    if (o.owner !== undefined) {
      params.push(o.owner);
      where += ` AND instance_id = $${params.length}`;
    }
    const r = await this.query(`UPDATE runs SET ${sets.join(", ")} WHERE ${where}`, params);
    return (r.rowCount ?? 0) > 0;
  }

  async deleteRun(id: string): Promise<boolean> {
    return this.db.transaction(async (c) => {
      await c.query("DELETE FROM trajectories WHERE run_id = $1", [id]);
      return ((await c.query("DELETE FROM runs WHERE id = $1", [id])).rowCount ?? 0) > 0;
    });
  }

  async pendingEpisodes(runId: string): Promise<RunEpisodeKey[]> {
    const r = await this.query<{ task_index: number; repeat: number }>(
      `SELECT task_index, repeat FROM run_episodes
       WHERE run_id = $1 AND status IN ('pending', 'cancelled', 'interrupted') ORDER BY repeat, task_index`,
      [runId],
    );
    return r.rows.map((x) => ({ taskIndex: x.task_index, repeat: x.repeat }));
  }

  async claimEpisode(
    runId: string,
    key: RunEpisodeKey,
    owner: string,
    patch: RunEpisodePatch,
    o: { jobId?: string } = {},
  ): Promise<boolean> {
    const params: unknown[] = [runId, key.taskIndex, key.repeat, owner];
    const sets = [...setsOf(patch, params), "instance_id = $4", "attempts = attempts + 1"];
    // The claim and its attempt in one statement.
    const r = await this.query(
      `WITH e AS (
         UPDATE run_episodes SET ${sets.join(", ")}
         WHERE ${KEY} AND status IN ('pending', 'cancelled', 'interrupted')
           AND EXISTS (SELECT 1 FROM runs WHERE id = $1 AND status = 'running'
                         AND (instance_id = $4 OR instance_id IS NULL))
         RETURNING run_id, task_index, repeat, attempts, instance_id, started_at)
       INSERT INTO run_attempts (run_id, task_index, repeat, attempt, worker, started_at, job_id)
       SELECT run_id, task_index, repeat, attempts, instance_id, COALESCE(started_at, 0), $${params.length + 1} FROM e`,
      [...params, o.jobId ?? null],
    );
    return (r.rowCount ?? 0) > 0;
  }

  async endAttempt(
    runId: string,
    key: RunEpisodeKey,
    end: AttemptEnd,
    o: { owner: string; maxAttempts: number },
  ): Promise<RunEpisodeStatus | null> {
    return this.db.transaction(async (c) => {
      const k = [runId, key.taskIndex, key.repeat];
      const ep = (
        await c.query<{ attempts: number }>(
          `SELECT e.attempts FROM run_attempts a JOIN ${ATTEMPT_EPISODE_JOIN}
           WHERE a.run_id = $1 AND a.task_index = $2 AND a.repeat = $3 AND a.worker = $4 AND ${PLAYED_ATTEMPT}
           FOR UPDATE OF e, a`,
          [...k, o.owner],
        )
      ).rows[0];
      if (!ep) return null;
      const before = (
        await c.query<{ n: number }>(
          `SELECT COUNT(*)::int AS n FROM run_attempts WHERE ${KEY} AND attempt < $4 AND outcome = ANY($5)`,
          [...k, ep.attempts, RETRIED_OUTCOMES],
        )
      ).rows[0]!.n;
      const failures = before + (RETRIED_OUTCOMES.includes(end.outcome) ? 1 : 0);
      const status = statusAfterAttempt(end.outcome, failures, o.maxAttempts);
      await c.query(
        `UPDATE run_attempts SET outcome = $5, stop = $6, error = $7, trajectory_id = $8, reward = $9,
           ended_at = $10, counted = $11 WHERE ${KEY} AND attempt = $4`,
        [
          ...k,
          ep.attempts,
          end.outcome,
          end.stop ?? null,
          end.error ?? null,
          end.trajectoryId ?? null,
          end.reward ?? null,
          end.endedAt,
          status === "done" ? 1 : 0,
        ],
      );
      const params: unknown[] = [...k];
      const sets = setsOf({ ...end, status }, params);
      await c.query(`UPDATE run_episodes SET ${sets.join(", ")} WHERE ${KEY}`, params);
      return status;
    });
  }

  async orphanedAttempts(staleBefore: number): Promise<OrphanedAttempt[]> {
    const r = await this.query<AttemptRow & { server: string; sid: string | null }>(ORPHANED_ATTEMPTS_SQL, [
      staleBefore,
    ]);
    return r.rows.map((x) => ({ ...toAttempt(x), runId: x.run_id, server: x.server, sid: x.sid }));
  }

  async runAttempts(runId: string, key?: RunEpisodeKey): Promise<RunAttempt[]> {
    const r = key
      ? await this.query<AttemptRow>(`SELECT * FROM run_attempts WHERE ${KEY} ORDER BY attempt`, [
          runId,
          key.taskIndex,
          key.repeat,
        ])
      : await this.query<AttemptRow>(
          "SELECT * FROM run_attempts WHERE run_id = $1 ORDER BY task_index, repeat, attempt",
          [runId],
        );
    return r.rows.map(toAttempt);
  }

  async updateEpisode(
    runId: string,
    key: RunEpisodeKey,
    patch: RunEpisodePatch,
    o: { owner?: string } = {},
  ): Promise<boolean> {
    const params: unknown[] = [runId, key.taskIndex, key.repeat];
    const sets = setsOf(patch, params);
    if (!sets.length) return false;
    let held = "";
    if (o.owner !== undefined) {
      params.push(o.owner);
      held = `AND instance_id = $${params.length} AND status IN ('running', 'interrupted')`;
    }
    const r = await this.query(`UPDATE run_episodes SET ${sets.join(", ")} WHERE ${KEY} ${held}`, params);
    return (r.rowCount ?? 0) > 0;
  }

  async setEpisodesStatus(
    runId: string,
    from: readonly RunEpisodeStatus[],
    status: RunEpisodeStatus,
    error: string | null,
  ): Promise<number> {
    const r = await this.query(
      `UPDATE run_episodes SET status = $1, error = COALESCE($2, error) WHERE run_id = $3 AND status = ANY($4)`,
      [status, error, runId, from],
    );
    return r.rowCount ?? 0;
  }

  async runEpisodes(runId: string, o: { limit?: number; offset?: number } = {}): Promise<RunEpisode[]> {
    const r = await this.query<EpisodeRow>(
      "SELECT * FROM run_episodes WHERE run_id = $1 ORDER BY task_index, repeat LIMIT $2 OFFSET $3",
      [runId, o.limit ?? null, o.offset ?? 0],
    );
    return r.rows.map(toEpisode);
  }

  private async counts(runId: string): Promise<Record<RunEpisodeStatus, number>> {
    const r = await this.query<{ status: RunEpisodeStatus; n: number }>(
      "SELECT status, COUNT(*)::int AS n FROM run_episodes WHERE run_id = $1 GROUP BY status",
      [runId],
    );
    return statusCounts(r.rows);
  }

  async runProgress(runId: string, since: number): Promise<RunProgressCounts> {
    const r = await this.query<{ n: number }>(
      `SELECT COUNT(*)::int AS n FROM run_episodes
       WHERE run_id = $1 AND ended_at >= $2 AND status IN ('done', 'errored')`,
      [runId, since],
    );
    return { counts: await this.counts(runId), endedSince: r.rows[0]!.n };
  }

  /** Nearest-rank percentiles of a column over the done episodes, read by rank in one query. */
  private async percentiles(
    runId: string,
    column: "turns" | "duration_ms",
    n: number,
  ): Promise<Percentiles | null> {
    if (n === 0) return null;
    const ranks = [50, 90, 99, 100].map((p) => Math.max(0, Math.ceil((p / 100) * n) - 1));
    const r = await this.query<{ rk: number; v: number }>(
      `SELECT rk::int AS rk, v FROM (
         SELECT ${column} AS v, ROW_NUMBER() OVER (ORDER BY ${column}) - 1 AS rk FROM run_episodes
         WHERE run_id = $1 AND status = 'done' AND ${column} IS NOT NULL) x
       WHERE rk = ANY($2::int[])`,
      [runId, ranks],
    );
    const at = new Map(r.rows.map((x) => [x.rk, x.v]));
    const [p50, p90, p99, max] = ranks.map((k) => at.get(k)!) as [number, number, number, number];
    return { p50, p90, p99, max };
  }

  /** The ended episodes by outcome, why the policy stopped, and the attempts (RunAggregates). */
  private async outcomes(runId: string): Promise<Pick<RunAggregates, "outcomes" | "stops" | "attempts">> {
    const outcomes = outcomeCounts(
      (
        await this.query<{ outcome: AttemptOutcome; n: number }>(
          `SELECT outcome, COUNT(*)::int AS n FROM run_episodes WHERE run_id = $1 AND outcome IS NOT NULL
             AND status IN ('done', 'errored', 'cancelled') GROUP BY outcome`,
          [runId],
        )
      ).rows,
    );
    const stops = (
      await this.query<{ stop: string; count: number }>(
        `SELECT COALESCE(stop, 'policy_stop') COLLATE "C" AS stop, COUNT(*)::int AS count FROM run_episodes
           WHERE run_id = $1 AND status = 'done' AND outcome = 'policy_stopped' GROUP BY 1 ORDER BY 2 DESC, 1`,
        [runId],
      )
    ).rows;
    const attempts = (
      await this.query<{ total: number; retried: number }>(
        `SELECT COUNT(*)::int AS total, COUNT(*) FILTER (WHERE outcome = ANY($2))::int AS retried
           FROM run_attempts WHERE run_id = $1`,
        [runId, RETRIED_OUTCOMES],
      )
    ).rows[0]!;
    return { outcomes, stops, attempts };
  }

  async runAggregates(
    runId: string,
    o: { successAt: number; histogramBins: number },
  ): Promise<RunAggregates> {
    const done = "run_id = $1 AND status = 'done'";
    const a = (
      await this.query<DoneSums>(
        `SELECT COUNT(reward)::int AS n, COALESCE(SUM(reward), 0)::float8 AS sum,
           COALESCE(SUM(reward * reward), 0)::float8 AS "sumSquares", MIN(reward) AS min, MAX(reward) AS max,
           COUNT(*) FILTER (WHERE finished = 1 AND reward >= $2)::int AS successes,
           COUNT(turns)::int AS "withTurns", COUNT(duration_ms)::int AS "withDuration",
           COUNT(prompt_tokens)::int AS "withTokens", COALESCE(SUM(prompt_tokens), 0)::float8 AS prompt,
           COALESCE(SUM(completion_tokens), 0)::float8 AS completion
         FROM run_episodes WHERE ${done}`,
        [runId, o.successAt],
      )
    ).rows[0]!;
    const h = histogramBins(a, o.histogramBins);
    // TRUNC as SQLite's CAST to INTEGER (rewards ≥ min: the same as floor).
    const histogram = histogramOf(
      h,
      h
        ? (
            await this.query<{ bin: number; n: number }>(
              `SELECT LEAST($2::int - 1, TRUNC((reward - $3::float8) / $4::float8))::int AS bin, COUNT(*)::int AS n
               FROM run_episodes WHERE ${done} AND reward IS NOT NULL GROUP BY bin`,
              [runId, h.bins, h.min, h.width || 1],
            )
          ).rows
        : [],
    );
    const repeats = (await this.getRun(runId))?.repeats ?? 1;
    const tasks = taskRows(
      (
        await this.query<TaskEpisodeRow>(
          `SELECT task_index, repeat, status, reward, trajectory_id,
             (status = 'done' AND finished = 1 AND reward >= $2)::int AS success
           FROM run_episodes WHERE run_id = $1 ORDER BY task_index, repeat`,
          [runId, o.successAt],
        )
      ).rows,
      repeats,
    );
    const errors = (
      await this.query<{ message: string; count: number }>(
        `SELECT COALESCE(error, 'unknown error') COLLATE "C" AS message, COUNT(*)::int AS count FROM run_episodes
         WHERE run_id = $1 AND status = 'errored' GROUP BY 1 ORDER BY 2 DESC, 1 LIMIT 100`,
        [runId],
      )
    ).rows;
    const timing = (
      await this.query<{ first: number | null; last: number | null }>(
        "SELECT MIN(started_at) AS first, MAX(ended_at) AS last FROM run_episodes WHERE run_id = $1",
        [runId],
      )
    ).rows[0]!;
    return aggregatesOf(a, {
      ...(await this.outcomes(runId)),
      counts: await this.counts(runId),
      histogram,
      tasks,
      errors,
      turns: await this.percentiles(runId, "turns", a.withTurns),
      durationMs: await this.percentiles(runId, "duration_ms", a.withDuration),
      firstStartedAt: timing.first,
      lastEndedAt: timing.last,
    });
  }
}
