// The composition root (server-only): builds the app's long-lived parts once per process — the ORS
// host with the built-in environments, the server registry, the relay, the trajectory store, the
// live feeds and the recorder — and hands them out. Nothing else starts a part, and this is the one
// module that keeps them on globalThis: Next bundles each route separately and dev HMR re-evaluates
// modules, and both must find the same parts.
import "server-only";
import { builtinEnvironments } from "@/envs";
import { createLiveFeeds, type LiveFeeds } from "@/lib/episodes/live";
import { createRecorder, type Recorder } from "@/lib/episodes/recorder";
import { openStore } from "@/lib/episodes/store/sqlite";
import type { TrajectoryStore } from "@/lib/episodes/store/types";
import { createOrsClient, type OrsClient } from "@/lib/ors/client";
import { createOrsHandler, hostOptionsFromEnv, type OrsHandler } from "@/lib/ors/host";
import { createServerRegistry, type ServerRegistry } from "@/lib/registry";
import { createRelay, orsPathFromUrl, type Relay } from "@/lib/relay";

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
  /** A typed ORS client for a known server through the relay, in process (recorded like the UI's). */
  clientFor(server: string): OrsClient;
  /** Stops the recorder, tears the host's sessions down and closes the store. */
  close(): Promise<void>;
}

/** Builds every part, wired together. Tests may build their own with other variables. */
export function createPlayground(env: Record<string, string | undefined> = process.env): Playground {
  const host = createOrsHandler(builtinEnvironments, { ...hostOptionsFromEnv(env), basePath: ORS_BASE_PATH });
  const registry = createServerRegistry({ env, localHandler: () => host });
  const relay = createRelay({ registry });
  const store = openStore({ dir: registry.dataDir });
  const live = createLiveFeeds();
  const clients = new Map<string, OrsClient>();
  const clientFor = (server: string): OrsClient => {
    let client = clients.get(server);
    if (!client) {
      const base = `http://playground.internal/api/servers/${encodeURIComponent(server)}`;
      client = createOrsClient({
        baseUrl: base,
        fetch: async (input, init) => {
          const req = new Request(input, init);
          return relay.handle(req, server, orsPathFromUrl(req.url, server));
        },
      });
      clients.set(server, client);
    }
    return client;
  };
  const recorder = createRecorder(store, {
    events: relay.events,
    live,
    checkLiveness: (server, sid) =>
      void clientFor(server)
        .ping(sid)
        .catch(() => {}),
    idleLimitOf: async (server) =>
      server === "local"
        ? host.host.options.idleTimeoutMs
        : ((await registry.get(server))?.idleTimeoutMs ?? null),
  });
  // The built-in host lives in this process: its sessions did not survive a restart.
  void store
    .endRunningOf("local", "error", Date.now(), "the server restarted: the built-in host lost the session")
    .then(() => recorder.sweep());
  return {
    host,
    registry,
    relay,
    store,
    live,
    recorder,
    clientFor,
    async close() {
      recorder.stop();
      await recorder.idle();
      await host.close();
      await store.close();
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
