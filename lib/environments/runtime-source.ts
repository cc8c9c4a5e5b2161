// The reloadable environment source of the servers this package starts (the app's entry, `serve`,
// the CLI): the built-in environments and/or an author's module (ORS_ENVS), loaded at run time
// (./module-loader.ts), watched with fs.watch and loaded again — debounced — when a file changes.
// A reload that fails (a syntax error, a defineEnvironment error, a name clash) is reported and the
// previous code keeps serving; a fix saved later reloads.
import "server-only";
import { existsSync, type FSWatcher, readdirSync, statSync, watch } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { builtinEnvironments } from "@/envs";
import type { AnyEnvironment } from "@/lib/ors/sdk";
import { EnvironmentModuleError, environmentsOfModule } from "./module-exports";
import { loadFresh, ModuleLoadError } from "./module-loader";
import {
  combineEnvironments,
  type EnvironmentReload,
  type EnvironmentSet,
  type EnvironmentSource,
} from "./source";

const ENVS_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../envs");
const SOURCE_FILE = /\.(ts|tsx|mts|js|mjs|json)$/;

/** A folder and every folder below it. */
function foldersUnder(dir: string): string[] {
  const out = [dir];
  try {
    for (const entry of readdirSync(dir, { withFileTypes: true }))
      if (entry.isDirectory()) out.push(...foldersUnder(path.join(dir, entry.name)));
  } catch {
    // Unreadable: watched as far as it could be listed.
  }
  return out;
}

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
    throw Object.assign(new EnvironmentModuleError(`could not load ${label}: ${(e as Error).message}`), {
      files,
    });
  }
  try {
    return { environments: environmentsOfModule(loaded.namespace, label), files: loaded.files };
  } catch (e) {
    throw Object.assign(e as Error, { files: loaded.files });
  }
}

/** Watches the folders of `files` (not the files: editors often save by replacing them). */
function watchFiles(files: Iterable<string>, onChange: (file: string) => void): FSWatcher[] {
  const byDir = new Map<string, Set<string>>();
  for (const f of files) {
    const dir = path.dirname(f);
    if (!byDir.has(dir)) byDir.set(dir, new Set());
    byDir.get(dir)!.add(path.basename(f));
  }
  const watchers: FSWatcher[] = [];
  for (const [dir, names] of byDir) {
    try {
      const w = watch(dir, { persistent: false }, (_event, name) => {
        if (name && names.has(name.toString())) onChange(path.join(dir, name.toString()));
      });
      w.on("error", () => {});
      watchers.push(w);
    } catch {
      // A folder that disappeared: nothing to watch there.
    }
  }
  return watchers;
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

  const listeners = new Set<(r: EnvironmentReload) => void | Promise<void>>();
  let moduleWatchers: FSWatcher[] = [];
  let closed = false;
  const pending = { module: new Set<string>(), builtins: new Set<string>() };
  let timer: ReturnType<typeof setTimeout> | null = null;
  let running: Promise<void> = Promise.resolve();

  const watchModule = (files: readonly string[]) => {
    for (const w of moduleWatchers) w.close();
    moduleWatchers = options.watchModule && !closed ? watchFiles(files, (f) => changed("module", f)) : [];
  };

  const reload = async () => {
    const moduleChanged = [...pending.module];
    const builtinsChanged = [...pending.builtins];
    pending.module.clear();
    pending.builtins.clear();
    if (closed || (moduleChanged.length === 0 && builtinsChanged.length === 0)) return;
    const changedShown = [...moduleChanged, ...builtinsChanged].map((f) => shown(f, cwd));
    let nextModule = modulePart;
    let nextBuiltins = builtins;
    try {
      if (moduleChanged.length && moduleFile) {
        const loaded = await loadModule(moduleFile, moduleLabel);
        nextModule = { path: moduleLabel, ...loaded };
      }
      if (builtinsChanged.length) {
        const loaded = await loadFresh(path.join(ENVS_DIR, "index.ts"));
        const list = loaded.namespace.builtinEnvironments;
        if (!Array.isArray(list))
          throw new EnvironmentModuleError("envs/index.ts no longer exports builtinEnvironments");
        nextBuiltins = list as AnyEnvironment[];
      }
      const nextSet = combineEnvironments(nextBuiltins, nextModule);
      for (const listener of listeners) await listener({ set: nextSet, changed: changedShown });
      modulePart = nextModule;
      builtins = nextBuiltins;
      set = nextSet;
      if (moduleChanged.length) watchModule(nextModule?.files ?? []);
      if (builtinsChanged.length) watchBuiltins();
      const names = nextSet.environments.map((e) => e.name).join(", ");
      log(`[ors-playground] reloaded ${changedShown.join(", ")}: now hosting ${names}`);
    } catch (e) {
      const files = (e as { files?: string[] }).files;
      if (moduleChanged.length && files) watchModule([...new Set([...(modulePart?.files ?? []), ...files])]);
      log(
        `[ors-playground] could not reload after ${changedShown.join(", ")} changed: ${(e as Error).message}\n` +
          "  Still serving the previous code; save a fix to reload.",
      );
    }
  };

  const changed = (kind: "module" | "builtins", file: string) => {
    if (closed) return;
    pending[kind].add(file);
    if (timer) clearTimeout(timer);
    timer = setTimeout(() => {
      timer = null;
      running = running.then(reload);
    }, debounceMs);
  };

  if (modulePart) watchModule(modulePart.files);
  // Every folder under envs/, each watched on its own: Node's recursive fs.watch on Linux loses a
  // file that an editor saves by replacing it (write a copy, rename it over).
  const builtinWatch = options.watchBuiltins && options.builtins;
  let builtinWatchers: FSWatcher[] = [];
  const watchBuiltins = () => {
    for (const w of builtinWatchers) w.close();
    builtinWatchers = [];
    if (closed || !builtinWatch) return;
    for (const dir of foldersUnder(ENVS_DIR)) {
      try {
        const w = watch(dir, { persistent: false }, (_event, name) => {
          if (name && SOURCE_FILE.test(name.toString())) changed("builtins", path.join(dir, name.toString()));
        });
        w.on("error", () => {});
        builtinWatchers.push(w);
      } catch {
        // A folder that disappeared meanwhile.
      }
    }
  };
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
    close() {
      closed = true;
      if (timer) clearTimeout(timer);
      for (const w of [...moduleWatchers, ...builtinWatchers]) w.close();
      void running;
    },
  };
}
