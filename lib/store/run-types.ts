// The RunStore half of the store's contract (./types.ts, docs/runs.md): runs, their episodes and
// attempts, statuses, aggregates and progress. tests/store/conformance-runs.ts is the suite both
// stores pass.
import type { JsonObject } from "@/lib/ors/protocol";

export const RUN_STATUSES = ["queued", "running", "done", "cancelled", "interrupted", "failed"] as const;
export type RunStatus = (typeof RUN_STATUSES)[number];
/** The statuses a run ends in: it plays nothing more unless resumed. */
export const FINAL_RUN_STATUSES: readonly RunStatus[] = ["done", "cancelled", "interrupted", "failed"];
export const RUN_EPISODE_STATUSES = [
  "pending",
  "running",
  "done",
  "errored",
  "cancelled",
  "interrupted",
] as const;
export type RunEpisodeStatus = (typeof RUN_EPISODE_STATUSES)[number];

/**
 * How one attempt at an episode ended (docs/runs.md "Outcomes"): `scored` (the environment
 * finished it), `policy_stopped` (the policy stopped on its own: max turns, no tool call ...; its
 * reward counts), `env_error` (the server unreachable, a 5xx, a protocol error, the session lost),
 * `model_error` (the model endpoint, or the policy, failed after its retries), `timeout` (the
 * episode's time limit), `cancelled`, `interrupted` (the worker playing it stopped).
 */
export const ATTEMPT_OUTCOMES = [
  "scored",
  "env_error",
  "model_error",
  "policy_stopped",
  "timeout",
  "cancelled",
  "interrupted",
] as const;
export type AttemptOutcome = (typeof ATTEMPT_OUTCOMES)[number];
/** Outcomes an episode's statistics count (its reward, a success or not): the environment's or the policy's own end. */
export const COUNTED_OUTCOMES: readonly AttemptOutcome[] = ["scored", "policy_stopped"];
/** Infrastructure outcomes: played again (up to the run's attempts), never scored. */
export const RETRIED_OUTCOMES: readonly AttemptOutcome[] = [
  "env_error",
  "model_error",
  "timeout",
  "interrupted",
];

export interface NewRun {
  id?: string;
  server: string;
  env: string;
  split: string;
  /** The split's task indexes the run plays, in order (each `repeats` times). */
  tasks: number[];
  repeats: number;
  /** The rest of the run's settings (policy, concurrency, threshold ...): JSON without secrets. */
  config: JsonObject;
  createdAt: number;
  /** The process that will play it (it claims the run at once: see RunStore.setRunStatus); null: the job queue's workers. */
  instance: string | null;
  /** Labels to filter runs by (`quality`: played by `check --quality`). */
  tags?: string[];
}

export interface RunRecord {
  id: string;
  status: RunStatus;
  server: string;
  env: string;
  split: string;
  repeats: number;
  /** Episodes in all: tasks × repeats. */
  episodes: number;
  config: JsonObject;
  createdAt: number;
  /** When it first started playing (null while queued). */
  startedAt: number | null;
  /** When it last stopped (done, cancelled, interrupted, failed); null while queued or running. */
  endedAt: number | null;
  /** Why it failed, or was interrupted. */
  error: string | null;
  /** The process playing it (null when none, or when the job queue's workers play it). */
  instance: string | null;
  tags: string[];
}

export interface RunEpisodeKey {
  taskIndex: number;
  repeat: number;
}

export interface RunEpisode extends RunEpisodeKey {
  status: RunEpisodeStatus;
  trajectoryId: string | null;
  /** The episode's reward (its trajectory's total), once done. */
  reward: number | null;
  /** Whether the environment said `finished`. */
  finished: boolean | null;
  /** Policy turns played, tool calls made. */
  turns: number | null;
  steps: number | null;
  durationMs: number | null;
  promptTokens: number | null;
  completionTokens: number | null;
  /** Why it errored (or was cancelled/interrupted). */
  error: string | null;
  /** Why the policy stopped: `finished`, `max_turns`, `no_tool_call`, `policy_stop`, `timeout`, ... */
  stop: string | null;
  startedAt: number | null;
  endedAt: number | null;
  /** How its last attempt ended (the counted one once done). */
  outcome: AttemptOutcome | null;
  /** Attempts made so far. */
  attempts: number;
  /** The session its attempt plays on (a takeover deletes it upstream). */
  sid: string | null;
}

/** A change of an episode (fields left out are unchanged). */
export type RunEpisodePatch = Partial<Omit<RunEpisode, "taskIndex" | "repeat" | "attempts">>;

/** How an attempt ended: its outcome, and what the episode records of it. */
export type AttemptEnd = RunEpisodePatch & { outcome: AttemptOutcome; endedAt: number };

/** One attempt at an episode (the history a run keeps: each with its outcome, worker and times). */
export interface RunAttempt extends RunEpisodeKey {
  /** 1, 2, ... */
  attempt: number;
  /** Null while it plays. */
  outcome: AttemptOutcome | null;
  stop: string | null;
  error: string | null;
  /** The process that played it. */
  worker: string | null;
  trajectoryId: string | null;
  reward: number | null;
  startedAt: number;
  endedAt: number | null;
  /** The attempt the run's statistics count for its task and repeat (one at most). */
  counted: boolean;
  /** The queue's job that played it (runs played by a queue's workers). */
  jobId: string | null;
}

/** An attempt still playing whose worker is gone (RunStore.orphanedAttempts). */
export interface OrphanedAttempt extends RunAttempt {
  runId: string;
  server: string;
  /** The session it played on, when one was opened. */
  sid: string | null;
}

export interface RunStatusChange {
  error?: string | null;
  from?: readonly RunStatus[];
  instance?: string | null;
  owner?: string;
}

export interface RunListFilter {
  server?: string;
  env?: string;
  status?: RunStatus;
  /** Runs carrying this tag. */
  tag?: string;
  limit?: number;
  offset?: number;
}

/** Nearest-rank percentiles of a measure over the done episodes (null when there are none). */
export interface Percentiles {
  p50: number;
  p90: number;
  p99: number;
  max: number;
}

/** What a run's summary is computed from (lib/runs/stats.ts): aggregates over its episodes. */
export interface RunAggregates {
  /** Episodes by status. */
  counts: Record<RunEpisodeStatus, number>;
  /** Rewards of the done episodes. */
  rewards: { n: number; sum: number; sumSquares: number; min: number | null; max: number | null };
  /** Done episodes that finished with a reward ≥ the threshold asked. */
  successes: number;
  /** The done episodes' rewards in `bins` equal bins from min to max (one bin when they are equal). */
  histogram: { from: number; to: number; count: number }[];
  /** Per task (by index): each repeat's reward and trajectory (null when not done), successes. */
  tasks: {
    index: number;
    rewards: (number | null)[];
    episodeIds: (string | null)[];
    completed: number;
    successes: number;
  }[];
  /** Errored episodes grouped by message, most frequent first. */
  errors: { message: string; count: number }[];
  turns: Percentiles | null;
  durationMs: Percentiles | null;
  /** Token usage of the done episodes that reported some. */
  tokens: { episodes: number; prompt: number; completion: number };
  /** The first episode start and the last episode end, when any. */
  firstStartedAt: number | null;
  lastEndedAt: number | null;
  /** Ended episodes (done, errored, cancelled) by the outcome of their last attempt. */
  outcomes: Record<AttemptOutcome, number>;
  /** Episodes the policy stopped, by why (`max_turns`, `no_tool_call` ...), most first. */
  stops: { stop: string; count: number }[];
  /** Attempts made in all, and those that ended with an infrastructure outcome (retried). */
  attempts: { total: number; retried: number };
}

/** A run's progress: episodes by status, and how many ended since a moment (for the rate). */
export interface RunProgressCounts {
  counts: Record<RunEpisodeStatus, number>;
  endedSince: number;
}

export interface RunStore {
  /** Creates a run (`queued`) with every episode `pending`. */
  createRun(run: NewRun): Promise<RunRecord>;
  getRun(id: string): Promise<RunRecord | null>;
  /** Runs, newest first, and how many match. */
  listRuns(filter?: RunListFilter): Promise<{ items: RunRecord[]; total: number }>;
  /**
   * Sets a run's status at `at`: `running` sets `startedAt` (the first time) and clears `endedAt`
   * and `error`; `done`, `cancelled`, `interrupted`, `failed` set `endedAt`. With `from`, only a
   * run whose status is one of those changes: a claim — with `instance`, of the right to play it —
   * that one process wins when several try at once. With `owner`, only while that process plays it
   * (a process that lost its run cannot settle it). False when nothing changed.
   */
  setRunStatus(id: string, status: RunStatus, at: number, o?: RunStatusChange): Promise<boolean>;
  /** Deletes a run, its episodes and their trajectories. */
  deleteRun(id: string): Promise<boolean>;
  /** The episodes still to play (pending, cancelled, interrupted): repeat by repeat, task by task. */
  pendingEpisodes(runId: string): Promise<RunEpisodeKey[]>;
  /**
   * Claims one episode for `owner` (the process playing the run, or a queue worker) and applies
   * `patch` (status `running`): only an episode still to play (pending, cancelled, interrupted) of
   * a run that is `running` and played by `owner` (or by the job queue: no instance). Starts its
   * next attempt (RunAttempt, worker `owner`). False otherwise (the run was cancelled, or another
   * process took it over): then the episode must not be played.
   */
  claimEpisode(
    runId: string,
    key: RunEpisodeKey,
    owner: string,
    patch: RunEpisodePatch,
    o?: { jobId?: string },
  ): Promise<boolean>;
  /**
   * Attempts still playing (no outcome) whose worker is gone: it has no lease any more (found dead
   * and forgotten: "Leases"), or its lease was last renewed before `staleBefore`. What a takeover ends.
   */
  orphanedAttempts(staleBefore: number): Promise<OrphanedAttempt[]>;
  /**
   * Changes one episode. With `owner`, only while that process holds it (it claimed it, and it is
   * running or was interrupted since): a process that lost the run cannot overwrite what another
   * one plays. False when nothing changed.
   */
  updateEpisode(
    runId: string,
    key: RunEpisodeKey,
    patch: RunEpisodePatch,
    o?: { owner?: string },
  ): Promise<boolean>;
  /**
   * Ends the attempt `owner` plays with its outcome and records it on the episode: a counted outcome
   * makes it `done` (that attempt the counted one); an infrastructure outcome makes it `pending`
   * again while fewer than `maxAttempts` attempts ended so, else `errored`; `cancelled` cancels it.
   * Null when `owner` no longer holds it (nothing changes); else the episode's new status.
   */
  endAttempt(
    runId: string,
    key: RunEpisodeKey,
    end: AttemptEnd,
    o: { owner: string; maxAttempts: number },
  ): Promise<RunEpisodeStatus | null>;
  /** A run's attempts (of one episode when `key` is given), task by task, repeat by repeat, attempt by attempt. */
  runAttempts(runId: string, key?: RunEpisodeKey): Promise<RunAttempt[]>;
  /** Sets the status of every episode of a run now in one of `from` (e.g. running → cancelled). */
  setEpisodesStatus(
    runId: string,
    from: readonly RunEpisodeStatus[],
    status: RunEpisodeStatus,
    error: string | null,
  ): Promise<number>;
  /** A run's episodes, task by task and repeat by repeat. */
  runEpisodes(runId: string, o?: { limit?: number; offset?: number }): Promise<RunEpisode[]>;
  /** The aggregates of a run's summary, computed by the store (in SQL for SQLite). */
  runAggregates(runId: string, o: { successAt: number; histogramBins: number }): Promise<RunAggregates>;
  /** Episodes by status, and those that ended at or after `since` (ms). */
  runProgress(runId: string, since: number): Promise<RunProgressCounts>;
  /**
   * Says, on this process's lease, where its app answers and which servers it knows by name: a CLI
   * sharing the store reuses those names and links to that URL. Needs the lease (after `beat`).
   */
  announce(app: AppAnnouncement): Promise<void>;
  /** The announcements of the processes whose lease was renewed at or after `since`, newest first. */
  liveApps(since: number): Promise<AppAnnouncement[]>;
}

/** What a running app process says of itself in the store: where it answers, the servers it knows. */
export interface AppAnnouncement {
  url: string;
  servers: { name: string; url: string }[];
}
