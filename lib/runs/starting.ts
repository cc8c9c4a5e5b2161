// What starting a run takes, for either executor (docs/runs.md "Running"): the split's size asked
// through the relay (an unknown server or environment says so), the task selection resolved against
// it, the policy built (a refusal is a RunError saying what to fix), the settings to store.
import "server-only";
import { isOrsClientError } from "@/lib/ors/client";
import type { NewRun, RunRecord } from "@/lib/store/types";
import type { EpisodeDeps } from "./episode";
import { RunError } from "./errors";
import { type PolicyDeps, policyFromSpec, replaySource } from "./policies";
import type { Policy } from "./policy";
import {
  DEFAULT_EPISODE_TIMEOUT_MS,
  DEFAULT_MAX_ATTEMPTS,
  type RunConfig,
  type RunPolicy,
  type RunRequest,
  type TaskSelection,
} from "./spec";
import { resolveTasks, TaskSelectionError } from "./tasks";

/** A run to start: the API's request, or the CLI's (whose model policy may name a URL). */
export type StartRun = Omit<RunRequest, "policy"> & { policy: RunPolicy };

/** The split's size, through the relay (so an unknown server or environment says so). */
async function splitSize(deps: EpisodeDeps, server: string, env: string, split: string): Promise<number> {
  const ors = deps.clientFor(server, { headers: {}, wrapFetch: (f) => f });
  const what = `server "${server}" cannot list the tasks of ${env}/${split}`;
  try {
    return (await ors.numTasks(env, split, { signal: AbortSignal.timeout(30_000) })).num_tasks;
  } catch (err) {
    if (isOrsClientError(err)) {
      const refused = err.kind === "http" && err.status >= 400 && err.status < 500;
      throw new RunError(refused ? (err.status === 404 ? 404 : 400) : 502, `${what}: ${err.detail}`);
    }
    throw new RunError(502, `${what}: ${(err as Error).message}`);
  }
}

/** The run as it will be stored (for `instance`; null: the queue's workers), and its policy. */
export async function prepareRun(
  deps: EpisodeDeps,
  policyDeps: PolicyDeps,
  request: StartRun,
  o: { instance: string | null; now: number },
): Promise<{ run: NewRun; policy: Policy }> {
  const size = await splitSize(deps, request.server, request.env, request.split);
  let selection: TaskSelection | undefined = request.tasks;
  if (selection === undefined && request.policy.kind === "replay")
    selection = (await replaySource(request.policy, policyDeps.store)).tasks;
  let tasks: number[];
  try {
    tasks = resolveTasks(selection, size);
  } catch (err) {
    if (err instanceof TaskSelectionError) throw new RunError(400, `tasks: ${err.message}`);
    throw err;
  }
  const policy = await policyFromSpec(request.policy, policyDeps);
  const config: RunConfig = {
    tasks: selection ?? "all",
    concurrency: request.concurrency ?? 4,
    successAt: request.successAt ?? 1,
    timeoutMs: request.timeoutMs ?? DEFAULT_EPISODE_TIMEOUT_MS,
    maxAttempts: request.maxAttempts ?? DEFAULT_MAX_ATTEMPTS,
    policy: request.policy,
    policyLabel: policy.label,
  };
  return {
    policy,
    run: {
      server: request.server,
      env: request.env,
      split: request.split,
      tasks,
      repeats: request.repeats ?? 1,
      config: config as unknown as RunRecord["config"],
      createdAt: o.now,
      instance: o.instance,
      ...(request.tags?.length ? { tags: request.tags } : {}),
    },
  };
}
