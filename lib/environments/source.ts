// The environment source: what the ORS host serves — the built-in environments (envs/), an author's
// module (ORS_ENVS), or both — and, for a reloadable source, a notice each time that changes. The
// composition root (lib/playground.ts) and the standalone host build their host from one of these.
import type { AnyEnvironment } from "@/lib/ors/sdk";
import { EnvironmentModuleError } from "./module-exports";
import { type ReloadStatus, STATIC_RELOAD_STATUS } from "./reload-status";

/** Where a hosted environment comes from: the built-ins, or the author's module (its path as given). */
export type EnvironmentOrigin = { kind: "builtin" } | { kind: "module"; path: string };

export interface EnvironmentSet {
  /** Everything to host, in order: the first is the default environment of `/create`. */
  readonly environments: readonly AnyEnvironment[];
  /** Where each environment (by name) comes from. */
  readonly origins: ReadonlyMap<string, EnvironmentOrigin>;
}

export interface EnvironmentReload {
  /** What to host from now on. */
  readonly set: EnvironmentSet;
  /** The files whose change caused the reload, as shown to the user (relative when possible). */
  readonly changed: readonly string[];
}

export interface EnvironmentSource {
  /** What to host now. */
  current(): EnvironmentSet;
  /**
   * Runs `listener` after each reload that produced a valid set (a reload that fails keeps the old
   * code, and says so in `status()` and the log). A save that changed no byte reloads nothing. The
   * source waits for listeners before it reloads again.
   */
  onReload(listener: (reload: EnvironmentReload) => void | Promise<void>): () => void;
  /** What is watched for changes (shown at startup); empty when the source never reloads. */
  readonly watching: readonly string[];
  /** The last reload and the saves that did not load (GET /api/environments/status shows it). */
  status(): ReloadStatus;
  /** Stops watching. */
  close(): void;
}

/**
 * The environments to host: the module's first (the author's are what they came for, and the
 * first is `/create`'s default), then the built-ins. A name used twice is an error that says which.
 */
export function combineEnvironments(
  builtins: readonly AnyEnvironment[],
  module: { path: string; environments: readonly AnyEnvironment[] } | null,
): EnvironmentSet {
  const origins = new Map<string, EnvironmentOrigin>();
  const lower = new Map<string, string>();
  const environments: AnyEnvironment[] = [];
  const add = (env: AnyEnvironment, origin: EnvironmentOrigin) => {
    const clash = lower.get(env.name.toLowerCase());
    if (clash !== undefined) {
      const first = origins.get(clash)!;
      const where = (o: EnvironmentOrigin) => (o.kind === "builtin" ? "the built-in environment" : o.path);
      throw new EnvironmentModuleError(
        first.kind === "module" && origin.kind === "builtin"
          ? `${first.path}: environment ${JSON.stringify(clash)} has the name of the built-in environment ${JSON.stringify(env.name)}${clash === env.name ? "" : " (names are compared without case)"}: rename it, or host your module alone (ORS_ENVS_ONLY=1)`
          : `${where(origin)}: two environments named ${JSON.stringify(env.name)}${clash === env.name ? "" : ` and ${JSON.stringify(clash)} (names are compared without case)`}`,
      );
    }
    lower.set(env.name.toLowerCase(), env.name);
    origins.set(env.name, origin);
    environments.push(env);
  };
  if (module) for (const env of module.environments) add(env, { kind: "module", path: module.path });
  for (const env of builtins) add(env, { kind: "builtin" });
  if (environments.length === 0) throw new EnvironmentModuleError("no environments to host");
  return { environments, origins };
}

/** A source that never changes (tests, and the app when built inside Next's bundle). */
export function staticEnvironmentSource(environments: readonly AnyEnvironment[]): EnvironmentSource {
  const set = combineEnvironments(environments, null);
  return {
    current: () => set,
    onReload: () => () => {},
    watching: [],
    status: () => STATIC_RELOAD_STATUS,
    close() {},
  };
}

/** The names of a set's environments by origin, for startup banners. */
export function describeEnvironmentSet(set: EnvironmentSet): {
  builtin: string[];
  modules: Map<string, string[]>;
} {
  const builtin: string[] = [];
  const modules = new Map<string, string[]>();
  for (const env of set.environments) {
    const o = set.origins.get(env.name);
    if (!o || o.kind === "builtin") builtin.push(env.name);
    else modules.set(o.path, [...(modules.get(o.path) ?? []), env.name]);
  }
  return { builtin, modules };
}
