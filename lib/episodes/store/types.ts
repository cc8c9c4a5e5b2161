// The trajectory store's contract: what the recorder, replay and the API need from storage,
// asynchronous so that a networked implementation (Postgres for teams) can stand behind it. The
// SQLite implementation (./sqlite.ts) is the embedded default; tests/episodes/store/conformance.ts
// is the suite every implementation must pass.
import type { Block } from "@/lib/ors/protocol";
import type {
  EndReason,
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
}

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
  close(): Promise<void>;
}
