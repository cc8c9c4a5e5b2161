// A run's summary (docs/runs.md "Results"), the object `GET /api/runs/{id}` answers and the CLI's
// `--json` writes: the run's settings and counts, success rate, mean reward with its 95% interval,
// pass@k, the histogram, the per-task table, errors, percentiles, tokens. Built from the store's
// aggregates (computed in SQL) by the pure statistics of ./stats.ts. Isomorphic.
import type { AttemptOutcome, Percentiles, RunAggregates, RunRecord, RunStatus } from "@/lib/store/types";
import { type LearningSignal, learningSignal, taskSignal } from "./signal";
import { DEFAULT_MAX_ATTEMPTS, type RunConfig, type RunPolicy } from "./spec";
import { intervalOf, meanInterval, passAtKs, taskSucceeded } from "./stats";

export interface RunTaskRow {
  index: number;
  /** Each repeat's reward (null: not done). */
  rewards: (number | null)[];
  /** Each repeat's trajectory id (null: not started). */
  episodeIds: (string | null)[];
  mean: number | null;
  /** The standard deviation of its rewards (null below two). */
  spread: number | null;
  completed: number;
  successes: number;
  succeeded: boolean | null;
  /** Its success rate p̂ and learning signal (with two or more repeats; docs/runs.md "Learning signal"). */
  p: number | null;
  signal: number | null;
  always: "failed" | "solved" | null;
}

export interface RunSummary {
  id: string;
  status: RunStatus;
  server: string;
  env: string;
  split: string;
  /** The policy as asked (never a key). */
  policy: RunPolicy;
  policyLabel: string;
  repeats: number;
  concurrency: number;
  successAt: number;
  timeoutMs: number;
  maxAttempts: number;
  tags: string[];
  createdAt: number;
  startedAt: number | null;
  endedAt: number | null;
  /** Why the run failed or was interrupted. */
  error: string | null;
  episodes: number;
  /** Episodes with a counted outcome (scored, policy_stopped): what the rewards and the success rate count. */
  completed: number;
  /** Episodes without one (their attempts ended env_error, model_error, timeout ...): never scored 0. */
  unscored: number;
  errored: number;
  running: number;
  pending: number;
  cancelled: number;
  interrupted: number;
  /** Ended episodes by the outcome of their last attempt. */
  outcomes: Record<AttemptOutcome, number>;
  /** Episodes the policy stopped, by why (`max_turns`, `no_tool_call` ...). */
  stops: { stop: string; count: number }[];
  /** Attempts in all, and those an infrastructure failure ended (played again). */
  attempts: { total: number; retried: number };
  /** Completed episodes that finished with a reward ≥ successAt, over the completed ones. */
  successRate: number | null;
  meanReward: number | null;
  ci95: [number, number] | null;
  rewardStd: number | null;
  passAtK: Record<string, number | null>;
  histogram: { from: number; to: number; count: number }[];
  /** With two or more repeats: which tasks still carry a training signal (null otherwise). */
  learningSignal: LearningSignal | null;
  tasks: RunTaskRow[];
  errors: { message: string; count: number }[];
  turns: Percentiles | null;
  durationMs: Percentiles | null;
  /** Tokens per completed episode (model policies), over the episodes that reported usage. */
  tokens: {
    episodes: number;
    promptPerEpisode: number | null;
    completionPerEpisode: number | null;
    total: number;
  };
}

export const HISTOGRAM_BINS = 10;

/** The run's settings from its record. */
export function runConfigOf(run: RunRecord): RunConfig {
  return run.config as unknown as RunConfig;
}

/** The summary of `run` from its aggregates; `group`: the G of the learning signal (default: its repeats). */
export function buildSummary(run: RunRecord, a: RunAggregates, group = run.repeats): RunSummary {
  const config = runConfigOf(run);
  const m = meanInterval(a.rewards.n, a.rewards.sum, a.rewards.sumSquares);
  const tasks: RunTaskRow[] = a.tasks.map((t) => {
    const done = t.rewards.filter((r): r is number => r !== null);
    const i = intervalOf(done);
    return {
      ...t,
      mean: i.mean,
      spread: i.std,
      succeeded: taskSucceeded(t),
      ...(run.repeats >= 2
        ? (({ p, signal, always }) => ({ p, signal, always }))(taskSignal(t, group))
        : { p: null, signal: null, always: null }),
    };
  });
  const tokenTotal = a.tokens.prompt + a.tokens.completion;
  return {
    id: run.id,
    status: run.status,
    server: run.server,
    env: run.env,
    split: run.split,
    policy: config.policy,
    policyLabel: config.policyLabel,
    repeats: run.repeats,
    concurrency: config.concurrency,
    successAt: config.successAt,
    timeoutMs: config.timeoutMs,
    maxAttempts: config.maxAttempts ?? DEFAULT_MAX_ATTEMPTS,
    tags: run.tags,
    createdAt: run.createdAt,
    startedAt: run.startedAt,
    endedAt: run.endedAt,
    error: run.error,
    episodes: run.episodes,
    completed: a.counts.done,
    unscored: a.counts.errored,
    errored: a.counts.errored,
    running: a.counts.running,
    pending: a.counts.pending,
    cancelled: a.counts.cancelled,
    interrupted: a.counts.interrupted,
    outcomes: a.outcomes,
    stops: a.stops,
    attempts: a.attempts,
    successRate: a.counts.done ? a.successes / a.counts.done : null,
    meanReward: m.mean,
    ci95: m.ci95,
    rewardStd: m.std,
    passAtK: passAtKs(a.tasks, run.repeats),
    histogram: a.histogram,
    learningSignal: learningSignal(a.tasks, run.repeats, group),
    tasks,
    errors: a.errors,
    turns: a.turns,
    durationMs: a.durationMs,
    tokens: {
      episodes: a.tokens.episodes,
      promptPerEpisode: a.tokens.episodes ? a.tokens.prompt / a.tokens.episodes : null,
      completionPerEpisode: a.tokens.episodes ? a.tokens.completion / a.tokens.episodes : null,
      total: tokenTotal,
    },
  };
}
