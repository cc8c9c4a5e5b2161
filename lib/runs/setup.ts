// The runs' parts of one process, wired for the composition root (lib/playground.ts): the capacity
// gate (in memory, or shared through PostgreSQL), the model endpoints behind it, the progress bus,
// and the executor — in process on SQLite, jobs on pg-boss with PostgreSQL, this process a worker
// unless PLAYGROUND_RUN_WORKER=0 (or the caller says it only enqueues).
import "server-only";
import type { ServerRegistry } from "@/lib/registry";
import type { PostgresDatabase } from "@/lib/store/postgres/db";
import type { PostgresNotifier } from "@/lib/store/postgres/notify";
import { type CapacityGate, capacityFetch, createMemoryGate, modelResource } from "./capacity";
import { createPostgresGate } from "./capacity-postgres";
import type { EpisodeDeps } from "./episode";
import type { RunEvents } from "./events";
import type { RunExecutor } from "./executor";
import { createInProcessExecutor } from "./in-process";
import { createJobQueue } from "./job-queue";
import { createModelRegistry, type ModelRegistry } from "./models";
import { createQueueExecutor } from "./queue";
import { memoryVerdicts, postgresVerdicts } from "./worker-verdicts";

export interface RunsSetup {
  env: Record<string, string | undefined>;
  /** The database and its notifications, in PostgreSQL mode. */
  pg: { db: PostgresDatabase; notifier: PostgresNotifier } | null;
  /** The runs' progress events (told to the other replicas in PostgreSQL mode). */
  events: RunEvents;
  episodes: EpisodeDeps;
  registry: Pick<ServerRegistry, "get">;
  instance: string;
  cwd: string;
  scriptRoots: readonly string[] | null;
  /** Runs as jobs: whether this process plays them, its lease, its episodes at once. */
  worker: { enabled: boolean; leaseMs: number; slots: number };
  retryBaseMs?: number;
}

export interface RunsParts {
  runs: RunExecutor;
  models: ModelRegistry;
  gate: CapacityGate;
  /** Starts playing (PostgreSQL mode's worker), once the store is ready. */
  start(): void;
}

export function setupRuns(s: RunsSetup): RunsParts {
  const gate = s.pg ? createPostgresGate(s.pg.db, s.pg.notifier, s.instance) : createMemoryGate();
  // Model endpoints behind the shared capacity: their caps, and a 429 pauses everyone's requests.
  const models = createModelRegistry(s.env, {
    wrapFetch: (e, f) =>
      capacityFetch(gate, modelResource(e.baseUrl), f, {
        maxConcurrent: e.maxConcurrency,
        perMinute: e.perMinute,
        retries: 0,
      }),
  });
  const runEvents = s.events;
  const server = async (name: string) => {
    const entry = await s.registry.get(name);
    return { known: !!entry, maxSessions: entry?.maxSessions ?? null };
  };
  const common = {
    ...s.episodes,
    // Every request to a server waits out a 429's pause, whoever got it.
    wrapServerFetch: (name: string, f: typeof fetch) => capacityFetch(gate, `server:${name}`, f),
    models,
    events: runEvents,
    instance: s.instance,
    cwd: s.cwd,
    scriptRoots: s.scriptRoots,
    gate,
    server,
    ...(s.retryBaseMs !== undefined ? { retryBaseMs: s.retryBaseMs } : {}),
  };
  if (!s.pg) return { runs: createInProcessExecutor(common), models, gate, start() {} };
  const queue = createJobQueue(s.pg.db);
  const runs = createQueueExecutor({
    ...common,
    queue,
    verdicts: s.pg ? postgresVerdicts(s.pg.db) : memoryVerdicts(),
    worker: s.worker.enabled ? { slots: s.worker.slots } : null,
    leaseMs: s.worker.leaseMs,
  });
  return { runs, models, gate, start: () => runs.startWorker() };
}
