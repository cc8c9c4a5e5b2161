// The composition root (server-only): builds the app's long-lived parts once per process — the ORS
// host with the environments of an environment source, the server registry, the relay, the store
// (SQLite, or PostgreSQL shared by replicas), the live feeds, the recorder, this process's lease,
// the model endpoints, the run executor, the servers it runs itself (lib/spawn) and the MCP bridge
// (lib/mcp) — and hands them out. Nothing else starts a part, and this is the one module that keeps them on globalThis: Next
// bundles each route separately and dev HMR re-evaluates modules, and both must find the same parts.
// When the source reloads (an edited environment), the host swaps its environments in place and the
// episodes of the old code end; when a spawned server restarts or exits, so do its episodes.
import { type Env, loadConfig, type PlaygroundConfig, processEnv } from "@/lib/config";
import "server-only";
import { randomBytes } from "node:crypto";
import os from "node:os";
import path from "node:path";
import { builtinEnvironments } from "@/envs";
import { environmentReloadedError } from "@/lib/environments/reload-notice";
import { type EnvironmentSource, staticEnvironmentSource } from "@/lib/environments/source";
import { createEpisodeLifecycle, type EpisodeLifecycle } from "@/lib/episodes/lifecycle";
import { createLiveFeeds, type LiveFeeds } from "@/lib/episodes/live";
import { createPostgresLiveFeeds } from "@/lib/episodes/live-postgres";
import { createRecorder, type Recorder } from "@/lib/episodes/recorder";
import { createMcpHttpHandler, type McpHttpHandler } from "@/lib/mcp/http";
import { createOrsClient, type OrsClient } from "@/lib/ors/client";
import { createOrsHandler, hostOptionsFromEnv, type OrsHandler } from "@/lib/ors/host";
import { createServerRegistry, type ServerRegistry } from "@/lib/registry";
import { postgresServerPersistence } from "@/lib/registry/postgres-persistence";
import { createRelay, orsPathFromUrl, type Relay } from "@/lib/relay";
import { createRunEvents, type RunEvents } from "@/lib/runs/events";
import { createPostgresRunEvents } from "@/lib/runs/events-postgres";
import type { RunExecutor } from "@/lib/runs/executor";
import type { ModelRegistry } from "@/lib/runs/models";
import { setupRuns } from "@/lib/runs/setup";
import { emptySupervisor, type ServerSupervisor } from "@/lib/spawn/supervisor";
import { serverRestartedError } from "@/lib/spawn/types";
import { holdLease, type LeaseOptions } from "@/lib/store/leases";
import { openPlaygroundStore } from "@/lib/store/open";
import { createPostgresNotifier } from "@/lib/store/postgres/notify";
import type { PlaygroundStore, RecoveredOrphans, StoreInstance } from "@/lib/store/types";

/** Where the app mounts its ORS host (it also answers the ORS shapes at the root). */
export const ORS_BASE_PATH = "/api/ors";

export interface Playground {
  /** The settings it was built with, read and checked once (lib/config.ts). */
  readonly config: PlaygroundConfig;
  /** The in-process ORS host (`/api/ors`, the root shapes, and the relay's `local`). */
  readonly host: OrsHandler;
  readonly registry: ServerRegistry;
  readonly relay: Relay;
  readonly store: PlaygroundStore;
  readonly live: LiveFeeds;
  readonly recorder: Recorder;
  /** This process in the store: whose episodes and runs are recovered if it dies. */
  readonly instance: StoreInstance;
  /** A server's idle limit when the playground knows it (its built-in host's, a per-server setting), else null. */
  idleLimitOf(server: string): Promise<number | null>;
  /** The model endpoints runs and the episode page may call (PLAYGROUND_MODELS). */
  readonly models: ModelRegistry;
  /** Runs: the executor, and the bus of their progress. */
  readonly runs: RunExecutor;
  readonly runEvents: RunEvents;
  /** What the host serves, and where it comes from (reloads swap the host's environments). */
  readonly environments: EnvironmentSource;
  /** The servers this playground runs itself (`start --spawn`): their processes and logs. */
  readonly spawned: ServerSupervisor;
  /** The MCP bridge of every known server (`/api/servers/<name>/mcp`), playing through the relay. */
  readonly mcp: McpHttpHandler;
  /** Where trajectories, runs and added servers are kept: the data folder, or `PostgreSQL at <URL>`. */
  readonly storage: { kind: "sqlite" | "postgres"; where: string };
  /**
   * A typed ORS client for a known server through the relay, in process (recorded like the UI's).
   * With options, a client of its own: `headers` on every request, its fetch wrapped.
   */
  clientFor(server: string, options?: ClientOptions): OrsClient;
  /**
   * Resolves once the store can be used (a database reached, migrated and listened to) and what
   * stopped processes left in it has been recovered; rejects when the store cannot be used, saying
   * why (the server entries and the CLI report it and stop).
   */
  readonly ready: Promise<void>;
  /** Stops the runs, the spawned servers, watching environments and the recorder, tears the host's
   *  sessions down, closes the store. */
  close(): Promise<void>;
}

export interface ClientOptions {
  headers?: Record<string, string>;
  wrapFetch?: (f: typeof fetch) => typeof fetch;
}

export interface PlaygroundOptions {
  /** The environments to host (default: the built-ins, never reloaded). */
  environments?: EnvironmentSource;
  /**
   * Folders the runs' script modules may be loaded from (default: the working folder, the folder of
   * ORS_ENVS's module, and PLAYGROUND_SCRIPT_ROOTS); null: anywhere (the CLI's own command line).
   */
  scriptRoots?: readonly string[] | null;
  /** The lease's timings (lib/store/leases.ts; tests shorten them). */
  lease?: Pick<LeaseOptions, "everyMs" | "staleMs">;
  /** Servers to run and register (lib/spawn; default none). Started by whoever made it; stopped on close. */
  spawned?: ServerSupervisor;
  /** The runs' first wait before an episode is played again after an infrastructure failure (tests shorten it). */
  runRetryBaseMs?: number;
  /**
   * With PostgreSQL: whether this process plays runs' episodes from the queue (default:
   * PLAYGROUND_RUN_WORKER); false for a process that only enqueues and follows (`run --detach`).
   */
  runWorker?: boolean;
}

/** The default folders of script modules (see PlaygroundOptions.scriptRoots). */
export function scriptRootsFromEnv(env: Record<string, string | undefined>, cwd = process.cwd()): string[] {
  const roots = [cwd];
  if (env.ORS_ENVS?.trim()) roots.push(path.dirname(path.resolve(cwd, env.ORS_ENVS.trim())));
  for (const r of (env.PLAYGROUND_SCRIPT_ROOTS ?? "").split(path.delimiter))
    if (r.trim()) roots.push(path.resolve(cwd, r.trim()));
  return roots;
}

/**
 * The store and what shares its database: the live feeds and the runs' progress, told to the other
 * replicas through LISTEN/NOTIFY when it is PostgreSQL (PLAYGROUND_DATABASE_URL).
 */
function openStorage(env: Env, dir: string, instance: StoreInstance) {
  const opened = openPlaygroundStore(env, { dir, instance });
  const pg = opened.kind === "postgres" ? opened : null;
  const notifier = pg ? createPostgresNotifier(pg.db) : null;
  return {
    opened,
    store: opened.store as PlaygroundStore,
    persistence: pg ? postgresServerPersistence(pg.db, dir) : undefined,
    /** The database and its notifications, for the runs' queue and shared capacity (lib/runs/setup.ts). */
    pg: pg && notifier ? { db: pg.db, notifier } : null,
    live: (pg && notifier
      ? createPostgresLiveFeeds(pg.db, pg.store, { notifier })
      : createLiveFeeds()) as LiveFeeds,
    runEvents: (pg && notifier ? createPostgresRunEvents(pg.db, notifier) : createRunEvents()) as RunEvents,
    /** Reached, migrated and listened to (a failure rejects: the server entries report it at start). */
    ready: pg ? Promise.all([pg.db.ready, notifier?.ready]).then(() => {}) : Promise.resolve(),
    async close() {
      await notifier?.close();
      await opened.store.close();
    },
  };
}

/** Typed ORS clients of known servers through the relay, in process (recorded like the UI's). */
function relayClients(relay: Relay): Playground["clientFor"] {
  const clients = new Map<string, OrsClient>();
  const relayClient = (server: string, o: ClientOptions = {}): OrsClient => {
    const relayFetch: typeof fetch = async (input, init) => {
      const req = new Request(input, init);
      return relay.handle(req, server, orsPathFromUrl(req.url, server));
    };
    return createOrsClient({
      baseUrl: `http://playground.internal/api/servers/${encodeURIComponent(server)}`,
      fetch: o.wrapFetch ? o.wrapFetch(relayFetch) : relayFetch,
      ...(o.headers ? { headers: o.headers } : {}),
    });
  };
  return (server, o) => {
    if (o) return relayClient(server, o);
    let client = clients.get(server);
    if (!client) {
      client = relayClient(server);
      clients.set(server, client);
    }
    return client;
  };
}

interface Ending {
  store: PlaygroundStore;
  recorder: Recorder;
  lifecycle: EpisodeLifecycle;
}

/**
 * Episodes whose sessions went away with their server's code: a reload (the host serves the new code
 * at once; sessions on replaced code end — the host answers their requests 404 "reloaded") and a
 * spawned server that restarted or exited. Their recorded episodes end with the reason, for every view.
 */
function endEpisodesOfGoneSessions(
  e: Ending,
  host: OrsHandler,
  environments: EnvironmentSource,
  spawned: ServerSupervisor,
): void {
  environments.onReload(async ({ set, changed }) => {
    // Throws (and the source keeps the old code) only if the host refuses the new environments.
    const ended = await host.host.replaceEnvironments([...set.environments]);
    if (ended.length === 0) return;
    try {
      await e.recorder.idle();
      const at = Date.now();
      for (const sid of ended) {
        const t = await e.store.findRunning("local", sid);
        const error = environmentReloadedError(t?.env ?? "the environment", changed);
        if (t) await e.lifecycle.end(t.id, "error", at, error);
      }
    } catch (err) {
      console.error("[playground] could not record the episodes ended by the reload:", err);
    }
  });
  spawned.onSessionsLost(async (server, error) => {
    await e.recorder.idle();
    await e.lifecycle.endRunningOf(server, "error", Date.now(), error);
  });
}

/**
 * What processes that died left in the store (this one's built-in host sessions after a restart,
 * steps in flight, runs), recovered at start and on every beat of this process's lease (FORMAT.md
 * "After a crash"; the store's "Leases"), told to every view.
 */
function tellRecovered(e: Ending, live: LiveFeeds, runEvents: RunEvents) {
  return async (r: RecoveredOrphans) => {
    for (const x of r.ended) e.lifecycle.told(x.id, x.reason, x.at, x.error);
    for (const id of new Set(r.steps.map((x) => x.id))) {
      const t = await e.store.get(id);
      for (const step of t?.steps ?? [])
        if (r.steps.some((x) => x.id === id && x.index === step.index))
          live.publish({ type: "step", id, step });
    }
    for (const runId of r.runs) {
      const run = await e.store.getRun(runId);
      if (run)
        runEvents.publish({ type: "status", runId, status: run.status, error: run.error, at: Date.now() });
    }
  };
}

/** A server's idle limit when the playground knows it: its built-in host's, or a per-server setting. */
function idleLimits(host: OrsHandler, registry: ServerRegistry) {
  return async (server: string) =>
    server === "local"
      ? host.host.options.idleTimeoutMs
      : ((await registry.get(server))?.idleTimeoutMs ?? null);
}

/** Builds every part, wired together. Tests may build their own with other variables. */
export function createPlayground(env: Env, options: PlaygroundOptions = {}): Playground {
  // Every setting checked first: a bad value stops the start with its name and what it expects.
  const config = loadConfig(env);
  const environments = options.environments ?? staticEnvironmentSource(builtinEnvironments);
  const spawned = options.spawned ?? emptySupervisor();
  const host = createOrsHandler([...environments.current().environments], {
    ...hostOptionsFromEnv(env),
    basePath: ORS_BASE_PATH,
    // The sessions the relay (the UI, runs) starts on the built-in host: reachable only through it.
    relayKey: randomBytes(24).toString("base64url"),
  });
  const instance: StoreInstance = {
    id: `i${randomBytes(9).toString("base64url")}`,
    pid: process.pid,
    host: os.hostname(),
  };
  const storage = openStorage(env, config.dataDir, instance);
  const { store, live, runEvents } = storage;
  const registry = createServerRegistry({
    env,
    dataDir: config.dataDir,
    localHandler: () => host,
    persistence: storage.persistence,
    spawned,
  });
  const relay = createRelay({ registry, timeoutMs: config.relayTimeoutMs });
  const clientFor = relayClients(relay);
  const idleLimitOf = idleLimits(host, registry);
  const recorder = createRecorder(store, {
    events: relay.events,
    maxStepBytes: config.maxStepBytes,
    exchangeLimit: config.exchangeLimit,
    ...(config.idleTimeoutMs !== null && { idleMs: config.idleTimeoutMs }),
    live,
    checkLiveness: (server, sid) =>
      void clientFor(server)
        .ping(sid)
        .catch(() => {}),
    // The idle sweep deletes the sessions of the episodes it ends, through the relay like any client.
    closeSession: (server, sid) => clientFor(server).delete(sid),
    idleLimitOf,
  });
  const ending: Ending = {
    store,
    recorder,
    lifecycle: createEpisodeLifecycle(store, (e) => live.publish(e)),
  };
  endEpisodesOfGoneSessions(ending, host, environments, spawned);
  // MCP clients play a known server's environments through the relay, so every episode is recorded.
  const mcp = createMcpHttpHandler({
    open: async (server) =>
      (await registry.get(server)) ? { server, client: (headers) => clientFor(server, { headers }) } : null,
  });
  const { runs, models, ...runParts } = setupRuns({
    env,
    pg: storage.pg,
    events: runEvents,
    episodes: { store, recorder, clientFor },
    registry,
    instance: instance.id,
    cwd: process.cwd(),
    scriptRoots: options.scriptRoots === undefined ? scriptRootsFromEnv(env) : options.scriptRoots,
    worker: {
      enabled: options.runWorker ?? config.runs.worker,
      leaseMs: config.runs.leaseMs,
      slots: config.runs.workerSlots,
    },
    ...(options.runRetryBaseMs !== undefined ? { retryBaseMs: options.runRetryBaseMs } : {}),
  });
  const lease = holdLease(store, { ...options.lease, onRecovered: tellRecovered(ending, live, runEvents) });
  // Once the store can be used: the lease, then what this start ended — the sessions of the servers
  // this process runs itself (started anew with it) — and the episodes idle meanwhile.
  const ready = storage.ready.then(async () => {
    await lease.start();
    for (const { name } of spawned.entries()) {
      const error = serverRestartedError(name, "the playground was started again");
      await ending.lifecycle.endRunningOf(name, "error", Date.now(), error).catch(() => {});
    }
    // A worker plays runs' episodes once its lease says it lives (PostgreSQL mode).
    runParts.start();
    await recorder.sweep().catch((e: Error) => console.error(`[playground] could not sweep: ${e.message}`));
  });
  ready.catch(() => {});
  return {
    config,
    host,
    registry,
    relay,
    store,
    live,
    recorder,
    instance,
    models,
    runs,
    runEvents,
    environments,
    spawned,
    mcp,
    storage: { kind: storage.opened.kind, where: storage.opened.where },
    clientFor,
    idleLimitOf,
    ready,
    async close() {
      lease.stop();
      await ready.catch(() => {});
      await mcp.close();
      await runs.close();
      await spawned.stop();
      environments.close();
      recorder.stop();
      await recorder.idle();
      await host.close();
      await storage.close();
    },
  };
}

const KEY = Symbol.for("ors-playground.playground");

type WithPlayground = typeof globalThis & { [KEY]?: Playground };

/** The process's playground, built on first use (the recorder then records from the first request). */
export function getPlayground(): Playground {
  const g = globalThis as WithPlayground;
  g[KEY] ??= createPlayground(processEnv());
  return g[KEY];
}

/**
 * Waits (at most `timeoutMs`) until what the process's playground has taken to record is written:
 * a second Ctrl-C or SIGTERM during shutdown exits after this rather than at once, so work already
 * handed to the recorder is not dropped. Resolves false when it had to give up waiting.
 */
export async function settleBeforeExit(timeoutMs = 10_000): Promise<boolean> {
  const pg = (globalThis as WithPlayground)[KEY];
  if (!pg) return true;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), timeoutMs);
  });
  try {
    return await Promise.race([pg.recorder.idle().then(() => true), late]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Builds the process's playground from `options` before anything asks for it: the server entries
 * (lib/app-server) call this with a reloadable source, and Next's bundles then find it here.
 */
export function initPlayground(options: PlaygroundOptions): Playground {
  const g = globalThis as WithPlayground;
  if (g[KEY]) throw new Error("initPlayground: the playground of this process is already built");
  g[KEY] = createPlayground(processEnv(), options);
  return g[KEY];
}
