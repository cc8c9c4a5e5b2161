// A run's policy from what was asked (docs/runs.md "Policies"): the model policy on a configured
// endpoint (or the CLI's URL), the random policy with its seed, a replay of a recorded run or
// trajectory, the author's script module. Every refusal is a RunError saying what to fix.
import "server-only";
import fs from "node:fs";
import path from "node:path";
import type { PlaygroundStore, RunEpisode } from "@/lib/store/types";
import type { Trajectory } from "@/lib/trajectory/schema";
import { RunError } from "./errors";
import { createModelClient, createModelPolicy } from "./model-policy";
import { adHocEndpoint, type ModelEndpoint, ModelEndpointError, type ModelRegistry } from "./models";
import { type Policy, PolicyError } from "./policy";
import { createRandomPolicy } from "./random-policy";
import { createReplayPolicy, type ReplaySource } from "./replay-policy";
import { loadScriptPolicy } from "./script-policy";
import type { RunPolicy } from "./spec";

export interface PolicyDeps {
  store: PlaygroundStore;
  models: ModelRegistry;
  /** Where a script module's path is resolved from. */
  cwd: string;
  /** Folders a script module must be in (null: anywhere, the CLI's own command line). */
  scriptRoots: readonly string[] | null;
}

/** The run's default seed of the random policy when none is given. */
export const DEFAULT_RANDOM_SEED = 1;

function endpointOf(spec: Extract<RunPolicy, { kind: "model" }>, models: ModelRegistry): ModelEndpoint {
  if (spec.endpoint === "cli" && "baseUrl" in spec) return adHocEndpoint(spec.baseUrl, spec.apiKeyEnv);
  try {
    return models.get(spec.endpoint);
  } catch (err) {
    if (err instanceof ModelEndpointError)
      throw new RunError(err.status === 404 ? 400 : err.status, err.message);
    throw err;
  }
}

/** The recorded episodes a replay plays: a run's (its repeats cycled when it had fewer) or one trajectory. */
export async function replaySource(
  spec: Extract<RunPolicy, { kind: "replay" }>,
  store: PlaygroundStore,
): Promise<ReplaySource & { tasks: number[] }> {
  if (spec.trajectory !== undefined) {
    const t = await store.get(spec.trajectory);
    if (!t) throw new RunError(404, `no trajectory with id "${spec.trajectory}" to replay`);
    const tasks = t.task && "index" in t.task ? [t.task.index] : [];
    return { label: `trajectory ${t.id}`, tasks, episode: async () => t };
  }
  const run = await store.getRun(spec.run!);
  if (!run) throw new RunError(404, `no run with id "${spec.run}" to replay`);
  let episodes: Map<string, RunEpisode> | null = null;
  const all = await store.runEpisodes(run.id);
  const tasks = [...new Set(all.map((e) => e.taskIndex))];
  return {
    label: `run ${run.id}`,
    tasks,
    async episode(taskIndex, repeat): Promise<Trajectory | null> {
      episodes ??= new Map(all.map((e) => [`${e.taskIndex}/${e.repeat}`, e]));
      const e = episodes.get(`${taskIndex}/${repeat % run.repeats}`);
      return e?.trajectoryId ? store.get(e.trajectoryId) : null;
    },
  };
}

/** A path as the file system resolves it (symlinks followed); as given when it does not exist. */
function real(p: string): string {
  try {
    return fs.realpathSync(p);
  } catch {
    return path.resolve(p);
  }
}

const NODE_MODULES = "node_modules";

/**
 * Whether `file` is inside one of `roots`, both as the file system resolves them: a symlink inside
 * an allowed folder that points outside is outside. Nothing in a `node_modules` folder is allowed
 * (what a dependency installed is not the author's script), nor is a root inside one.
 */
export function insideRoots(file: string, roots: readonly string[]): boolean {
  const target = real(file);
  return roots.some((r) => {
    const root = real(r);
    if (root.split(path.sep).includes(NODE_MODULES)) return false;
    const rel = path.relative(root, target);
    return (
      rel !== "" &&
      !rel.startsWith("..") &&
      !path.isAbsolute(rel) &&
      !rel.split(path.sep).includes(NODE_MODULES)
    );
  });
}

export async function policyFromSpec(spec: RunPolicy, deps: PolicyDeps): Promise<Policy> {
  switch (spec.kind) {
    case "model": {
      const { kind: _k, endpoint: _e, maxTurns: _m, ...settings } = spec as RunPolicy & { kind: "model" };
      const {
        baseUrl: _b,
        apiKeyEnv: _a,
        ...rest
      } = settings as typeof settings & { baseUrl?: string; apiKeyEnv?: string };
      return createModelPolicy(createModelClient(deps.models, endpointOf(spec, deps.models), rest));
    }
    case "random":
      return createRandomPolicy(spec.seed ?? DEFAULT_RANDOM_SEED);
    case "replay":
      return createReplayPolicy(await replaySource(spec, deps.store));
    case "human":
      throw new RunError(
        409,
        `a human run is played by ${spec.player} through their share link (/play/<token>), not by the playground`,
      );
    case "script": {
      const file = path.resolve(deps.cwd, spec.module);
      if (deps.scriptRoots && !insideRoots(file, deps.scriptRoots))
        throw new RunError(
          403,
          `refused: the script module ${spec.module} is outside the folders scripts may run from (${deps.scriptRoots.join(", ")}; PLAYGROUND_SCRIPT_ROOTS adds folders)`,
        );
      try {
        return await loadScriptPolicy(file, deps.cwd);
      } catch (err) {
        if (err instanceof PolicyError) throw new RunError(400, err.message);
        throw err;
      }
    }
  }
}
