// The run executor (docs/runs.md "Running"): the one interface the API, the CLI and the UI start,
// resume, cancel and follow runs through, with two implementations that play episodes with the same
// code (./episode.ts): in process (./in-process.ts, the embedded default: the process that starts a
// run plays it) and, with PostgreSQL, jobs on a queue that any number of workers play (./queue.ts).
// ./setup.ts builds the one a process uses, once, for the composition root.
import "server-only";
import type { RunRecord } from "@/lib/store/types";
import type { CapacityGate, CapacityUsage } from "./capacity";
import type { EpisodeDeps } from "./episode";
import type { RunEvents, RunProgress } from "./events";
import type { ModelRegistry } from "./models";
import type { StartRun } from "./starting";

export type { StartRun } from "./starting";

export interface RunExecutorDeps extends EpisodeDeps {
  models: ModelRegistry;
  events: RunEvents;
  /** This process's id in the store (runs it plays carry it). */
  instance: string;
  /** Where script modules are resolved, and the folders they may be in (null: anywhere). */
  cwd: string;
  scriptRoots: readonly string[] | null;
  /** Where problems are reported (never a key: none passes here). */
  log?: (line: string) => void;
  /** The first wait before an episode is played again after an infrastructure failure (tests shorten it). */
  retryBaseMs?: number;
  /** The capacity runs share: in memory (one process), or the database's (./capacity-postgres.ts). */
  gate: CapacityGate;
  /** Whether this process knows a server, and the cap on its sessions (`maxSessions`) when one is set. */
  server(name: string): Promise<{ known: boolean; maxSessions: number | null }>;
}

/** Where a run plays and what holds it up (the run page's "Capacity"): shared limits, the workers' word. */
export interface RunPlacement {
  /** `in-process`: the process that started it plays it; `queue`: any worker on the database. */
  mode: "in-process" | "queue";
  /** Per server, run and model endpoint: the limit (null: none), in use, waiting, paused until. */
  capacity: (CapacityUsage & { kind: "server" | "run" | "model"; name: string; limit: number | null })[];
  /** What each worker said of the run (queue mode). */
  workers: { worker: string; canPlay: boolean; reason: string | null; at: number }[];
  /** Why a running run does not play, when nothing plays it. */
  waiting: string | null;
}

export interface RunExecutor {
  /** Validates, stores and starts a run; resolves once it is stored. Throws RunError. */
  start(request: StartRun): Promise<RunRecord>;
  /** Plays the missing episodes of an interrupted or cancelled run. Throws RunError. */
  resume(id: string): Promise<RunRecord>;
  /** Cancels a run: its running episodes end (`cancelled`, sessions deleted), none starts. */
  cancel(id: string): Promise<RunRecord>;
  /** Resolves when this process stops playing the run (at once when it does not play it). */
  settled(id: string): Promise<RunRecord | null>;
  /** The run's progress now. */
  progress(id: string): Promise<RunProgress | null>;
  /** Whether this process is playing the run. */
  isActive(id: string): boolean;
  /** Where the run plays and what holds it up. */
  placement(run: RunRecord): Promise<RunPlacement>;
  /** Stops every run this process plays (they become `interrupted`, to be resumed). */
  close(): Promise<void>;
}
