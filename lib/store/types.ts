// The store's contract: what the recorder, replay, runs and the API need from storage — trajectories
// (TrajectoryStore), runs beside them (RunStore) and people's reviews (ReviewStore) — asynchronous so
// that PostgreSQL (./postgres/store.ts, shared by app replicas) stands behind it as well as the
// embedded SQLite file (./sqlite/store.ts); tests/store/conformance*.ts is the suite both pass.
import type { Block, ToolSpec } from "@/lib/ors/protocol";
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
import type { RunStore } from "./run-types";

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

// ---- Runs (lib/runs): the RunStore half, in ./run-types.ts ----

export * from "./run-types";

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
