// The reloadable environment source of the servers this package starts (the app's entry, `serve`,
// the CLI): the built-in environments and/or an author's module (ORS_ENVS), loaded at run time
// (./module-loader.ts), watched with fs.watch and loaded again — debounced — when a file's bytes
// change (./content-snapshot.ts: a save of the same bytes reloads nothing and ends no session).
// A reload that fails (a syntax error, a defineEnvironment error, a name clash) is reported — in the
// log and in status(), with its file and line — and the previous code keeps serving until a fix.
import "server-only";
import { existsSync, type FSWatcher, readFileSync, statSync } from "node:fs";
import { findSourceMap } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { builtinEnvironments } from "@/envs";
import type { AnyEnvironment } from "@/lib/ors/sdk";
import { changedFiles, type Snapshot, sameSnapshot, snapshotOf } from "./content-snapshot";
import { filesUnder, watchFiles, watchTree } from "./file-watch";
import { EnvironmentModuleError, environmentsOfModule, settleExports } from "./module-exports";
import { loadFresh, ModuleLoadError } from "./module-loader";
import { locateLoadError, type ReloadError, type ReloadStatus } from "./reload-status";
import {
  combineEnvironments,
  type EnvironmentReload,
  type EnvironmentSet,
  type EnvironmentSource,
} from "./source";

const ENVS_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../envs");
const SOURCE_FILE = /\.(ts|tsx|mts|js|mjs|json)$/;

export interface RuntimeSourceOptions {
  /** The author's module (ORS_ENVS, `--env`), resolved against `cwd`; null for none. */
  module: string | null;
  /** Host the built-in environments too (with a module: beside them; without, they are all there is). */
  builtins: boolean;
  /** Reload the built-ins when a file under envs/ changes (development). */
  watchBuiltins: boolean;
  /** Reload the module when it or a file it imports changes. */
  watchModule: boolean;
  cwd?: string;
  /** Where reloads and their failures are reported (default: console). */
  log?: (line: string) => void;
  /** Quiet time after the last change before reloading (default 150 ms: editors write in bursts). */
  debounceMs?: number;
}

/**
 * Reads the source's options from the environment: ORS_ENVS (the module), ORS_ENVS_ONLY (`1`: the
 * module only; `0`: beside the built-ins; unset: `moduleOnly`), ORS_ENVS_WATCH (`0`: never reload
 * the module). Built-ins reload only in development.
 */
export function runtimeSourceOptionsFromEnv(
  env: Record<string, string | undefined>,
  defaults: { dev: boolean; moduleOnly?: boolean },
): RuntimeSourceOptions {
  const module = env.ORS_ENVS?.trim() || null;
  const only = env.ORS_ENVS_ONLY?.trim();
  if (only && only !== "0" && only !== "1")
    throw new EnvironmentModuleError(`ORS_ENVS_ONLY must be 1 or 0, got ${JSON.stringify(only)}`);
  const watch = env.ORS_ENVS_WATCH?.trim();
  if (watch && watch !== "0" && watch !== "1")
    throw new EnvironmentModuleError(`ORS_ENVS_WATCH must be 1 or 0, got ${JSON.stringify(watch)}`);
  if (only === "1" && !module)
    throw new EnvironmentModuleError("ORS_ENVS_ONLY=1 needs ORS_ENVS (the module to host)");
  const moduleOnly = module !== null && (only ? only === "1" : (defaults.moduleOnly ?? false));
  return {
    module,
    builtins: !moduleOnly,
    watchBuiltins: defaults.dev,
    watchModule: module !== null && watch !== "0",
  };
}

/** How a path is shown: relative to `cwd` when inside it. */
function shown(file: string, cwd: string): string {
  const rel = path.relative(cwd, file);
  return rel && !rel.startsWith("..") && !path.isAbsolute(rel) ? `./${rel}` : file;
}

/** Loads the module at `file` and picks its environments; errors say which module and why. */
async function loadModule(
  file: string,
  label: string,
): Promise<{ environments: AnyEnvironment[]; files: string[] }> {
  let loaded: Awaited<ReturnType<typeof loadFresh>>;
  try {
    loaded = await loadFresh(file);
  } catch (e) {
    const files = e instanceof ModuleLoadError ? e.files : [file];
    // The cause keeps the original error: its stack (or the compiler's message) says file and line.
    throw Object.assign(
      new EnvironmentModuleError(`could not load ${label}: ${(e as Error).message}`, { cause: e }),
      { files },
    );
  }
  try {
    const namespace = await settleExports(loaded.namespace).catch((e: Error) => {
      throw new EnvironmentModuleError(`could not load ${label}: ${e.message}`, { cause: e });
    });
    return { environments: environmentsOfModule(namespace, label), files: loaded.files };
  } catch (e) {
    throw Object.assign(e as Error, { files: loaded.files });
  }
}

type Part = "module" | "builtins";

/** The text of line `line` of `file` (at most 200 characters), or null. */
function lineOf(file: string | null, line: number | null): string | null {
  if (!file || !line) return null;
  try {
    const text = readFileSync(file, "utf8").split(/\r?\n/)[line - 1];
    return text === undefined ? null : text.trimEnd().slice(0, 200);
  } catch {
    return null;
  }
}

/**
 * A stack frame's position in the author's source. Node maps stack traces through tsx's source maps
 * itself, unless something else formats them (Next's development server does): then the frame
 * names the module's URL as loaded (`file:///…/envs.ts?ors-v=3`) and a position in the compiled
 * code, which the module's source map translates. A frame that names a plain path is mapped already.
 */
function originalPosition(
  url: string,
  line: number,
  column: number,
): { line: number; column: number } | null {
  if (!url.startsWith("file://")) return null;
  try {
    const entry = findSourceMap(url)?.findEntry(line - 1, column - 1);
    if (!entry || !("originalLine" in entry)) return null;
    return { line: entry.originalLine + 1, column: entry.originalColumn + 1 };
  } catch {
    return null;
  }
}

/** Opens the source: loads everything once (throwing a clear error if that fails), then watches. */
export async function openRuntimeSource(options: RuntimeSourceOptions): Promise<EnvironmentSource> {
  const cwd = options.cwd ?? process.cwd();
  const log = options.log ?? ((line: string) => console.log(line));
  const debounceMs = options.debounceMs ?? 150;

  let modulePart: { path: string; environments: AnyEnvironment[]; files: string[] } | null = null;
  let moduleFile: string | null = null;
  let moduleLabel = "";
  if (options.module) {
    moduleFile = path.resolve(cwd, options.module);
    moduleLabel = shown(moduleFile, cwd);
    if (!existsSync(moduleFile))
      throw new EnvironmentModuleError(
        `no such environment module: ${options.module}${path.isAbsolute(options.module) ? "" : ` (looked for ${moduleFile})`}`,
      );
    if (statSync(moduleFile).isDirectory())
      throw new EnvironmentModuleError(
        `the environment module ${options.module} is a folder: give its file (e.g. ./envs.ts)`,
      );
    const loaded = await loadModule(moduleFile, moduleLabel);
    modulePart = { path: moduleLabel, ...loaded };
  }
  let builtins: readonly AnyEnvironment[] = options.builtins ? builtinEnvironments : [];
  let set: EnvironmentSet = combineEnvironments(builtins, modulePart);
  const builtinWatch = options.watchBuiltins && options.builtins;
  const builtinFiles = () => filesUnder(ENVS_DIR, SOURCE_FILE);

  // The bytes of what serves now, per part: a reload happens only when one of them changed.
  let served: Record<Part, Snapshot> = {
    module: snapshotOf(modulePart?.files ?? []),
    builtins: builtinWatch ? snapshotOf(builtinFiles()) : new Map(),
  };
  // Per part, the last save that did not load (shown in the UI) and the files' bytes at that time.
  const failed: Record<Part, { error: ReloadError; files: Snapshot } | null> = {
    module: null,
    builtins: null,
  };
  let lastReload: ReloadStatus["last_reload"] = null;

  const listeners = new Set<(r: EnvironmentReload) => void | Promise<void>>();
  let moduleWatchers: FSWatcher[] = [];
  let builtinWatchers: FSWatcher[] = [];
  let closed = false;
  const pending: Record<Part, Set<string>> = { module: new Set(), builtins: new Set() };
  let timer: ReturnType<typeof setTimeout> | null = null;
  let running: Promise<void> = Promise.resolve();

  const watchModule = (files: readonly string[]) => {
    for (const w of moduleWatchers) w.close();
    moduleWatchers = options.watchModule && !closed ? watchFiles(files, (f) => changed("module", f)) : [];
  };
  const watchBuiltins = () => {
    for (const w of builtinWatchers) w.close();
    builtinWatchers =
      !closed && builtinWatch ? watchTree(ENVS_DIR, SOURCE_FILE, (f) => changed("builtins", f)) : [];
  };

  const loadBuiltins = async (): Promise<AnyEnvironment[]> => {
    const loaded = await loadFresh(path.join(ENVS_DIR, "index.ts"));
    const list = loaded.namespace.builtinEnvironments;
    if (!Array.isArray(list))
      throw new EnvironmentModuleError("envs/index.ts no longer exports builtinEnvironments");
    return list as AnyEnvironment[];
  };

  /** The names of what serves from `part`: what a failed reload of it leaves on its previous code. */
  const namesOf = (part: Part) =>
    set.environments
      .filter((e) => (set.origins.get(e.name)?.kind === "module") === (part === "module"))
      .map((e) => e.name);

  const reload = async () => {
    const saved: Record<Part, string[]> = { module: [...pending.module], builtins: [...pending.builtins] };
    pending.module.clear();
    pending.builtins.clear();
    if (closed || (saved.module.length === 0 && saved.builtins.length === 0)) return;
    // The bytes on disk now, read once, before anything loads (a save during the load reloads again).
    const now: Record<Part, Snapshot | null> = {
      module:
        saved.module.length && moduleFile ? snapshotOf([...served.module.keys(), ...saved.module]) : null,
      builtins: saved.builtins.length ? snapshotOf(builtinFiles()) : null,
    };
    const edits = (part: Part): string[] => {
      const disk = now[part];
      if (!disk) return [];
      const out = changedFiles(served[part], disk);
      // New files count for the built-ins (every file under envs/ is theirs), not for the module.
      if (part === "builtins") for (const f of disk.keys()) if (!served.builtins.has(f)) out.push(f);
      return out;
    };
    const shownOf = (part: Part, edited: string[]) => {
      const disk = now[part]!;
      const files = saved[part].filter((f) => !served[part].has(f) || served[part].get(f) !== disk.get(f));
      return (files.length ? files : edited).map((f) => shown(f, cwd));
    };
    const attempt: Part[] = [];
    const changedShown: Record<Part, string[]> = { module: [], builtins: [] };
    for (const part of ["module", "builtins"] as const) {
      if (!now[part]) continue;
      const edited = edits(part);
      if (edited.length === 0) {
        // Every byte as it serves (a touch, the same text saved again, a checkout): nothing to
        // reload, no session ends; a save that did not load has been undone.
        const files = saved[part].map((f) => shown(f, cwd)).join(", ");
        log(
          failed[part]
            ? `[ors-playground] ${files}: back to the code that serves, nothing to reload`
            : `[ors-playground] ${files} saved with the same contents: nothing to reload`,
        );
        failed[part] = null;
        continue;
      }
      // Nothing new since a save that did not load (the same broken text again): that error stands.
      const f = failed[part];
      if (f && sameSnapshot(f.files, snapshotOf(f.files.keys(), now[part]!))) {
        log(
          `[ors-playground] ${saved[part].map((x) => shown(x, cwd)).join(", ")} saved as it was when it did not load: still serving the previous code`,
        );
        continue;
      }
      attempt.push(part);
      changedShown[part] = shownOf(part, edited);
    }
    if (attempt.length === 0) return;

    const fail = (part: Part, e: unknown, seen: readonly string[]) => {
      const graph = [
        ...new Set(
          part === "module"
            ? [moduleFile!, ...seen, ...served.module.keys(), ...saved.module]
            : [...seen, ...now.builtins!.keys()],
        ),
      ];
      const where = locateLoadError(e, graph, originalPosition);
      failed[part] = {
        error: {
          message: where.message,
          file: where.file && shown(where.file, cwd),
          line: where.line,
          column: where.column,
          excerpt: lineOf(where.file, where.line),
          changed: changedShown[part],
          environments: namesOf(part),
          at: Date.now(),
        },
        files: snapshotOf(graph, now[part]!),
      };
      if (part === "module") watchModule([...new Set([...(modulePart?.files ?? []), ...seen])]);
      const at = where.file
        ? ` (${shown(where.file, cwd)}${where.line ? `:${where.line}${where.column ? `:${where.column}` : ""}` : ""})`
        : "";
      log(
        `[ors-playground] could not reload after ${changedShown[part].join(", ")} changed: ${(e as Error).message}${at}\n` +
          "  Still serving the previous code; save a fix to reload.",
      );
    };

    let nextModule = modulePart;
    let nextBuiltins = builtins;
    const loaded: Part[] = [];
    if (attempt.includes("module") && moduleFile) {
      try {
        nextModule = { path: moduleLabel, ...(await loadModule(moduleFile, moduleLabel)) };
        loaded.push("module");
      } catch (e) {
        fail("module", e, (e as { files?: string[] }).files ?? []);
      }
    }
    if (attempt.includes("builtins")) {
      try {
        nextBuiltins = await loadBuiltins();
        loaded.push("builtins");
      } catch (e) {
        fail("builtins", e, e instanceof ModuleLoadError ? e.files : []);
      }
    }
    if (loaded.length === 0) return;
    const changedNow = loaded.flatMap((p) => changedShown[p]);
    try {
      const nextSet = combineEnvironments(nextBuiltins, nextModule);
      for (const listener of listeners) await listener({ set: nextSet, changed: changedNow });
      if (loaded.includes("module") && nextModule) {
        modulePart = nextModule;
        // Hashes read before the load for the files known then: a save during the load reloads again.
        served = { ...served, module: snapshotOf(nextModule.files, now.module!) };
        failed.module = null;
        watchModule(nextModule.files);
      }
      if (loaded.includes("builtins")) {
        builtins = nextBuiltins;
        served = { ...served, builtins: now.builtins! };
        failed.builtins = null;
        watchBuiltins();
      }
      set = nextSet;
      lastReload = { at: Date.now(), changed: changedNow };
      const names = nextSet.environments.map((e) => e.name).join(", ");
      log(`[ors-playground] reloaded ${changedNow.join(", ")}: now hosting ${names}`);
    } catch (e) {
      // A clash of names, or the host refused the set: the part that was edited did not load.
      for (const part of loaded) fail(part, e, part === "module" ? (nextModule?.files ?? []) : []);
    }
  };

  const changed = (kind: Part, file: string) => {
    if (closed) return;
    pending[kind].add(file);
    if (timer) clearTimeout(timer);
    timer = setTimeout(() => {
      timer = null;
      running = running
        .then(reload)
        .catch((e) => log(`[ors-playground] reload failed: ${(e as Error).message}`));
    }, debounceMs);
  };

  if (modulePart) watchModule(modulePart.files);
  watchBuiltins();

  const watching: string[] = [];
  if (builtinWatch) watching.push(`${shown(ENVS_DIR, cwd)}/`);
  if (modulePart && options.watchModule) watching.push(modulePart.path);

  return {
    current: () => set,
    onReload(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    watching,
    status: () => ({
      watching: [...watching],
      last_reload: lastReload,
      errors: [failed.module?.error, failed.builtins?.error].filter((e): e is ReloadError => !!e),
    }),
    close() {
      closed = true;
      if (timer) clearTimeout(timer);
      for (const w of [...moduleWatchers, ...builtinWatchers]) w.close();
      void running;
    },
  };
}
