// The run executor (docs/runs.md "Running"): the one interface (./executor-contract.ts) the API,
// the CLI and the UI start, resume, cancel and follow runs through, with two implementations that
// play episodes with the same code (./episode.ts): in process (./in-process.ts, the embedded
// default: the process that starts a run plays it) and, with PostgreSQL, jobs on a queue that any
// number of workers play (./queue.ts). Built once per process by the composition root.
import "server-only";
import type { RunExecutor, RunExecutorDeps } from "./executor-contract";
import { createInProcessExecutor } from "./in-process";

export type { RunExecutor, RunExecutorDeps, StartRun } from "./executor-contract";

/** The executor of this process. */
export function createRunExecutor(deps: RunExecutorDeps): RunExecutor {
  return createInProcessExecutor(deps);
}
