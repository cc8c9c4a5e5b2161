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

type Served = { path: string; environments: AnyEnvironment[]; files: string[] };
type ModulePart = { file: string; label: string; part: Served };

/** What one reload is about: the files saved, and the bytes of each part on disk when it began. */
interface Pending {
  saved: Record<Part, string[]>;
  now: Record<Part, Snapshot | null>;
}

/** The parts to load again and the files that changed in each, as shown. */
interface Plan {
  attempt: Part[];
  changedShown: Record<Part, string[]>;
}

/** Opens the source: loads everything once (throwing a clear error if that fails), then watches. */
export async function openRuntimeSource(options: RuntimeSourceOptions): Promise<EnvironmentSource> {
  const cwd = options.cwd ?? process.cwd();
  let module: ModulePart | null = null;
  if (options.module) {
    const file = path.resolve(cwd, options.module);
    const label = shown(file, cwd);
    if (!existsSync(file))
      throw new EnvironmentModuleError(
        `no such environment module: ${options.module}${path.isAbsolute(options.module) ? "" : ` (looked for ${file})`}`,
      );
    if (statSync(file).isDirectory())
      throw new EnvironmentModuleError(
        `the environment module ${options.module} is a folder: give its file (e.g. ./envs.ts)`,
      );
    module = { file, label, part: { path: label, ...(await loadModule(file, label)) } };
  }
  return new RuntimeSource(options, cwd, module);
}

/** The built-in environments as envs/index.ts exports them now (loaded fresh). */
async function loadBuiltins(): Promise<AnyEnvironment[]> {
  const loaded = await loadFresh(path.join(ENVS_DIR, "index.ts"));
  const list = loaded.namespace.builtinEnvironments;
  if (!Array.isArray(list))
    throw new EnvironmentModuleError("envs/index.ts no longer exports builtinEnvironments");
  return list as AnyEnvironment[];
}

const builtinFiles = () => filesUnder(ENVS_DIR, SOURCE_FILE);

/**
 * A reloadable source: what serves now per part (the author's module, the built-ins), the bytes it
 * was loaded from, the saves that did not load, and the watchers that schedule reloads (debounced,
 * one after another).
 */
class RuntimeSource implements EnvironmentSource {
  readonly watching: string[] = [];
  private readonly log: (line: string) => void;
  private readonly debounceMs: number;
  private readonly builtinWatch: boolean;
  private modulePart: Served | null;
  private builtins: readonly AnyEnvironment[];
  private set: EnvironmentSet;
  /** The bytes of what serves now, per part: a reload happens only when one of them changed. */
  private served: Record<Part, Snapshot>;
  /** Per part, the last save that did not load (shown in the UI) and the files' bytes at that time. */
  private readonly failed: Record<Part, { error: ReloadError; files: Snapshot } | null> = {
    module: null,
    builtins: null,
  };
  private lastReload: ReloadStatus["last_reload"] = null;
  private readonly listeners = new Set<(r: EnvironmentReload) => void | Promise<void>>();
  private moduleWatchers: FSWatcher[] = [];
  private builtinWatchers: FSWatcher[] = [];
  private closed = false;
  private readonly pending: Record<Part, Set<string>> = { module: new Set(), builtins: new Set() };
  private timer: ReturnType<typeof setTimeout> | null = null;
  private running: Promise<void> = Promise.resolve();

  constructor(
    private readonly options: RuntimeSourceOptions,
    private readonly cwd: string,
    private readonly module: ModulePart | null,
  ) {
    this.log = options.log ?? ((line: string) => console.log(line));
    this.debounceMs = options.debounceMs ?? 150;
    this.modulePart = module?.part ?? null;
    this.builtins = options.builtins ? builtinEnvironments : [];
    this.set = combineEnvironments(this.builtins, this.modulePart);
    this.builtinWatch = options.watchBuiltins && options.builtins;
    this.served = {
      module: snapshotOf(this.modulePart?.files ?? []),
      builtins: this.builtinWatch ? snapshotOf(builtinFiles()) : new Map(),
    };
    if (this.modulePart) this.watchModule(this.modulePart.files);
    this.watchBuiltins();
    if (this.builtinWatch) this.watching.push(`${shown(ENVS_DIR, cwd)}/`);
    if (this.modulePart && options.watchModule) this.watching.push(this.modulePart.path);
  }

  current(): EnvironmentSet {
    return this.set;
  }

  onReload(listener: (r: EnvironmentReload) => void | Promise<void>): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  status(): ReloadStatus {
    return {
      watching: [...this.watching],
      last_reload: this.lastReload,
      errors: [this.failed.module?.error, this.failed.builtins?.error].filter((e): e is ReloadError => !!e),
    };
  }

  close(): void {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    for (const w of [...this.moduleWatchers, ...this.builtinWatchers]) w.close();
  }

  private watchModule(files: readonly string[]): void {
    for (const w of this.moduleWatchers) w.close();
    this.moduleWatchers =
      this.options.watchModule && !this.closed ? watchFiles(files, (f) => this.changed("module", f)) : [];
  }

  private watchBuiltins(): void {
    for (const w of this.builtinWatchers) w.close();
    this.builtinWatchers =
      !this.closed && this.builtinWatch
        ? watchTree(ENVS_DIR, SOURCE_FILE, (f) => this.changed("builtins", f))
        : [];
  }

  /** The names of what serves from `part`: what a failed reload of it leaves on its previous code. */
  private namesOf(part: Part): string[] {
    return this.set.environments
      .filter((e) => (this.set.origins.get(e.name)?.kind === "module") === (part === "module"))
      .map((e) => e.name);
  }

  private changed(kind: Part, file: string): void {
    if (this.closed) return;
    this.pending[kind].add(file);
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = null;
      this.running = this.running
        .then(() => this.reload())
        .catch((e) => this.log(`[ors-playground] reload failed: ${(e as Error).message}`));
    }, this.debounceMs);
  }

  /** One reload: what was saved, read from disk once, loaded again where bytes changed, then served. */
  private async reload(): Promise<void> {
    const pending = this.takePending();
    if (!pending) return;
    const plan = this.plan(pending);
    if (plan.attempt.length === 0) return;
    let nextModule = this.modulePart;
    let nextBuiltins = this.builtins;
    const loaded: Part[] = [];
    if (plan.attempt.includes("module") && this.module) {
      try {
        nextModule = { path: this.module.label, ...(await loadModule(this.module.file, this.module.label)) };
        loaded.push("module");
      } catch (e) {
        this.fail("module", e, (e as { files?: string[] }).files ?? [], pending, plan);
      }
    }
    if (plan.attempt.includes("builtins")) {
      try {
        nextBuiltins = await loadBuiltins();
        loaded.push("builtins");
      } catch (e) {
        this.fail("builtins", e, e instanceof ModuleLoadError ? e.files : [], pending, plan);
      }
    }
    if (loaded.length) await this.serve(loaded, nextModule, nextBuiltins, pending, plan);
  }

  /** The files saved since the last reload, and the bytes on disk now, read once before anything loads. */
  private takePending(): Pending | null {
    const saved: Record<Part, string[]> = {
      module: [...this.pending.module],
      builtins: [...this.pending.builtins],
    };
    this.pending.module.clear();
    this.pending.builtins.clear();
    if (this.closed || (saved.module.length === 0 && saved.builtins.length === 0)) return null;
    // A save during the load reloads again.
    return {
      saved,
      now: {
        module:
          saved.module.length && this.module
            ? snapshotOf([...this.served.module.keys(), ...saved.module])
            : null,
        builtins: saved.builtins.length ? snapshotOf(builtinFiles()) : null,
      },
    };
  }

  /** The files of `part` whose bytes differ from what serves (new files count for the built-ins). */
  private edits(part: Part, { now }: Pending): string[] {
    const disk = now[part];
    if (!disk) return [];
    const out = changedFiles(this.served[part], disk);
    // Every file under envs/ is the built-ins', not the module's.
    if (part === "builtins") for (const f of disk.keys()) if (!this.served.builtins.has(f)) out.push(f);
    return out;
  }

  /** Which parts to load again: those whose bytes changed since they served or last failed. */
  private plan(p: Pending): Plan {
    const plan: Plan = { attempt: [], changedShown: { module: [], builtins: [] } };
    for (const part of ["module", "builtins"] as const) {
      const disk = p.now[part];
      if (!disk) continue;
      const edited = this.edits(part, p);
      if (edited.length === 0) {
        // Every byte as it serves (a touch, the same text saved again, a checkout): nothing to
        // reload, no session ends; a save that did not load has been undone.
        const files = p.saved[part].map((f) => shown(f, this.cwd)).join(", ");
        this.log(
          this.failed[part]
            ? `[ors-playground] ${files}: back to the code that serves, nothing to reload`
            : `[ors-playground] ${files} saved with the same contents: nothing to reload`,
        );
        this.failed[part] = null;
        continue;
      }
      // Nothing new since a save that did not load (the same broken text again): that error stands.
      const f = this.failed[part];
      if (f && sameSnapshot(f.files, snapshotOf(f.files.keys(), disk))) {
        this.log(
          `[ors-playground] ${p.saved[part].map((x) => shown(x, this.cwd)).join(", ")} saved as it was when it did not load: still serving the previous code`,
        );
        continue;
      }
      plan.attempt.push(part);
      const files = p.saved[part].filter(
        (x) => !this.served[part].has(x) || this.served[part].get(x) !== disk.get(x),
      );
      plan.changedShown[part] = (files.length ? files : edited).map((x) => shown(x, this.cwd));
    }
    return plan;
  }

  /** Records that `part` did not load (with the file and line the error points at), and says so. */
  private fail(part: Part, e: unknown, seen: readonly string[], p: Pending, plan: Plan): void {
    const graph = [
      ...new Set(
        part === "module"
          ? [this.module!.file, ...seen, ...this.served.module.keys(), ...p.saved.module]
          : [...seen, ...p.now.builtins!.keys()],
      ),
    ];
    const where = locateLoadError(e, graph, originalPosition);
    this.failed[part] = {
      error: {
        message: where.message,
        file: where.file && shown(where.file, this.cwd),
        line: where.line,
        column: where.column,
        excerpt: lineOf(where.file, where.line),
        changed: plan.changedShown[part],
        environments: this.namesOf(part),
        at: Date.now(),
      },
      files: snapshotOf(graph, p.now[part]!),
    };
    if (part === "module") this.watchModule([...new Set([...(this.modulePart?.files ?? []), ...seen])]);
    const at = where.file
      ? ` (${shown(where.file, this.cwd)}${where.line ? `:${where.line}${where.column ? `:${where.column}` : ""}` : ""})`
      : "";
    this.log(
      `[ors-playground] could not reload after ${plan.changedShown[part].join(", ")} changed: ${(e as Error).message}${at}\n` +
        "  Still serving the previous code; save a fix to reload.",
    );
  }

  /** Serves what loaded: the listeners (the host) take the new set first, then it is what serves. */
  private async serve(
    loaded: Part[],
    nextModule: Served | null,
    nextBuiltins: readonly AnyEnvironment[],
    p: Pending,
    plan: Plan,
  ): Promise<void> {
    const changedNow = loaded.flatMap((part) => plan.changedShown[part]);
    try {
      const nextSet = combineEnvironments(nextBuiltins, nextModule);
      for (const listener of this.listeners) await listener({ set: nextSet, changed: changedNow });
      if (loaded.includes("module") && nextModule) {
        this.modulePart = nextModule;
        // Hashes read before the load for the files known then: a save during the load reloads again.
        this.served = { ...this.served, module: snapshotOf(nextModule.files, p.now.module!) };
        this.failed.module = null;
        this.watchModule(nextModule.files);
      }
      if (loaded.includes("builtins")) {
        this.builtins = nextBuiltins;
        this.served = { ...this.served, builtins: p.now.builtins! };
        this.failed.builtins = null;
        this.watchBuiltins();
      }
      this.set = nextSet;
      this.lastReload = { at: Date.now(), changed: changedNow };
      const names = nextSet.environments.map((e) => e.name).join(", ");
      this.log(`[ors-playground] reloaded ${changedNow.join(", ")}: now hosting ${names}`);
    } catch (e) {
      // A clash of names, or the host refused the set: the part that was edited did not load.
      for (const part of loaded)
        this.fail(part, e, part === "module" ? (nextModule?.files ?? []) : [], p, plan);
    }
  }
}
