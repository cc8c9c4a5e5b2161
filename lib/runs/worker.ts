// A worker of the runs' job queue (docs/runs.md "Runs as jobs"): every app replica (unless
// PLAYGROUND_RUN_WORKER=0) and every `ors-playground worker` runs one. It looks at the runs the queue
// plays, takes only those it can play (their server known here, their model endpoint configured,
// their script loadable: ./worker-verdicts.ts says why not), and, within the shared capacity
// (./capacity.ts: the server's sessions, the run's concurrency), fetches episodes' jobs and plays
// them with the same code as the in-process executor (./episode.ts). An attempt that ends with an
// infrastructure outcome fails its job, so pg-boss plays it again after its backoff, anywhere.
import "server-only";
import { setMaxListeners } from "node:events";
import { sleep } from "@/lib/ors/protocol";
import type { RunEpisodeKey, RunRecord } from "@/lib/store/types";
import { type CapacityClaim, type CapacityGate, runResource, serverResource } from "./capacity";
import { type EpisodeDeps, EpisodeStop, playEpisode, runningPatch } from "./episode";
import type { RunEvent } from "./events";
import type { EpisodeJob, JobQueue } from "./job-queue";
import type { ModelRegistry } from "./models";
import { policyFromSpec } from "./policies";
import type { Policy } from "./policy";
import { DEFAULT_MAX_ATTEMPTS, defaultMaxTurns } from "./spec";
import { runConfigOf } from "./summary";
import type { WorkerVerdicts } from "./worker-verdicts";

export interface WorkerDeps extends EpisodeDeps {
  /** This worker's id: its store instance (its lease says it lives). */
  instance: string;
  queue: JobQueue;
  gate: CapacityGate;
  verdicts: WorkerVerdicts;
  models: ModelRegistry;
  cwd: string;
  scriptRoots: readonly string[] | null;
  /** Whether this process knows the server, and the cap on its sessions (`maxSessions`) when one is set. */
  server(name: string): Promise<{ known: boolean; maxSessions: number | null }>;
  publish(e: RunEvent): void;
  log(line: string): void;
  /** Episodes this worker plays at once, across runs. */
  slots: number;
  /** How often it looks for work when there was none. */
  pollMs?: number;
}

export interface RunWorker {
  start(): void;
  /** Looks for work now (a run was enqueued, or capacity was freed). */
  nudge(): void;
  /** Stops the run's episodes playing here (cancelled, or gone). */
  stopRun(runId: string, why: EpisodeStop): void;
  /** Whether episodes of the run play here now. */
  playing(runId: string): boolean;
  /** After an episode settled (here or by a takeover): marks the run done once nothing is left. */
  settleIfDone(run: RunRecord): Promise<void>;
  /** Stops looking for work and interrupts what plays here (its jobs are played again elsewhere). */
  close(): Promise<void>;
}

/** What this worker holds for a run it plays. */
interface Prepared {
  policy: Policy;
  stop: AbortController;
}

/** A worker's state, shared by its steps below. */
interface Worker {
  deps: WorkerDeps;
  now: () => number;
  prepared: Map<string, Promise<Prepared | null>>;
  /** Episodes playing here, per run. */
  playing: Map<string, number>;
  inFlight: number;
  closing: boolean;
  wake: (() => void) | null;
  holders: number;
  /** The resources this worker waits for now (the run page's "waiting"). */
  blocked: Set<string>;
}

/** The run's policy, built once here; null (and the reason noted) when this worker cannot play it. */
function prepare(w: Worker, run: RunRecord): Promise<Prepared | null> {
  const { deps } = w;
  let p = w.prepared.get(run.id);
  if (!p) {
    p = (async () => {
      try {
        const s = await deps.server(run.server);
        if (!s.known)
          throw new Error(
            `the server "${run.server}" is not known to this worker (ORS_SERVERS, or added in the app)`,
          );
        const policy = await policyFromSpec(runConfigOf(run).policy, deps);
        const stop = new AbortController();
        setMaxListeners(Math.max(10, deps.slots * 2), stop.signal);
        await deps.verdicts.note(run.id, deps.instance, true, null);
        return { policy, stop };
      } catch (err) {
        const reason = (err as { detail?: string }).detail ?? (err as Error).message;
        await deps.verdicts.note(run.id, deps.instance, false, reason).catch(() => {});
        return null;
      }
    })();
    w.prepared.set(run.id, p);
  }
  return p;
}

/** Forgets runs that no longer play, stopping whatever of them still plays here. */
async function forget(w: Worker, live: Set<string>): Promise<void> {
  for (const [id, p] of w.prepared) {
    if (live.has(id)) continue;
    w.prepared.delete(id);
    const r = await p;
    if (!r) continue;
    if (!r.stop.signal.aborted) r.stop.abort(new EpisodeStop("cancelled", "the run was cancelled"));
    void r.policy.close?.().catch(() => {});
  }
}

/** Marks `run` done once no episode is left to play (whoever settled the last one). */
async function settleIfDone(w: Worker, run: RunRecord): Promise<void> {
  const { deps, now } = w;
  const c = (await deps.store.runProgress(run.id, 0)).counts;
  if (c.pending + c.running + c.interrupted + c.cancelled > 0) return;
  if (await deps.store.setRunStatus(run.id, "done", now(), { from: ["running"] })) {
    deps.publish({ type: "status", runId: run.id, status: "done", error: null, at: now() });
    await deps.queue.drop(run.id).catch(() => {});
  }
}

/** Plays one job's episode: claimed in the store (its attempt named by the job), played, settled. */
async function play(w: Worker, run: RunRecord, p: Prepared, job: EpisodeJob, holder: string): Promise<void> {
  const { deps, now } = w;
  const key: RunEpisodeKey = { taskIndex: job.taskIndex, repeat: job.repeat };
  const config = runConfigOf(run);
  const startedAt = now();
  const episode = { type: "episode" as const, runId: run.id, ...key };
  try {
    const claimed = await deps.store.claimEpisode(run.id, key, deps.instance, runningPatch(startedAt), {
      jobId: job.id,
    });
    if (!claimed) {
      // Played by another worker now (this job's id is its job's too: a job failed as abandoned
      // while its slow worker still claimed it): that worker settles the job, so it is left alone.
      // Settled already, or the run stopped: nothing to play, the job is done.
      const last = (await deps.store.runAttempts(run.id, key)).at(-1);
      if (last && last.outcome === null && last.worker !== deps.instance) return;
      return void (await deps.queue.complete(job));
    }
    deps.publish({ ...episode, status: "running", trajectoryId: null, reward: null, error: null, at: now() });
    const end = await playEpisode(deps, {
      run,
      key,
      policy: p.policy,
      maxTurns: defaultMaxTurns(config.policy),
      timeoutMs: config.timeoutMs,
      stop: p.stop.signal,
      owner: deps.instance,
      startedAt,
    });
    const status = await deps.store.endAttempt(run.id, key, end, {
      owner: deps.instance,
      maxAttempts: config.maxAttempts ?? DEFAULT_MAX_ATTEMPTS,
    });
    // Null: taken over meanwhile (this worker was found dead); whoever did that settled the job.
    if (status === null) return;
    if (status === "pending" || status === "interrupted")
      await deps.queue.fail(job, end.error ?? end.outcome);
    else await deps.queue.complete(job);
    // Given back before the run is said done.
    await deps.gate.release(holder).catch(() => {});
    const { trajectoryId = null, reward = null, error = null } = end;
    deps.publish({ ...episode, status, trajectoryId, reward, error, at: now() });
    await settleIfDone(w, run);
  } catch (err) {
    deps.log(`run ${run.id}, task ${key.taskIndex} repeat ${key.repeat}: ${(err as Error).message}`);
    await deps.queue.fail(job, (err as Error).message).catch(() => {});
  } finally {
    await deps.gate.release(holder).catch(() => {});
  }
}

/** Notes (for the run page) which resources this worker waits for. */
function noteBlocked(w: Worker, now: Set<string>): void {
  for (const k of w.blocked) if (!now.has(k)) w.deps.gate.waiting(k, -1);
  for (const k of now) if (!w.blocked.has(k)) w.deps.gate.waiting(k, 1);
  w.blocked = new Set(now);
}

/** Takes one episode of `run` when its capacity allows and its queue has one; whether it did. */
async function takeOne(w: Worker, run: RunRecord, waitingFor: Set<string>): Promise<boolean> {
  const { deps } = w;
  const p = await prepare(w, run);
  if (!p || p.stop.signal.aborted || deps.gate.pausedUntil(serverResource(run.server))) return false;
  const config = runConfigOf(run);
  const claims: CapacityClaim[] = [
    {
      key: serverResource(run.server),
      limit: (await deps.server(run.server)).maxSessions ?? config.concurrency,
    },
    { key: runResource(run.id), limit: config.concurrency },
  ];
  const holder = `${deps.instance}:${++w.holders}`;
  if (!(await deps.gate.tryAcquire(claims, holder))) {
    waitingFor.add(claims[0]!.key);
    return false;
  }
  const [job] = await deps.queue.fetch(run.id, 1);
  if (!job) {
    await deps.gate.release(holder);
    return false;
  }
  w.inFlight++;
  w.playing.set(run.id, (w.playing.get(run.id) ?? 0) + 1);
  void play(w, run, p, job, holder).finally(() => {
    w.inFlight--;
    const n = (w.playing.get(run.id) ?? 1) - 1;
    if (n > 0) w.playing.set(run.id, n);
    else w.playing.delete(run.id);
    w.wake?.();
  });
  return true;
}

/** One look for work: the runs the queue plays, round the list, an episode each while slots are free. */
async function tick(w: Worker, offset: number): Promise<boolean> {
  const { items } = await w.deps.store.listRuns({ status: "running", limit: 1000 });
  const runs = items.filter((r) => r.instance === null);
  await forget(w, new Set(runs.map((r) => r.id)));
  const waitingFor = new Set<string>();
  let started = false;
  for (let i = 0; i < runs.length && w.inFlight < w.deps.slots && !w.closing; i++)
    if (await takeOne(w, runs[(i + offset) % runs.length]!, waitingFor)) started = true;
  noteBlocked(w, waitingFor);
  return started;
}

/** Looks for work until closed: at once again after it started something, else after a pause or a wake. */
async function loop(w: Worker): Promise<void> {
  for (let offset = 0; !w.closing; offset++) {
    let started = false;
    try {
      started = await tick(w, offset);
    } catch (err) {
      w.deps.log(`the worker could not look for work: ${(err as Error).message}`);
    }
    if (started && w.inFlight < w.deps.slots) continue;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(done, w.deps.pollMs ?? 500);
      function done() {
        clearTimeout(timer);
        w.wake = null;
        resolve();
      }
      w.wake = done;
    });
  }
}

export function createRunWorker(deps: WorkerDeps): RunWorker {
  const w: Worker = {
    deps,
    now: deps.now ?? Date.now,
    prepared: new Map(),
    playing: new Map(),
    inFlight: 0,
    closing: false,
    wake: null,
    holders: 0,
    blocked: new Set(),
  };
  let running: Promise<void> = Promise.resolve();
  return {
    start() {
      running = loop(w);
    },
    nudge: () => w.wake?.(),
    stopRun(runId, why) {
      void w.prepared.get(runId)?.then((p) => {
        if (p && !p.stop.signal.aborted) p.stop.abort(why);
      });
    },
    playing: (runId) => w.playing.has(runId),
    settleIfDone: (run) => settleIfDone(w, run),
    async close() {
      w.closing = true;
      w.wake?.();
      await running;
      for (const p of w.prepared.values()) {
        const r = await p;
        if (r && !r.stop.signal.aborted)
          r.stop.abort(new EpisodeStop("interrupted", "the worker playing it stopped"));
      }
      while (w.inFlight > 0) await sleep(20);
      noteBlocked(w, new Set());
      await forget(w, new Set());
    },
  };
}
