// The in-process run executor (docs/runs.md "Who plays a run"), the embedded default's: a run is
// played by the process that started it, which claims it in the store as it stores it; its
// episodes are played by a pool in this process (./pool.ts), while the store is watched for a
// cancel or a takeover (./ownership.ts); then the run settles (./settle.ts). Built once per process
// by the composition root; nothing starts on import.
import "server-only";
import { setMaxListeners } from "node:events";
import type { RunEpisodeKey, RunRecord, RunStatus } from "@/lib/store/types";
import { runResource, serverResource } from "./capacity";
import { EpisodeStop } from "./episode";
import { RunError } from "./errors";
import type { RunExecutor, RunExecutorDeps } from "./executor";
import { watchOwnership } from "./ownership";
import { policyFromSpec } from "./policies";
import type { Policy } from "./policy";
import { playPool } from "./pool";
import { createRateWindow, progressOf } from "./progress";
import { settleRun } from "./settle";
import { DEFAULT_MAX_ATTEMPTS, defaultMaxTurns } from "./spec";
import { prepareRun } from "./starting";
import { runConfigOf } from "./summary";

interface Active {
  stop: AbortController;
  done: Promise<void>;
  rate: ReturnType<typeof createRateWindow>;
  lastPublished: number;
}

const PROGRESS_EVERY_MS = 250;

export function createInProcessExecutor(deps: RunExecutorDeps): RunExecutor {
  const now = deps.now ?? Date.now;
  const log = deps.log ?? ((l: string) => console.error(`[runs] ${l}`));
  const active = new Map<string, Active>();
  const { store, events } = deps;
  const publish = events.publish.bind(events);
  const policyDeps = { store, models: deps.models, cwd: deps.cwd, scriptRoots: deps.scriptRoots };
  const settleDeps = { store, instance: deps.instance, now, publish, log };

  async function publishProgress(run: RunRecord, a: Active, force = false) {
    const t = now();
    if (!force && t - a.lastPublished < PROGRESS_EVERY_MS) return;
    a.lastPublished = t;
    publish({ type: "progress", runId: run.id, at: t, ...(await progressOf(store, run, t, a.rate)) });
  }

  /** A run that failed as a whole: said in the log, stored, and told to its watchers. */
  async function markFailed(run: RunRecord, error: string) {
    log(`run ${run.id} failed: ${error}`);
    if (await store.setRunStatus(run.id, "failed", now(), { error }).catch(() => false))
      publish({ type: "status", runId: run.id, status: "failed", error, at: now() });
  }

  /** Plays `keys` of `run` with `policy`; then settles the run's status. */
  function launch(run: RunRecord, policy: Policy, keys: RunEpisodeKey[]): void {
    const config = runConfigOf(run);
    const stop = new AbortController();
    // Every episode playing listens to it.
    setMaxListeners(Math.max(10, config.concurrency * 2), stop.signal);
    const a: Active = { stop, done: Promise.resolve(), rate: createRateWindow(now), lastPublished: 0 };
    const ownership = watchOwnership(store, run.id, deps.instance, stop);
    const pool = playPool(
      { ...deps, publish, log, maxSessions: async (server) => (await deps.server(server)).maxSessions },
      {
        run,
        policy,
        keys,
        concurrency: config.concurrency,
        maxTurns: defaultMaxTurns(config.policy),
        timeoutMs: config.timeoutMs,
        maxAttempts: config.maxAttempts ?? DEFAULT_MAX_ATTEMPTS,
        stop: stop.signal,
        onRefused: ownership.check,
        onEnded: () => {
          a.rate.ended();
          void publishProgress(run, a).catch(() => {});
        },
      },
    );
    a.done = (async () => {
      try {
        await pool;
        await settleRun(settleDeps, run, stop.signal);
      } catch (err) {
        await markFailed(run, (err as Error).message);
      } finally {
        ownership.close();
        await policy.close?.().catch(() => {});
        await publishProgress(run, a, true).catch(() => {});
        active.delete(run.id);
      }
    })();
    active.set(run.id, a);
  }

  async function claim(run: RunRecord, from: readonly RunStatus[]): Promise<RunRecord> {
    if (!(await store.setRunStatus(run.id, "running", now(), { from, instance: deps.instance })))
      throw new RunError(
        409,
        `run ${run.id} is ${(await store.getRun(run.id))?.status ?? "gone"}; it cannot start now`,
      );
    publish({ type: "status", runId: run.id, status: "running", error: null, at: now() });
    return (await store.getRun(run.id))!;
  }

  return {
    async start(request) {
      const prepared = await prepareRun(deps, policyDeps, request, { instance: deps.instance, now: now() });
      const run = await claim(await store.createRun(prepared.run), ["queued"]);
      launch(run, prepared.policy, await store.pendingEpisodes(run.id));
      return run;
    },

    async resume(id) {
      const found = await store.getRun(id);
      if (!found) throw new RunError(404, `no run with id "${id}"`);
      if (active.has(id) || found.status === "running" || found.status === "queued")
        throw new RunError(409, `run ${id} is ${found.status}: nothing to resume`);
      const keys = await store.pendingEpisodes(id);
      if (!keys.length)
        throw new RunError(409, `run ${id} has no episode left to play (it is ${found.status})`);
      const policy = await policyFromSpec(runConfigOf(found).policy, policyDeps);
      const run = await claim(found, ["interrupted", "cancelled", "failed", "done"]);
      launch(run, policy, keys);
      return run;
    },

    async cancel(id) {
      const run = await store.getRun(id);
      if (!run) throw new RunError(404, `no run with id "${id}"`);
      if (run.status !== "running" && run.status !== "queued")
        throw new RunError(409, `run ${id} is ${run.status}: it cannot be cancelled`);
      // Stored first, so a process playing it elsewhere (the CLI) stops too.
      await store.setRunStatus(id, "cancelled", now(), { from: ["running", "queued"] });
      const a = active.get(id);
      if (a) {
        a.stop.abort(new EpisodeStop("cancelled", "the run was cancelled"));
        await a.done;
      } else publish({ type: "status", runId: id, status: "cancelled", error: null, at: now() });
      return (await store.getRun(id))!;
    },

    async settled(id) {
      await active.get(id)?.done;
      return store.getRun(id);
    },

    async progress(id) {
      const run = await store.getRun(id);
      return run ? progressOf(store, run, now(), active.get(id)?.rate) : null;
    },

    isActive: (id) => active.has(id),

    async placement(run) {
      const config = runConfigOf(run);
      const limit = (await deps.server(run.server)).maxSessions;
      const rows = [
        { kind: "server" as const, name: run.server, key: serverResource(run.server), limit },
        { kind: "run" as const, name: run.id, key: runResource(run.id), limit: config.concurrency },
      ];
      const usage = await deps.gate.usage(rows.map((r) => r.key));
      return {
        mode: "in-process",
        capacity: rows.map((r, i) => ({ ...r, ...usage[i]! })),
        workers: [],
        waiting: null,
      };
    },

    async close() {
      const all = [...active.values()];
      for (const a of all)
        a.stop.abort(new EpisodeStop("interrupted", "the playground stopped while the run was playing"));
      await Promise.all(all.map((a) => a.done));
    },
  };
}
