// Loads environment code at run time, outside Next's bundler, so that it can be loaded again after
// an edit: each load imports the file with a new `?ors-v=N`, and lib/environments/reload-hook.mjs
// gives every file of its graph (but node_modules and the playground's lib/) a fresh copy and
// reports it, so the caller knows what to watch. Needs tsx's loader in the process (the app's entry,
// `npm run serve` and the CLI all run under it). Old copies stay in memory (ES modules cannot be
// unloaded): a few kilobytes of environment code per save.
import "server-only";
import { register } from "node:module";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { MessageChannel, type MessagePort } from "node:worker_threads";

const PACKAGE_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
/** The SDK an author's module gets for `import ... from "ors-playground/sdk"`: the running one's. */
export const SDK_ENTRY = path.join(PACKAGE_ROOT, "lib/ors/sdk/package-entry.ts");

export interface LoadedModule {
  namespace: Record<string, unknown>;
  /** The files of the module's graph that reload with it (absolute paths). */
  files: string[];
}

/** A failed load, with the files seen before it failed (watched, so that a fix reloads). */
export class ModuleLoadError extends Error {
  constructor(
    message: string,
    readonly files: string[],
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = "ModuleLoadError";
  }
}

interface Loader {
  port: MessagePort;
  version: number;
  seen: Map<number, Set<string>>;
  flushes: Map<number, () => void>;
  /** Loads under way with source maps turned on for them, and whether they were off before. */
  mapping: number;
  mapsWereOff: boolean;
}

const KEY = Symbol.for("ors-playground.module-loader");

function loader(): Loader {
  const g = globalThis as typeof globalThis & { [KEY]?: Loader };
  if (g[KEY]) return g[KEY];
  const { port1, port2 } = new MessageChannel();
  const state: Loader = {
    port: port1,
    version: 0,
    seen: new Map(),
    flushes: new Map(),
    mapping: 0,
    mapsWereOff: false,
  };
  port1.on("message", (m: { version?: number; file?: string; flushed?: number }) => {
    if (typeof m.flushed === "number") {
      state.flushes.get(m.flushed)?.();
      state.flushes.delete(m.flushed);
    } else if (typeof m.version === "number" && typeof m.file === "string")
      state.seen.get(m.version)?.add(m.file);
  });
  port1.unref();
  register(pathToFileURL(path.join(PACKAGE_ROOT, "lib/environments/reload-hook.mjs")).href, {
    data: {
      sdkUrl: pathToFileURL(SDK_ENTRY).href,
      sharedPrefixes: [path.join(PACKAGE_ROOT, "lib") + path.sep],
      port: port2,
    },
    transferList: [port2],
  });
  g[KEY] = state;
  return state;
}

/** Resolves once the hook has reported every file it resolved so far. */
function flush(l: Loader, id: number): Promise<void> {
  return new Promise<void>((resolve) => {
    l.flushes.set(id, resolve);
    l.port.ref();
    l.port.postMessage({ flush: id });
  }).finally(() => l.port.unref());
}

/**
 * Source maps on while an author's files load: Node keeps a module's map only if they are on when it
 * compiles, and a production server keeps them off (lib/app-server/source-maps.ts). With its map, a
 * load error names the author's line (./runtime-source.ts). Returns what turns them back off.
 */
function sourceMapsWhileLoading(l: Loader): () => void {
  if (l.mapping++ === 0) {
    l.mapsWereOff = !process.sourceMapsEnabled;
    if (l.mapsWereOff) process.setSourceMapsEnabled(true);
  }
  return () => {
    if (--l.mapping === 0 && l.mapsWereOff) process.setSourceMapsEnabled(false);
  };
}

/** Imports `file` (absolute) and its own imports afresh. */
export async function loadFresh(file: string): Promise<LoadedModule> {
  const l = loader();
  const version = ++l.version;
  const seen = new Set<string>([file]);
  l.seen.set(version, seen);
  const mapsOff = sourceMapsWhileLoading(l);
  try {
    let namespace: Record<string, unknown>;
    try {
      // An author's file, loaded at run time: never the bundler's business (runs load scripts from Next's routes).
      namespace = await import(/* turbopackIgnore: true */ `${pathToFileURL(file).href}?ors-v=${version}`);
    } catch (e) {
      await flush(l, version);
      throw new ModuleLoadError(e instanceof Error ? e.message : String(e), [...seen], { cause: e });
    }
    await flush(l, version);
    return { namespace, files: [...seen] };
  } finally {
    mapsOff();
    l.seen.delete(version);
  }
}
