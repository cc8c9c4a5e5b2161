// The environments a host serves (spec: ors-http-api.txt "Discovery Endpoints"): checked and
// indexed by name (lookups ignore case, as the reference server's do), with their discovery
// answers precomputed, and the task lookups by split and index that /create and /task share.
import { OrsError } from "../protocol/http-error";
import { deploymentNames } from "../protocol/paths";
import type { JsonObject } from "../protocol/schemas";
import type { AnyEnvironment } from "../sdk/define";
import { quote } from "./request";
import type { HostedEnvironment } from "./session";

export function hostEnvironment(env: AnyEnvironment): HostedEnvironment {
  const toolSpecs = [...env.tools].map(([name, tool]) => ({
    name,
    description: tool.description,
    input_schema: tool.inputSchema,
  }));
  return {
    env,
    name: env.name,
    toolsJson: JSON.stringify({ tools: toolSpecs }),
    splitsJson: JSON.stringify(env.splits),
    toolSpecs,
  };
}

/** The hosted environments by name; replaced as a whole by a reload, never mutated. */
export class EnvironmentIndex {
  readonly names: string[];
  /** `/list_environments` body. */
  readonly listJson: string;
  /** The first environment: the default of `/create` without `env_name`. */
  readonly defaultEnv: HostedEnvironment;

  private constructor(
    private readonly byName: Map<string, HostedEnvironment>,
    private readonly byLower: Map<string, HostedEnvironment>,
  ) {
    this.names = [...byName.keys()];
    this.listJson = JSON.stringify(this.names);
    this.defaultEnv = byName.values().next().value!;
  }

  /**
   * Checks and indexes environments; `reuse` keeps the hosted form (and so the sessions) of
   * environment objects served before. Throws on a list `createOrsHandler` refuses.
   */
  static of(
    environments: AnyEnvironment[],
    reuse: ReadonlyMap<AnyEnvironment, HostedEnvironment> = new Map(),
  ): EnvironmentIndex {
    if (!Array.isArray(environments) || environments.length === 0)
      throw new Error("createOrsHandler: give at least one environment");
    const byName = new Map<string, HostedEnvironment>();
    const byLower = new Map<string, HostedEnvironment>();
    for (const env of environments) {
      if (env?.kind !== "ors-environment")
        throw new Error("createOrsHandler: every environment must be made with defineEnvironment");
      if (byName.has(env.name) || byLower.has(env.name.toLowerCase()))
        throw new Error(`createOrsHandler: two environments named ${JSON.stringify(env.name)}`);
      const hosted = reuse.get(env) ?? hostEnvironment(env);
      byName.set(env.name, hosted);
      byLower.set(env.name.toLowerCase(), hosted);
    }
    return new EnvironmentIndex(byName, byLower);
  }

  get size(): number {
    return this.byName.size;
  }

  values(): IterableIterator<HostedEnvironment> {
    return this.byName.values();
  }

  /** The environment of this name (case ignored), or undefined. */
  find(name: string): HostedEnvironment | undefined {
    return this.byName.get(name) ?? this.byLower.get(name.toLowerCase());
  }

  /** The environment an `X-Deployment` header names (`math`, or `namespace/math`), if it is hosted. */
  fromDeployment(header: string | null): HostedEnvironment | undefined {
    for (const name of deploymentNames(header)) {
      const hosted = this.find(name);
      if (hosted) return hosted;
    }
    return undefined;
  }

  /** The environment of this name, or a 404 listing the hosted ones. */
  require(name: string): HostedEnvironment {
    const hosted = this.find(name);
    if (!hosted)
      throw new OrsError(
        404,
        `Unknown environment ${quote(name)}; this server hosts: ${this.names.join(", ")}`,
      );
    return hosted;
  }
}

/** A 400 unless the environment has this split, naming the ones it has. */
export function requireSplit(env: AnyEnvironment, split: string): void {
  if (!env.hasSplit(split))
    throw new OrsError(
      400,
      `Invalid split ${quote(split)}; ${env.name} has: ${env.splits.map((s) => s.name).join(", ")}`,
    );
}

/** Task `index` of `split` (the split checked first); a 400 for an index out of range. */
export async function taskAt(env: AnyEnvironment, split: string, index: number): Promise<JsonObject> {
  requireSplit(env, split);
  if (index < 0) throw new OrsError(400, `index: must be 0 or more, got ${index}`);
  const n = await env.numTasks(split);
  if (index >= n) throw new OrsError(400, `Invalid index ${index}: split ${quote(split)} has ${n} tasks`);
  try {
    return await env.getTask(split, index);
  } catch (e) {
    if (e instanceof RangeError) throw new OrsError(400, `Invalid index ${index} for split ${quote(split)}`);
    throw e;
  }
}

/** Python slice index resolution: negative counts from the end, clamped to [0, n]. */
export function sliceIndex(i: number, n: number): number {
  if (i < 0) return Math.max(0, n + i);
  return Math.min(i, n);
}
