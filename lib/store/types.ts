// The store's contract: what the recorder, replay, runs and the API need from storage — trajectories
// (TrajectoryStore), runs beside them (RunStore) and people's reviews (ReviewStore) — asynchronous so
// that PostgreSQL (./postgres/store.ts, shared by app replicas) stands behind it as well as the
// embedded SQLite file (./sqlite/store.ts); tests/store/conformance*.ts is the suite both pass.
import type { Block, JsonObject, ToolSpec } from "@/lib/ors/protocol";
import type {
  AgentEnd,
  ClientTag,
  EndReason,
  ExchangeList,
  NewExchange,
  RunTag,
  Trajectory,
  TrajectoryFilter,
  TrajectoryOrigin,
  TrajectoryStep,
  TrajectorySummary,
  TrajectoryTask,
} from "../trajectory/schema";
import type { ReviewStore } from "./review-types";

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
  /** The client that plays it, when it said who it is (an MCP client's clientInfo). */
  client?: ClientTag | null;
  /** The tool specs the episode is played with, when known at its start. */
  tools?: ToolSpec[] | null;
}

/** What the recorder writes of one batch of relay events at once (`TrajectoryStore.writeBatch`). */
export interface BatchWrites {
  /** Steps, each as `putStep` writes it (the last of one trajectory and index wins). */
  steps: { id: string; step: TrajectoryStep }[];
  /** Protocol log entries, each as `addExchange` appends it, in this order. */
  exchanges: { id: string; exchange: NewExchange; limit: ExchangeLimit }[];
}

/** The caps of one trajectory's protocol log (the recorder's settings; FORMAT.md "Protocol log"). */
export interface ExchangeLimit {
  /** Exchanges kept at most. */
  count: number;
  /** Characters kept at most, bodies and headers of every exchange together. */
  chars: number;
}

/**
 * A process that records into the store: an app replica, a CLI `run`. Every store handle is opened
 * for one (`TrajectoryStore.instance`) and writes its id on the trajectories it starts and the steps
 * it writes. How processes look after each other is one mechanism, "Leases" below.
 */
export interface StoreInstance {
  id: string;
  pid: number;
  /** The machine's host name (a pid means something only on its own machine). */
  host: string;
}

/**
 * Leases. Each process renews its lease with `beat` every `everyMs`. Another instance is dead when
 * its lease is older than `staleMs`, or when there is proof it is gone: `alive` says so (its pid on
 * this machine), or — PostgreSQL — none of its connections to the database remain and it missed a
 * renewal (its lease is older than 1.5 × `everyMs`). What a dead instance left is then recovered by
 * whichever living process sweeps first (`recoverOrphans`), once: the dead are forgotten.
 */
export interface OrphanRecovery {
  /** How often living instances renew their lease. */
  everyMs: number;
  /** An instance whose lease is older than this is dead. */
  staleMs: number;
  /** Whether an instance still lives (e.g. its pid on this machine); stale leases are dead anyway. */
  alive: (instance: StoreInstance) => boolean;
}

/** What `recoverOrphans` changed: the episodes it ended and the steps it cut (for the live feeds), the runs it interrupted. */
export interface RecoveredOrphans {
  ended: { id: string; reason: EndReason; error: string; at: number }[];
  /** Steps that were in flight, now marked interrupted. */
  steps: { id: string; index: number }[];
  runs: string[];
}

/** The error of a step whose call was in flight when the process recording it stopped. */
export const INTERRUPTED_STEP_ERROR =
  "interrupted: the playground stopped while this call was in flight; its result was not recorded";
/** How an episode on the built-in host ends when the process hosting it stopped (the host died with it). */
export const HOST_STOPPED_ERROR =
  "the playground process that hosted this session stopped: the built-in host lost the session";
/** How a run's episode ends when the process playing the run stopped. */
export const INTERRUPTED_EPISODE_ERROR = "interrupted: the playground stopped while this episode was running";
/** How a run is interrupted when the process playing it stopped. */
export const RUN_STOPPED_ERROR = "the process playing this run stopped";

export interface TrajectoryStore {
  /** The process this handle records for: its id is written on the trajectories and steps it writes. */
  readonly instance: StoreInstance;
  /** Starts a trajectory (no steps yet) and applies retention. Returns its id. */
  create(t: NewTrajectory): Promise<string>;
  /** Records the session's prompt (the first one). */
  setPrompt(id: string, blocks: Block[], at: number): Promise<void>;
  hasPrompt(id: string): Promise<boolean>;
  /** The recorded prompt of a trajectory, read alone (not its steps); null when none or no such trajectory. */
  promptOf(id: string): Promise<Block[] | null>;
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
  /**
   * Appends one exchange to a trajectory's protocol log (FORMAT.md "Protocol log"), numbered after
   * the last one (`seq` 1, 2, ...), and returns its seq. When the log holds `limit.count` exchanges
   * already, or this one would take it past `limit.chars`, it is not kept: the oldest are kept, the
   * trajectory's count of dropped exchanges goes up, and null is returned (null too when there is
   * no such trajectory). Deleted with the trajectory.
   */
  addExchange(id: string, exchange: NewExchange, limit: ExchangeLimit): Promise<number | null>;
  /**
   * Writes many steps and protocol log entries at once, as `putStep` and `addExchange` one by one
   * would, in one transaction (PostgreSQL: a few multi-row statements, whatever their number): the
   * recorder's writes of a batch of concurrent calls. Those of a trajectory that does not exist (any
   * more) are skipped. Returns each exchange's seq, in order (null: not kept).
   */
  writeBatch(w: BatchWrites): Promise<(number | null)[]>;
  /** A trajectory's protocol log in seq order (`after`: only those after that seq), or null when there is no such trajectory. */
  exchanges(id: string, o?: { after?: number }): Promise<ExchangeList | null>;
  /** Records how a policy stopped playing the episode without a tool call (its final answer). */
  setAgentEnd(id: string, end: AgentEnd): Promise<void>;
  setStepReplay(id: string, index: number, mark: TrajectoryStep["replay"]): Promise<void>;
  /** Ends a running trajectory; false when it had already ended (then nothing changes). */
  end(id: string, reason: EndReason, at: number, error?: string | null): Promise<boolean>;
  /**
   * Ends every running trajectory of a server; returns their ids. The built-in host (`local`) is
   * each process's own: for it, only the trajectories this instance started.
   */
  endRunningOf(server: string, reason: EndReason, at: number, error: string | null): Promise<string[]>;
  /**
   * The running trajectory of a session (the newest if several), or null. For `local`, only this
   * instance's: another process's built-in host is another server under the same name, and a request
   * for one of its sessions here (answered "unknown session") must not touch its episode.
   */
  findRunning(server: string, sid: string): Promise<TrajectorySummary | null>;
  /**
   * `findRunning` for many sessions at once (one read: the recorder looks up a batch's sessions
   * together). The result has an entry, keyed `${server}\n${sid}`, for each session that has one.
   */
  findRunningMany(sessions: { server: string; sid: string }[]): Promise<Map<string, TrajectorySummary>>;
  /**
   * Indices of a trajectory's steps whose calls another process is carrying now (in flight, written
   * by another instance): a watcher here shows them running, not cut. Once that instance is found
   * dead, `recoverOrphans` marks them interrupted and they are no longer listed.
   */
  inflightElsewhere(id: string): Promise<number[]>;
  /** The newest trajectory of a session, running or ended (imports excluded), or null. */
  findBySession(server: string, sid: string): Promise<TrajectorySummary | null>;
  summary(id: string): Promise<TrajectorySummary | null>;
  /** A whole trajectory in the export format (its labels included), or null. */
  get(id: string): Promise<Trajectory | null>;
  /** Summaries matching the filter (newest first by default) and the total count. */
  list(filter?: TrajectoryFilter): Promise<{ items: TrajectorySummary[]; total: number }>;
  /** Every matching trajectory, one at a time (JSONL export). */
  iterate(filter?: TrajectoryFilter): AsyncIterable<Trajectory>;
  /** Running trajectories, newest activity first. */
  running(): Promise<TrajectorySummary[]>;
  /**
   * Imports all or nothing (a trajectory's `golden` mark and labels included: a label set it names
   * that is not here is created); existing ids are skipped.
   */
  importMany(trajectories: Trajectory[]): Promise<{ imported: string[]; skipped: string[] }>;
  delete(id: string): Promise<boolean>;
  /** Applies retention now (running, golden and labelled trajectories are kept); returns how many were removed. */
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
  /** Registers this instance or renews its lease (at `at`). See "Leases" above. */
  beat(at: number): Promise<void>;
  /**
   * Recovers what dead instances left (see "Leases"; FORMAT.md "After a crash"), for each one
   * found dead, by one process only, in one transaction:
   * - its queued or running runs become `interrupted` (RUN_STOPPED_ERROR); their running episodes
   *   too, except those whose trajectory finished, which are `done` with its reward (played once,
   *   never again);
   * - the steps it was carrying in running trajectories (`ok: null`) become `ok: false` with
   *   INTERRUPTED_STEP_ERROR;
   * - its running episodes on the built-in host (`local`, which died with it) end as `error`
   *   (HOST_STOPPED_ERROR), those of the runs it interrupted as `interrupted`
   *   (INTERRUPTED_EPISODE_ERROR); any other stays running (a client may go on with it through
   *   another process; else the idle timeout ends it);
   * - it is forgotten.
   * Running trajectories recorded before instances existed (none named) count as a dead one's.
   */
  recoverOrphans(at: number, o: OrphanRecovery): Promise<RecoveredOrphans>;
  close(): Promise<void>;
}

// ---- Runs (lib/runs): a policy playing a split, each episode a trajectory tagged with the run ----

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

// ---- Review (lib/review, docs/review.md): the ReviewStore half, in ./review-types.ts ----

export {
  LABEL_TARGETS,
  type Label,
  type LabelFilter,
  type LabelKey,
  type LabelSet,
  type LabelTarget,
  type NewLabelSet,
  type NewReviewQueue,
  type NewShareLink,
  type QueueItem,
  type QueueProgress,
  type ReviewQueue,
  type ReviewStore,
  type ShareLink,
  type SharePlayer,
} from "./review-types";

/** What the app stores: trajectories, runs and reviews, in one place (one SQLite file, one database). */
export interface PlaygroundStore extends TrajectoryStore, RunStore, ReviewStore {}

/** What a running app process says of itself in the store: where it answers, the servers it knows. */
export interface AppAnnouncement {
  url: string;
  servers: { name: string; url: string }[];
}
