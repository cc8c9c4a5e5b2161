// The store's contract: what the recorder, replay, runs and the API need from storage — trajectories
// (TrajectoryStore) and runs beside them (RunStore) — asynchronous so that a networked implementation
// (Postgres for teams) can stand behind it. The SQLite implementation (./sqlite.ts) is the embedded
// default; tests/episodes/store/conformance.ts is the suite every implementation must pass.
import type { Block, JsonObject, ToolSpec } from "@/lib/ors/protocol";
import type {
  AgentEnd,
  EndReason,
  RunTag,
  Trajectory,
  TrajectoryFilter,
  TrajectoryOrigin,
  TrajectoryStep,
  TrajectorySummary,
  TrajectoryTask,
} from "../schema";

export interface RetentionOptions {
  /** Keep at most this many trajectories (oldest ended ones go first). 0 = no cap. */
  maxCount: number;
  /** Delete ended trajectories stored longer ago than this many days. 0 = no cap. */
  maxAgeDays: number;
}

export interface NewTrajectory {
  id?: string;
  server: string;
  sid: string | null;
  env: string | null;
  task: TrajectoryTask | null;
  startedAt: number;
  origin?: TrajectoryOrigin | null;
  /** A run's episode: its run, task index and repeat. */
  run?: RunTag | null;
  /** The tool specs the episode is played with, when known at its start. */
  tools?: ToolSpec[] | null;
  /** The recording process (see StoreInstance): whose death interrupts the episode. */
  instance?: string | null;
}

/**
 * A process that records into the store (an app replica, a CLI `run`): it renews its lease with
 * `beat`; when it dies (its pid is gone, or its lease is stale) the episodes and runs it was
 * playing are recovered by another process (`recoverOrphans`).
 */
export interface StoreInstance {
  id: string;
  pid: number;
  /** The machine's host name (a pid means something only on its own machine). */
  host: string;
}

export interface OrphanRecovery {
  /** This process's own instance (never an orphan). */
  self: string;
  /** An instance whose lease is older than this is dead. */
  staleMs: number;
  /** Whether an instance still lives (e.g. its pid on this machine); stale leases are dead anyway. */
  alive: (instance: StoreInstance) => boolean;
}

/** What `recoverOrphans` changed: the episodes it ended (for the live feeds), the runs it interrupted. */
export interface RecoveredOrphans {
  ended: { id: string; reason: EndReason; error: string; at: number }[];
  /** Steps that were in flight, now marked interrupted. */
  steps: number;
  runs: string[];
}

/** The error of a step whose call was in flight when the process recording it stopped. */
export const INTERRUPTED_STEP_ERROR =
  "interrupted: the playground stopped while this call was in flight; its result was not recorded";

export interface TrajectoryStore {
  /** Starts a trajectory (no steps yet) and applies retention. Returns its id. */
  create(t: NewTrajectory): Promise<string>;
  /** Records the session's prompt (the first one). */
  setPrompt(id: string, blocks: Block[], at: number): Promise<void>;
  hasPrompt(id: string): Promise<boolean>;
  /** Records that the prompt was requested again at `at` (`same`: the same blocks as the first). */
  addReprompt(id: string, at: number, same: boolean): Promise<void>;
  /** Sets the environment name when it was unknown. */
  setEnv(id: string, env: string): Promise<void>;
  setOrigin(id: string, origin: TrajectoryOrigin): Promise<void>;
  /**
   * Marks a trajectory golden (a regression test's reference) or not; false when there is no such
   * trajectory. Retention never removes a golden trajectory.
   */
  setGolden(id: string, golden: boolean): Promise<boolean>;
  /** Marks activity (a request of the session) at `at`. */
  touch(id: string, at: number): Promise<void>;
  /** Writes a step (insert or replace by index) and refreshes the counters. */
  putStep(id: string, step: TrajectoryStep): Promise<void>;
  /** Records the tool specs the episode is played with (replacing what was recorded before). */
  setTools(id: string, tools: ToolSpec[]): Promise<void>;
  /** Records how a policy stopped playing the episode without a tool call (its final answer). */
  setAgentEnd(id: string, end: AgentEnd): Promise<void>;
  setStepReplay(id: string, index: number, mark: TrajectoryStep["replay"]): Promise<void>;
  /** Ends a running trajectory; false when it had already ended (then nothing changes). */
  end(id: string, reason: EndReason, at: number, error?: string | null): Promise<boolean>;
  /** Ends every running trajectory of a server; returns their ids. */
  endRunningOf(server: string, reason: EndReason, at: number, error: string | null): Promise<string[]>;
  /** The running trajectory of a session (the newest if several), or null. */
  findRunning(server: string, sid: string): Promise<TrajectorySummary | null>;
  /** The newest trajectory of a session, running or ended (imports excluded), or null. */
  findBySession(server: string, sid: string): Promise<TrajectorySummary | null>;
  summary(id: string): Promise<TrajectorySummary | null>;
  /** A whole trajectory in the export format, or null. */
  get(id: string): Promise<Trajectory | null>;
  /** Summaries matching the filter (newest first by default) and the total count. */
  list(filter?: TrajectoryFilter): Promise<{ items: TrajectorySummary[]; total: number }>;
  /** Every matching trajectory, one at a time (JSONL export). */
  iterate(filter?: TrajectoryFilter): AsyncIterable<Trajectory>;
  /** Running trajectories, newest activity first. */
  running(): Promise<TrajectorySummary[]>;
  /** Imports all or nothing (a trajectory's `golden` mark included); existing ids are skipped. */
  importMany(trajectories: Trajectory[]): Promise<{ imported: string[]; skipped: string[] }>;
  delete(id: string): Promise<boolean>;
  /** Applies retention now (running and golden trajectories are kept); returns how many were removed. */
  enforceRetention(now: number): Promise<number>;
  /** Ends as `timeout` every running trajectory idle for longer than `idleMs`; returns their ids. */
  sweepIdle(now: number, idleMs: number): Promise<string[]>;
  /**
   * Runs `fn`, whose writes the store may group in one commit (SQLite: one transaction); an
   * optimisation for many small writes in a row (the recorder's queued events). Everything `fn`
   * wrote is committed when it settles, whether it resolved or threw. Optional: without it, each
   * write commits on its own.
   */
  batch?<T>(fn: () => Promise<T>): Promise<T>;
  /** Registers a recording process or renews its lease (at `at`). */
  beat(instance: StoreInstance, at: number): Promise<void>;
  /**
   * Recovers what dead processes left (FORMAT.md "After a crash"): for every instance other than
   * `self` that is not alive or whose lease is older than `staleMs` (and for running trajectories
   * recorded without an instance), its running trajectories' in-flight steps are marked
   * `ok: false` with INTERRUPTED_STEP_ERROR; its episodes on the built-in host (`local`, which died
   * with it) end as `error`; its other episodes end as `interrupted` when a step was in flight or
   * they belong to a run it was playing; its queued or running runs become `interrupted` (their
   * running episodes too). The dead instances are then forgotten.
   */
  recoverOrphans(at: number, o: OrphanRecovery): Promise<RecoveredOrphans>;
  close(): Promise<void>;
}

// ---- Runs (lib/runs): a policy playing a split, each episode a trajectory tagged with the run ----

export const RUN_STATUSES = ["queued", "running", "done", "cancelled", "interrupted", "failed"] as const;
export type RunStatus = (typeof RUN_STATUSES)[number];
export const RUN_EPISODE_STATUSES = [
  "pending",
  "running",
  "done",
  "errored",
  "cancelled",
  "interrupted",
] as const;
export type RunEpisodeStatus = (typeof RUN_EPISODE_STATUSES)[number];

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
  /** The process that will play it. */
  instance: string | null;
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
  /** The process playing it (null when none). */
  instance: string | null;
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
}

/** A change of an episode (fields left out are unchanged). */
export type RunEpisodePatch = Partial<Omit<RunEpisode, "taskIndex" | "repeat">>;

export interface RunListFilter {
  server?: string;
  env?: string;
  status?: RunStatus;
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
   * run whose status is one of those changes (a claim). False when nothing changed.
   */
  setRunStatus(
    id: string,
    status: RunStatus,
    at: number,
    o?: { error?: string | null; from?: readonly RunStatus[]; instance?: string | null },
  ): Promise<boolean>;
  /** Deletes a run, its episodes and their trajectories. */
  deleteRun(id: string): Promise<boolean>;
  /** The episodes still to play (pending, cancelled, interrupted): repeat by repeat, task by task. */
  pendingEpisodes(runId: string): Promise<RunEpisodeKey[]>;
  /** Changes one episode. */
  updateEpisode(runId: string, key: RunEpisodeKey, patch: RunEpisodePatch): Promise<void>;
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
}

/** What the app stores: trajectories and runs, in one place (one SQLite file, one database). */
export interface PlaygroundStore extends TrajectoryStore, RunStore {}
