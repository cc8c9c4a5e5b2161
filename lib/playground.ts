// The composition root (server-only): builds the app's long-lived parts once per process — the ORS
// host with the environments of an environment source, the server registry, the relay, the
// trajectory store, the live feeds, the recorder, and the servers it runs itself (lib/spawn) — and
// hands them out. Nothing else starts a part, and this is the one module that keeps them on
// globalThis: Next bundles each route separately and dev HMR re-evaluates modules, and both must find
// the same parts. When the source reloads (an edited environment), the host swaps its environments in
// place and the episodes of the old code end; when a spawned server restarts or exits, so do its.
import "server-only";
import { builtinEnvironments } from "@/envs";
import { environmentReloadedError } from "@/lib/environments/reload-notice";
import { type EnvironmentSource, staticEnvironmentSource } from "@/lib/environments/source";
import { createLiveFeeds, type LiveFeeds } from "@/lib/episodes/live";
import { createPostgresLiveFeeds } from "@/lib/episodes/live-postgres";
import { createRecorder, type Recorder } from "@/lib/episodes/recorder";
import { sweepOrphansEvery } from "@/lib/episodes/replicas";
import { dataDir } from "@/lib/episodes/store/db";
import { openTrajectoryStore } from "@/lib/episodes/store/open";
import type { TrajectoryStore } from "@/lib/episodes/store/types";
import { createOrsClient, type OrsClient } from "@/lib/ors/client";
import { createOrsHandler, hostOptionsFromEnv, type OrsHandler } from "@/lib/ors/host";
import { createServerRegistry, type ServerRegistry } from "@/lib/registry";
import { postgresServerPersistence } from "@/lib/registry/postgres-persistence";
import { createRelay, orsPathFromUrl, type Relay } from "@/lib/relay";
import { emptySupervisor, type ServerSupervisor } from "@/lib/spawn/supervisor";
import { serverRestartedError } from "@/lib/spawn/types";

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
  /** What the host serves, and where it comes from (reloads swap the host's environments). */
  readonly environments: EnvironmentSource;
  /** The servers this playground runs itself (`start --spawn`): their processes and logs. */
  readonly spawned: ServerSupervisor;
  /** Where trajectories and added servers are kept: the data folder, or `PostgreSQL at <URL>`. */
  readonly storage: { kind: "sqlite" | "postgres"; where: string };
  /** A typed ORS client for a known server through the relay, in process (recorded like the UI's). */
  clientFor(server: string): OrsClient;
  /** Resolves once the store can be used (a database reached and migrated); rejects saying why. */
  ready(): Promise<void>;
  /** Stops the spawned servers, watching environments and the recorder, tears the host's sessions
   *  down, closes the store. */
  close(): Promise<void>;
}

export interface PlaygroundOptions {
  /** The environments to host (default: the built-ins, never reloaded). */
  environments?: EnvironmentSource;
  /** Servers to run and register (lib/spawn; default none). Started by whoever made it; stopped on close. */
  spawned?: ServerSupervisor;
}

/** Builds every part, wired together. Tests may build their own with other variables. */
export function createPlayground(
  env: Record<string, string | undefined> = process.env,
  options: PlaygroundOptions = {},
): Playground {
  const environments = options.environments ?? staticEnvironmentSource(builtinEnvironments);
  const spawned = options.spawned ?? emptySupervisor();
  const host = createOrsHandler([...environments.current().environments], {
    ...hostOptionsFromEnv(env),
    basePath: ORS_BASE_PATH,
  });
  // PLAYGROUND_DATABASE_URL: trajectories, added servers and live feeds shared through PostgreSQL.
  const dir = dataDir(env as NodeJS.ProcessEnv);
  const opened = openTrajectoryStore(env, { dir });
  const pg = opened.kind === "postgres" ? opened : null;
  const registry = createServerRegistry({
    env,
    dataDir: dir,
    localHandler: () => host,
    persistence: pg ? postgresServerPersistence(pg.db, dir) : undefined,
    spawned,
  });
  const relay = createRelay({ registry });
  const store: TrajectoryStore = opened.store;
  const pgLive = pg ? createPostgresLiveFeeds(pg.db, pg.store) : null;
  const live: LiveFeeds = pgLive ?? createLiveFeeds();
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
    inflightElsewhere: pg ? (id) => pg.store.inflightElsewhere(id) : undefined,
    idleLimitOf: async (server) =>
      server === "local"
        ? host.host.options.idleTimeoutMs
        : ((await registry.get(server))?.idleTimeoutMs ?? null),
  });
  // A reload: the host serves the new code at once; sessions on replaced code end (the host answers
  // their requests 404 "reloaded"), and so do their recorded episodes, with the reason, for every view.
  environments.onReload(async ({ set, changed }) => {
    // Throws (and the source keeps the old code) only if the host refuses the new environments.
    const ended = await host.host.replaceEnvironments([...set.environments]);
    if (ended.length === 0) return;
    try {
      await recorder.idle();
      const at = Date.now();
      for (const sid of ended) {
        const t = await store.findRunning("local", sid);
        if (!t) continue;
        const error = environmentReloadedError(t.env ?? "the environment", changed);
        if (await store.end(t.id, "error", at, error))
          live.publish({ type: "ended", id: t.id, end_reason: "error", error, ended_at: at });
      }
    } catch (e) {
      console.error("[playground] could not record the episodes ended by the reload:", e);
    }
  });
  // A spawned server restarted (files under --watch changed) or exited: its sessions are gone, and
  // so are the recorded episodes running on it, with the reason, for every view.
  spawned.onSessionsLost(async (server, error) => {
    await recorder.idle();
    const at = Date.now();
    for (const id of await store.endRunningOf(server, "error", at, error))
      live.publish({ type: "ended", id, end_reason: "error", error, ended_at: at });
  });
  // A database is ready once reached and migrated (the server entries report a failure at start).
  const ready = pg ? Promise.all([pg.db.ready, pgLive?.ready]).then(() => {}) : Promise.resolve();
  // The built-in host lives in this process: its sessions did not survive a restart.
  ready.then(
    () =>
      store
        .endRunningOf(
          "local",
          "error",
          Date.now(),
          "the server restarted: the built-in host lost the session",
        )
        // So do the servers this process runs itself (started anew with it).
        .then(() =>
          Promise.all(
            spawned
              .entries()
              .map(({ name }) =>
                store.endRunningOf(
                  name,
                  "error",
                  Date.now(),
                  serverRestartedError(name, "the playground was started again"),
                ),
              ),
          ),
        )
        .then(() => recorder.sweep())
        .catch((e: Error) =>
          console.error(`[playground] could not end the episodes lost by a restart: ${e.message}`),
        ),
    () => {},
  );
  // Replicas on one database: the built-in host's episodes of a replica that stopped are over.
  const stopOrphanSweep = pg ? sweepOrphansEvery(pg.store, live) : () => {};
  return {
    host,
    registry,
    relay,
    store,
    live,
    recorder,
    environments,
    spawned,
    storage: { kind: opened.kind, where: opened.where },
    clientFor,
    ready: () => ready,
    async close() {
      await spawned.stop();
      environments.close();
      recorder.stop();
      stopOrphanSweep();
      await recorder.idle();
      await host.close();
      await pgLive?.close();
      await store.close();
    },
  };
}

const KEY = Symbol.for("ors-playground.playground");

type WithPlayground = typeof globalThis & { [KEY]?: Playground };

/** The process's playground, built on first use (the recorder then records from the first request). */
export function getPlayground(): Playground {
  const g = globalThis as WithPlayground;
  g[KEY] ??= createPlayground();
  return g[KEY];
}

/**
 * Builds the process's playground from `options` before anything asks for it: the server entries
 * (lib/app-server) call this with a reloadable source, and Next's bundles then find it here.
 */
export function initPlayground(options: PlaygroundOptions): Playground {
  const g = globalThis as WithPlayground;
  if (g[KEY]) throw new Error("initPlayground: the playground of this process is already built");
  g[KEY] = createPlayground(process.env, options);
  return g[KEY];
}
