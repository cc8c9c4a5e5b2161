// The run executor of PostgreSQL mode (docs/runs.md "Runs as jobs"): a run's episodes are jobs on
// pg-boss (./job-queue.ts), played by any number of workers (./worker.ts) — this process among them
// unless told not to — on any machine that reaches the database and the servers. Starting a run
// stores and enqueues it; cancelling stops every worker's episodes of it; a dead worker's episodes
// are taken over by the others (./takeover.ts); the worker that settles the last episode marks the
// run done. Nothing here claims a run for one process: the queue is the claim.
import "server-only";
import { FINAL_RUN_STATUSES, type RunRecord, type RunStore } from "@/lib/store/types";
import { modelResource, runResource, serverResource } from "./capacity";
import { EpisodeStop } from "./episode";
import { RunError } from "./errors";
import type { RunExecutor, RunExecutorDeps, RunPlacement } from "./executor";
import type { JobQueue } from "./job-queue";
import { policyFromSpec } from "./policies";
import { progressOf } from "./progress";
import { DEFAULT_MAX_ATTEMPTS } from "./spec";
import { prepareRun } from "./starting";
import { runConfigOf } from "./summary";
import { sweepOrphans } from "./takeover";
import { createRunWorker, type RunWorker } from "./worker";
import type { WorkerVerdicts } from "./worker-verdicts";

export interface QueueExecutorDeps extends RunExecutorDeps {
  queue: JobQueue;
  verdicts: WorkerVerdicts;
  /** This process as a worker (episodes it plays at once), or null: it only enqueues and follows. */
  worker: { slots: number } | null;
  /** A worker whose lease is older than this is dead: its episodes are taken over. */
  leaseMs: number;
  /** How often a worker looks for what dead workers left. */
  sweepMs?: number;
}

/** How long a cancel waits for the episodes playing to end before it marks them cancelled itself. */
const CANCEL_WAIT_MS = 15_000;

/** Resolves once no episode of the run plays (at most CANCEL_WAIT_MS). */
async function untilNoneRunning(store: RunStore, id: string, now: () => number): Promise<void> {
  for (const until = now() + CANCEL_WAIT_MS; now() < until; ) {
    if ((await store.runProgress(id, 0)).counts.running === 0) return;
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Where a run plays and what holds it up: the shared limits, what each worker said of it, why it waits. */
async function placementOf(deps: QueueExecutorDeps, run: RunRecord): Promise<RunPlacement> {
  const config = runConfigOf(run);
  const s = await deps.server(run.server);
  const rows: { kind: "server" | "run" | "model"; name: string; key: string; limit: number | null }[] = [
    {
      kind: "server",
      name: run.server,
      key: serverResource(run.server),
      limit: s.maxSessions ?? config.concurrency,
    },
    { kind: "run", name: run.id, key: runResource(run.id), limit: config.concurrency },
  ];
  if (config.policy.kind === "model" && config.policy.endpoint !== "cli") {
    const e = (() => {
      try {
        return deps.models.get(config.policy.endpoint);
      } catch {
        return null;
      }
    })();
    if (e)
      rows.push({
        kind: "model",
        name: e.name,
        key: modelResource(e.baseUrl),
        limit: e.maxConcurrency ?? null,
      });
  }
  const usage = await deps.gate.usage(rows.map((r) => r.key));
  const workers = await deps.verdicts.of(run.id);
  let waiting: string | null = null;
  if (run.status === "running" && !workers.some((w) => w.canPlay))
    waiting = workers.length
      ? `no worker can play it: ${workers.map((w) => `${w.worker}: ${w.reason}`).join("; ")}`
      : "no worker has taken it up yet: is a worker running (an app replica, or `ors-playground worker`)?";
  return {
    mode: "queue",
    capacity: rows.map((r, i) => ({ ...r, ...usage[i]! })),
    workers,
    waiting,
  };
}

export function createQueueExecutor(deps: QueueExecutorDeps): RunExecutor & { startWorker(): void } {
  const now = deps.now ?? Date.now;
  const log = deps.log ?? ((l: string) => console.error(`[runs] ${l}`));
  const { store, events, queue } = deps;
  const publish = events.publish.bind(events);
  const policyDeps = { store, models: deps.models, cwd: deps.cwd, scriptRoots: deps.scriptRoots };
  const worker: RunWorker | null = deps.worker
    ? createRunWorker({ ...deps, slots: deps.worker.slots, publish, log })
    : null;
  let sweeper: ReturnType<typeof setInterval> | null = null;
  let unsubscribe = () => {};

  const settleIfDone = async (runId: string) => {
    const run = await store.getRun(runId);
    if (run && worker) await worker.settleIfDone(run);
  };

  /** Puts a run's episodes still to play on the queue (its status set to running first). */
  async function enqueue(run: RunRecord) {
    const config = runConfigOf(run);
    await queue.enqueue(run.id, await store.pendingEpisodes(run.id), {
      maxAttempts: config.maxAttempts ?? DEFAULT_MAX_ATTEMPTS,
      timeoutMs: config.timeoutMs,
    });
    publish({ type: "status", runId: run.id, status: "running", error: null, at: now() });
    worker?.nudge();
  }

  return {
    startWorker() {
      if (!worker) return;
      worker.start();
      const sweepDeps = { ...deps, publish, log, settleIfDone };
      // One sweep at a time: a slow database must not stack them up.
      let sweeping = false;
      sweeper = setInterval(() => {
        if (sweeping) return;
        sweeping = true;
        void sweepOrphans(sweepDeps)
          .catch((e: Error) => log(`takeover: ${e.message}`))
          .finally(() => {
            sweeping = false;
          });
      }, deps.sweepMs ?? 2_000);
      sweeper.unref?.();
      // A run cancelled through another replica stops here at once (and at the next look anyway).
      unsubscribe = events.subscribe(null, (e) => {
        if (e.type === "status" && e.status === "cancelled")
          worker.stopRun(e.runId, new EpisodeStop("cancelled", "the run was cancelled"));
      });
    },

    async start(request) {
      const prepared = await prepareRun(deps, policyDeps, request, { instance: null, now: now() });
      // Built to check it here; each worker builds its own.
      await prepared.policy.close?.().catch(() => {});
      const run = await store.createRun(prepared.run);
      if (!(await store.setRunStatus(run.id, "running", now(), { from: ["queued"] })))
        throw new RunError(409, `run ${run.id} cannot start now`);
      await enqueue(run);
      return (await store.getRun(run.id))!;
    },

    async resume(id) {
      const found = await store.getRun(id);
      if (!found) throw new RunError(404, `no run with id "${id}"`);
      if (found.status === "running" || found.status === "queued")
        throw new RunError(409, `run ${id} is ${found.status}: nothing to resume`);
      if (!(await store.pendingEpisodes(id)).length)
        throw new RunError(409, `run ${id} has no episode left to play (it is ${found.status})`);
      const policy = await policyFromSpec(runConfigOf(found).policy, policyDeps);
      await policy.close?.().catch(() => {});
      const from = ["interrupted", "cancelled", "failed", "done"] as const;
      if (!(await store.setRunStatus(id, "running", now(), { from, instance: null })))
        throw new RunError(
          409,
          `run ${id} is ${(await store.getRun(id))?.status ?? "gone"}; it cannot start now`,
        );
      const run = (await store.getRun(id))!;
      await enqueue(run);
      return run;
    },

    async cancel(id) {
      const run = await store.getRun(id);
      if (!run) throw new RunError(404, `no run with id "${id}"`);
      if (!(await store.setRunStatus(id, "cancelled", now(), { from: ["running", "queued"] })))
        throw new RunError(409, `run ${id} is ${run.status}: it cannot be cancelled`);
      publish({ type: "status", runId: id, status: "cancelled", error: null, at: now() });
      await queue.drop(id).catch((e: Error) => log(`run ${id}: could not drop its jobs: ${e.message}`));
      worker?.stopRun(id, new EpisodeStop("cancelled", "the run was cancelled"));
      // The workers playing it end their episodes (cancelled, sessions deleted); a dead one's are marked so.
      await untilNoneRunning(store, id, now);
      await store.setEpisodesStatus(id, ["running"], "cancelled", "the run was cancelled");
      return (await store.getRun(id))!;
    },

    async settled(id) {
      for (;;) {
        const run = await store.getRun(id);
        if (!run || FINAL_RUN_STATUSES.includes(run.status)) return run;
        await new Promise<void>((resolve) => {
          const off = events.subscribe(id, (e) => {
            if (e.type === "status") done();
          });
          const timer = setTimeout(done, 1000);
          function done() {
            clearTimeout(timer);
            off();
            resolve();
          }
        });
      }
    },

    async progress(id) {
      const run = await store.getRun(id);
      return run ? progressOf(store, run, now()) : null;
    },

    isActive: (id) => worker?.playing(id) ?? false,

    placement: (run) => placementOf(deps, run),

    async close() {
      if (sweeper) clearInterval(sweeper);
      unsubscribe();
      await worker?.close();
      await queue.close();
      await deps.gate.close();
    },
  };
}
