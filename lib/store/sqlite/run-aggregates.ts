// The aggregates of a run's summary in the SQLite store (RunStore.runAggregates, ../types.ts): counts,
// sums, the histogram, percentiles by rank, outcomes, per-task rewards and errors, computed in SQL so
// a 10,000-episode run's results are read without loading its trajectories.
import "server-only";
import {
  aggregatesOf,
  type DoneSums,
  histogramBins,
  histogramOf,
  outcomeCounts,
  statusCounts,
  type TaskEpisodeRow,
  taskRows,
} from "../run-rows";
import {
  type AttemptOutcome,
  type Percentiles,
  RETRIED_OUTCOMES,
  type RunAggregates,
  type RunEpisodeStatus,
} from "../types";
import type { Statements } from "./db";

export function episodeCounts(sql: Statements, runId: string): Record<RunEpisodeStatus, number> {
  return statusCounts(
    sql("SELECT status, COUNT(*) AS n FROM run_episodes WHERE run_id = ? GROUP BY status").all(runId) as {
      status: RunEpisodeStatus;
      n: number;
    }[],
  );
}

/** Nearest-rank percentiles of a column over the done episodes, each read by its rank. */
function percentiles(
  sql: Statements,
  runId: string,
  column: "turns" | "duration_ms",
  n: number,
): Percentiles | null {
  if (n === 0) return null;
  const at = sql(
    `SELECT ${column} FROM run_episodes WHERE run_id = ? AND status = 'done' AND ${column} IS NOT NULL
     ORDER BY ${column} LIMIT 1 OFFSET ?`,
  );
  const rank = (p: number) => at.pluck().get(runId, Math.max(0, Math.ceil((p / 100) * n) - 1)) as number;
  return { p50: rank(50), p90: rank(90), p99: rank(99), max: rank(100) };
}

/** The ended episodes by outcome, why the policy stopped, and the attempts (RunAggregates). */
function outcomes(sql: Statements, runId: string): Pick<RunAggregates, "outcomes" | "stops" | "attempts"> {
  const outcomes = outcomeCounts(
    sql(
      `SELECT outcome, COUNT(*) AS n FROM run_episodes WHERE run_id = ? AND outcome IS NOT NULL
         AND status IN ('done', 'errored', 'cancelled') GROUP BY outcome`,
    ).all(runId) as { outcome: AttemptOutcome; n: number }[],
  );
  const stops = sql(
    `SELECT COALESCE(stop, 'policy_stop') AS stop, COUNT(*) AS count FROM run_episodes
       WHERE run_id = ? AND status = 'done' AND outcome = 'policy_stopped' GROUP BY 1 ORDER BY 2 DESC, 1`,
  ).all(runId) as { stop: string; count: number }[];
  const attempts = sql(
    `SELECT COUNT(*) AS total, TOTAL(outcome IN (SELECT value FROM json_each(?))) AS retried
       FROM run_attempts WHERE run_id = ?`,
  ).get(JSON.stringify(RETRIED_OUTCOMES), runId) as { total: number; retried: number };
  return { outcomes, stops, attempts };
}

/** A run's aggregates (RunStore.runAggregates), computed in SQL. */
export function runAggregates(
  sql: Statements,
  runId: string,
  o: { successAt: number; histogramBins: number },
  repeats: number,
): RunAggregates {
  const done = "run_id = @run AND status = 'done'";
  const a = sql(
    `SELECT COUNT(reward) AS n, TOTAL(reward) AS sum, TOTAL(reward * reward) AS sumSquares,
         MIN(reward) AS min, MAX(reward) AS max,
         TOTAL(CASE WHEN finished = 1 AND reward >= @successAt THEN 1 ELSE 0 END) AS successes,
         COUNT(turns) AS withTurns, COUNT(duration_ms) AS withDuration,
         COUNT(prompt_tokens) AS withTokens, TOTAL(prompt_tokens) AS prompt, TOTAL(completion_tokens) AS completion
       FROM run_episodes WHERE ${done}`,
  ).get({ run: runId, successAt: o.successAt }) as DoneSums;
  const h = histogramBins(a, o.histogramBins);
  const histogram = histogramOf(
    h,
    h
      ? (sql(
          `SELECT MIN(@bins - 1, CAST((reward - @min) / @width AS INTEGER)) AS bin, COUNT(*) AS n
             FROM run_episodes WHERE ${done} AND reward IS NOT NULL GROUP BY bin`,
        ).all({ run: runId, bins: h.bins, min: h.min, width: h.width || 1 }) as { bin: number; n: number }[])
      : [],
  );
  const tasks = taskRows(
    sql(
      `SELECT task_index, repeat, status, reward, trajectory_id,
           (status = 'done' AND finished = 1 AND reward >= @successAt) AS success
         FROM run_episodes WHERE run_id = @run ORDER BY task_index, repeat`,
    ).all({ run: runId, successAt: o.successAt }) as TaskEpisodeRow[],
    repeats,
  );
  const errors = sql(
    `SELECT COALESCE(error, 'unknown error') AS message, COUNT(*) AS count FROM run_episodes
       WHERE run_id = ? AND status = 'errored' GROUP BY message ORDER BY count DESC, message LIMIT 100`,
  ).all(runId) as { message: string; count: number }[];
  const timing = sql(
    "SELECT MIN(started_at) AS first, MAX(ended_at) AS last FROM run_episodes WHERE run_id = ?",
  ).get(runId) as { first: number | null; last: number | null };
  return aggregatesOf(a, {
    ...outcomes(sql, runId),
    counts: episodeCounts(sql, runId),
    histogram,
    tasks,
    errors,
    turns: percentiles(sql, runId, "turns", a.withTurns),
    durationMs: percentiles(sql, runId, "duration_ms", a.withDuration),
    firstStartedAt: timing.first,
    lastEndedAt: timing.last,
  });
}
