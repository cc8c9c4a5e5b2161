// The composition root (server-only): builds the app's long-lived parts once per process — the ORS
// host with the built-in environments, the server registry, the relay, the trajectory store, the
// live feeds and the recorder — and hands them out. Nothing else starts a part, and this is the one
// module that keeps them on globalThis: Next bundles each route separately and dev HMR re-evaluates
// modules, and both must find the same parts.
import "server-only";
import { builtinEnvironments } from "@/envs";
import { createLiveFeeds, type LiveFeeds } from "@/lib/episodes/live";
import { createRecorder, type Recorder } from "@/lib/episodes/recorder";
import { openStore, type TrajectoryStore } from "@/lib/episodes/store/sqlite";
import { createOrsHandler, hostOptionsFromEnv, type OrsHandler } from "@/lib/ors/host";
import { createServerRegistry, type ServerRegistry } from "@/lib/registry";
import { createRelay, type Relay } from "@/lib/relay";

/** Where the app mounts its ORS host (it also answers the ORS shapes at the root). */
export const ORS_BASE_PATH = "/api/ors";

export interface Playground {
  /** The in-process ORS host (`/api/ors`, the root shapes, and the relay's `local`). */
  readonly host: OrsHandler;
  readonly registry: ServerRegistry;
  readonly relay: Relay;
  readonly store: TrajectoryStore;
  readonly live: LiveFeeds;
  readonly recorder: Recorder;
  /** Stops the recorder, tears the host's sessions down and closes the store. */
  close(): Promise<void>;
}

/** Builds every part, wired together. Tests may build their own with other options. */
export function createPlayground(env: Record<string, string | undefined> = process.env): Playground {
  const host = createOrsHandler(builtinEnvironments, { ...hostOptionsFromEnv(env), basePath: ORS_BASE_PATH });
  const registry = createServerRegistry({ env, localHandler: () => host });
  const relay = createRelay({ registry });
  const store = openStore({ dir: registry.dataDir });
  const live = createLiveFeeds();
  // The built-in host lives in this process: its sessions did not survive a restart.
  store.endRunningOf(
    "local",
    "error",
    Date.now(),
    "the server restarted: the built-in host lost the session",
  );
  const recorder = createRecorder(store, { events: relay.events, live });
  recorder.sweep();
  return {
    host,
    registry,
    relay,
    store,
    live,
    recorder,
    async close() {
      recorder.stop();
      await host.close();
      store.close();
    },
  };
}

const KEY = Symbol.for("ors-playground.playground");

/** The process's playground, built on first use (the recorder then records from the first request). */
export function getPlayground(): Playground {
  const g = globalThis as typeof globalThis & { [KEY]?: Playground };
  g[KEY] ??= createPlayground();
  return g[KEY];
}
