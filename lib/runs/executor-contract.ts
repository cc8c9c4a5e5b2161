// The run executor's contract (docs/runs.md "Running"): the one interface the API, the CLI and the
// UI start, resume, cancel and follow runs through, and what an implementation is built from
// (./executor.ts picks one: in process, or jobs on a queue).
import "server-only";
import type { RunRecord } from "@/lib/store/types";
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
  /** Stops every run this process plays (they become `interrupted`, to be resumed). */
  close(): Promise<void>;
}
