// The runs' rows in both stores (./sqlite/runs.ts, ./postgres/runs.ts keep the same columns): a
// run, its episodes and their attempts as the RunStore contract reads them (../types.ts).
import "server-only";
import { randomBytes } from "node:crypto";
import type { JsonObject } from "@/lib/ors/protocol";
import {
  ATTEMPT_OUTCOMES,
  type AttemptOutcome,
  COUNTED_OUTCOMES,
  type NewRun,
  RUN_EPISODE_STATUSES,
  type RunAggregates,
  type RunAttempt,
  type RunEpisode,
  type RunEpisodePatch,
  type RunEpisodeStatus,
  type RunRecord,
  type RunStatus,
} from "./types";

export function newRunId(): string {
  return `r${randomBytes(8).toString("base64url")}`;
}

export interface RunRow {
  id: string;
  status: RunStatus;
  server: string;
  env: string;
  split: string;
  repeats: number;
  episodes: number;
  config_json: string;
  created_at: number;
  started_at: number | null;
  ended_at: number | null;
  error: string | null;
  instance_id: string | null;
  tags_json: string | null;
}

export interface EpisodeRow {
  run_id: string;
  task_index: number;
  repeat: number;
  status: RunEpisodeStatus;
  trajectory_id: string | null;
  reward: number | null;
  finished: number | null;
  turns: number | null;
  steps: number | null;
  duration_ms: number | null;
  prompt_tokens: number | null;
  completion_tokens: number | null;
  error: string | null;
  stop: string | null;
  started_at: number | null;
  ended_at: number | null;
  /** The process that claimed it (RunStore.claimEpisode). */
  instance_id: string | null;
  outcome: AttemptOutcome | null;
  attempts: number;
  sid: string | null;
}

export interface AttemptRow {
  run_id: string;
  task_index: number;
  repeat: number;
  attempt: number;
  outcome: AttemptOutcome | null;
  stop: string | null;
  error: string | null;
  worker: string | null;
  trajectory_id: string | null;
  reward: number | null;
  started_at: number;
  ended_at: number | null;
  counted: number;
  job_id: string | null;
}

export function toRun(r: RunRow): RunRecord {
  return {
    id: r.id,
    status: r.status,
    server: r.server,
    env: r.env,
    split: r.split,
    repeats: r.repeats,
    episodes: r.episodes,
    config: JSON.parse(r.config_json) as JsonObject,
    createdAt: r.created_at,
    startedAt: r.started_at,
    endedAt: r.ended_at,
    error: r.error,
    instance: r.instance_id,
    tags: r.tags_json ? (JSON.parse(r.tags_json) as string[]) : [],
  };
}

export function toEpisode(r: EpisodeRow): RunEpisode {
  return {
    taskIndex: r.task_index,
    repeat: r.repeat,
    status: r.status,
    trajectoryId: r.trajectory_id,
    reward: r.reward,
    finished: r.finished == null ? null : r.finished === 1,
    turns: r.turns,
    steps: r.steps,
    durationMs: r.duration_ms,
    promptTokens: r.prompt_tokens,
    completionTokens: r.completion_tokens,
    error: r.error,
    stop: r.stop,
    startedAt: r.started_at,
    endedAt: r.ended_at,
    outcome: r.outcome,
    attempts: r.attempts,
    sid: r.sid,
  };
}

export function toAttempt(r: AttemptRow): RunAttempt {
  return {
    taskIndex: r.task_index,
    repeat: r.repeat,
    attempt: r.attempt,
    outcome: r.outcome,
    stop: r.stop,
    error: r.error,
    worker: r.worker,
    trajectoryId: r.trajectory_id,
    reward: r.reward,
    startedAt: r.started_at,
    endedAt: r.ended_at,
    counted: r.counted === 1,
    jobId: r.job_id,
  };
}

/**
 * The attempt `a` its worker still plays, of the episode `e` (both stores' SQL): the episode's
 * current attempt, open, and the episode held by that worker. What endAttempt may end, a takeover
 * ends, and what keeps a dead worker's capacity slots. An older attempt left open (its episode
 * cancelled, claimed again since) is none of these: nobody plays it.
 */
export const PLAYED_ATTEMPT = `a.outcome IS NULL AND a.worker IS NOT NULL AND e.attempts = a.attempt
    AND e.instance_id = a.worker AND e.status IN ('running', 'interrupted')`;

/** Joins an attempt `a` to its episode `e`. */
export const ATTEMPT_EPISODE_JOIN =
  "run_episodes e ON e.run_id = a.run_id AND e.task_index = a.task_index AND e.repeat = a.repeat";

/** Attempts still played whose worker has no lease, or one renewed before the given moment (both stores' SQL). */
export const ORPHANED_ATTEMPTS_SQL = `SELECT a.run_id, a.task_index, a.repeat, a.attempt, a.outcome, a.stop,
    a.error, a.worker, COALESCE(a.trajectory_id, e.trajectory_id) AS trajectory_id, a.reward, a.started_at,
    a.ended_at, a.counted, a.job_id, r.server, e.sid
  FROM run_attempts a JOIN runs r ON r.id = a.run_id JOIN ${ATTEMPT_EPISODE_JOIN}
  WHERE r.status = 'running' AND ${PLAYED_ATTEMPT}
    AND NOT EXISTS (SELECT 1 FROM instances i WHERE i.id = a.worker AND i.beat_at >= $1)
  ORDER BY a.started_at`;

/** Episode fields as their columns (for updates). */
export const EPISODE_COLUMNS: Record<keyof RunEpisodePatch, string> = {
  status: "status",
  trajectoryId: "trajectory_id",
  reward: "reward",
  finished: "finished",
  turns: "turns",
  steps: "steps",
  durationMs: "duration_ms",
  promptTokens: "prompt_tokens",
  completionTokens: "completion_tokens",
  error: "error",
  stop: "stop",
  startedAt: "started_at",
  endedAt: "ended_at",
  outcome: "outcome",
  sid: "sid",
};

/** Tags as stored: sorted, unique, JSON (null for none). */
export function tagsJson(tags: readonly string[] | undefined): string | null {
  return tags?.length ? JSON.stringify([...new Set(tags)].sort()) : null;
}

/** A new run as its row (queued; its episodes are written apart, one per task and repeat). */
export function newRunRow(id: string, run: NewRun): Record<string, unknown> {
  return {
    id,
    status: "queued",
    server: run.server,
    env: run.env,
    split: run.split,
    repeats: run.repeats,
    episodes: run.tasks.length * run.repeats,
    config_json: JSON.stringify(run.config),
    created_at: run.createdAt,
    instance_id: run.instance,
    tags_json: tagsJson(run.tags),
  };
}

/**
 * An episode's status once an attempt ended with `outcome`, after `failures` attempts ended with
 * an infrastructure outcome (this one included): counted outcomes are done, an infrastructure one
 * plays again while fewer than `maxAttempts` failed (else errored; `interrupted` waits as such),
 * `cancelled` is cancelled.
 */
export function statusAfterAttempt(
  outcome: AttemptOutcome,
  failures: number,
  maxAttempts: number,
): RunEpisodeStatus {
  if (COUNTED_OUTCOMES.includes(outcome)) return "done";
  if (outcome === "cancelled") return "cancelled";
  if (failures >= maxAttempts) return "errored";
  // The playground stopped under it: kept for the run's resume (or a queue worker's next attempt).
  return outcome === "interrupted" ? "interrupted" : "pending";
}

/** Zero of every outcome, then the counts read. */
export function outcomeCounts(
  rows: { outcome: AttemptOutcome; n: number }[],
): Record<AttemptOutcome, number> {
  const out = Object.fromEntries(ATTEMPT_OUTCOMES.map((o) => [o, 0])) as Record<AttemptOutcome, number>;
  for (const r of rows) if (r.outcome in out) out[r.outcome] = Number(r.n);
  return out;
}

/** Zero episodes in every status, then the counts read. */
export function statusCounts(
  rows: { status: RunEpisodeStatus; n: number }[],
): Record<RunEpisodeStatus, number> {
  const counts = Object.fromEntries(RUN_EPISODE_STATUSES.map((s) => [s, 0])) as Record<
    RunEpisodeStatus,
    number
  >;
  for (const r of rows) counts[r.status] = r.n;
  return counts;
}

/** The sums over a run's done episodes, which both stores read in one query (RunAggregates). */
export interface DoneSums {
  n: number;
  sum: number;
  sumSquares: number;
  min: number | null;
  max: number | null;
  successes: number;
  withTurns: number;
  withDuration: number;
  withTokens: number;
  prompt: number;
  completion: number;
}

/** The histogram's bins over the done rewards (one when they are all equal); null when there are none. */
export function histogramBins(
  a: DoneSums,
  wanted: number,
): { bins: number; width: number; min: number; max: number } | null {
  if (a.n === 0 || a.min === null || a.max === null) return null;
  const bins = a.min === a.max ? 1 : Math.max(1, Math.floor(wanted));
  return { bins, width: (a.max - a.min) / bins, min: a.min, max: a.max };
}

/** The histogram from the done episodes counted per bin (a bin read with none counts zero). */
export function histogramOf(
  h: ReturnType<typeof histogramBins>,
  rows: readonly { bin: number; n: number }[],
): RunAggregates["histogram"] {
  if (!h) return [];
  const counts = new Map(rows.map((r) => [r.bin, r.n]));
  return Array.from({ length: h.bins }, (_, i) => ({
    from: h.min + i * h.width,
    to: i === h.bins - 1 ? h.max : h.min + (i + 1) * h.width,
    count: counts.get(i) ?? 0,
  }));
}

/** A run's aggregates from its done sums and the parts read apart. */
export function aggregatesOf(
  a: DoneSums,
  p: Omit<RunAggregates, "rewards" | "successes" | "tokens">,
): RunAggregates {
  return {
    outcomes: p.outcomes,
    stops: p.stops,
    attempts: p.attempts,
    counts: p.counts,
    rewards: { n: a.n, sum: a.sum, sumSquares: a.sumSquares, min: a.min, max: a.max },
    successes: a.successes,
    histogram: p.histogram,
    tasks: p.tasks,
    errors: p.errors,
    turns: p.turns,
    durationMs: p.durationMs,
    tokens: { episodes: a.withTokens, prompt: a.prompt, completion: a.completion },
    firstStartedAt: p.firstStartedAt,
    lastEndedAt: p.lastEndedAt,
  };
}

/** A run's episode as its per-task rows read it (RunAggregates' `tasks`). */
export interface TaskEpisodeRow {
  task_index: number;
  repeat: number;
  status: RunEpisodeStatus;
  reward: number | null;
  trajectory_id: string | null;
  success: number;
}

/** The per-task rows of a run's summary from its episodes, ordered by task and repeat. */
export function taskRows(rows: readonly TaskEpisodeRow[], repeats: number): RunAggregates["tasks"] {
  const tasks = new Map<number, RunAggregates["tasks"][number]>();
  for (const r of rows) {
    let t = tasks.get(r.task_index);
    if (!t) {
      t = {
        index: r.task_index,
        rewards: Array(repeats).fill(null),
        episodeIds: Array(repeats).fill(null),
        completed: 0,
        successes: 0,
      };
      tasks.set(r.task_index, t);
    }
    t.episodeIds[r.repeat] = r.trajectory_id;
    if (r.status === "done") {
      t.rewards[r.repeat] = r.reward;
      t.completed++;
      t.successes += r.success;
    }
  }
  return [...tasks.values()];
}
