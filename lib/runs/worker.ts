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
import { type EpisodeDeps, EpisodeStop, playEpisode } from "./episode";
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

export function createRunWorker(deps: WorkerDeps): RunWorker {
  const now = deps.now ?? Date.now;
  const prepared = new Map<string, Promise<Prepared | null>>();
  const playing = new Map<string, number>();
  let inFlight = 0;
  let closing = false;
  let wake: (() => void) | null = null;
  let loop: Promise<void> = Promise.resolve();
  let holders = 0;
  const blocked = new Set<string>();

  /** The run's policy, built once here; null (and the reason noted) when this worker cannot play it. */
  const prepare = (run: RunRecord): Promise<Prepared | null> => {
    let p = prepared.get(run.id);
    if (!p) {
      p = (async () => {
        const config = runConfigOf(run);
        try {
          const s = await deps.server(run.server);
          if (!s.known)
            throw new Error(
              `the server "${run.server}" is not known to this worker (ORS_SERVERS, or added in the app)`,
            );
          const policy = await policyFromSpec(config.policy, deps);
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
      prepared.set(run.id, p);
    }
    return p;
  };

  /** Forgets runs that no longer play, stopping whatever of them still plays here. */
  const forget = async (live: Set<string>) => {
    for (const [id, p] of prepared) {
      if (live.has(id)) continue;
      prepared.delete(id);
      const r = await p;
      if (!r) continue;
      if (!r.stop.signal.aborted) r.stop.abort(new EpisodeStop("cancelled", "the run was cancelled"));
      void r.policy.close?.().catch(() => {});
    }
  };

  async function settleIfDone(run: RunRecord): Promise<void> {
    const p = await deps.store.runProgress(run.id, 0);
    const c = p.counts;
    if (c.pending + c.running + c.interrupted + c.cancelled > 0) return;
    if (await deps.store.setRunStatus(run.id, "done", now(), { from: ["running"] })) {
      deps.publish({ type: "status", runId: run.id, status: "done", error: null, at: now() });
      await deps.queue.drop(run.id).catch(() => {});
    }
  }

  /** Plays one job's episode: claimed in the store (its attempt named by the job), played, settled. */
  async function play(run: RunRecord, p: Prepared, job: EpisodeJob, holder: string): Promise<void> {
    const key: RunEpisodeKey = { taskIndex: job.taskIndex, repeat: job.repeat };
    const config = runConfigOf(run);
    const startedAt = now();
    const episode = { type: "episode" as const, runId: run.id, ...key };
    try {
      const claimed = await deps.store.claimEpisode(
        run.id,
        key,
        deps.instance,
        {
          status: "running",
          startedAt,
          endedAt: null,
          trajectoryId: null,
          error: null,
          stop: null,
          outcome: null,
        },
        { jobId: job.id },
      );
      // Settled already (played elsewhere before that worker died), or the run stopped: nothing to play.
      if (!claimed) return void (await deps.queue.complete(job));
      deps.publish({
        ...episode,
        status: "running",
        trajectoryId: null,
        reward: null,
        error: null,
        at: now(),
      });
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
      await deps.gate.release(holder).catch(() => {});
      deps.publish({
        ...episode,
        status,
        trajectoryId: end.trajectoryId ?? null,
        reward: end.reward ?? null,
        error: end.error ?? null,
        at: now(),
      });
      await settleIfDone(run);
    } catch (err) {
      deps.log(`run ${run.id}, task ${key.taskIndex} repeat ${key.repeat}: ${(err as Error).message}`);
      await deps.queue.fail(job, (err as Error).message).catch(() => {});
    } finally {
      // Given back before the run is said done (released twice is no harm).
      await deps.gate.release(holder).catch(() => {});
    }
  }

  /** Notes (for the run page) which resources this worker waits for. */
  const noteBlocked = (now: Set<string>) => {
    for (const k of blocked) if (!now.has(k)) deps.gate.waiting(k, -1);
    for (const k of now) if (!blocked.has(k)) deps.gate.waiting(k, 1);
    blocked.clear();
    for (const k of now) blocked.add(k);
  };

  /** One look for work: runs the queue plays, round the list, an episode each while slots are free. */
  async function tick(offset: number): Promise<boolean> {
    const runs = (await deps.store.listRuns({ status: "running", limit: 1000 })).items.filter(
      (r) => r.instance === null,
    );
    await forget(new Set(runs.map((r) => r.id)));
    const waitingFor = new Set<string>();
    let started = false;
    for (let i = 0; i < runs.length && inFlight < deps.slots && !closing; i++) {
      const run = runs[(i + offset) % runs.length]!;
      const p = await prepare(run);
      if (!p || p.stop.signal.aborted) continue;
      if (deps.gate.pausedUntil(serverResource(run.server))) continue;
      const config = runConfigOf(run);
      const s = await deps.server(run.server);
      const claims: CapacityClaim[] = [
        { key: serverResource(run.server), limit: s.maxSessions ?? config.concurrency },
        { key: runResource(run.id), limit: config.concurrency },
      ];
      const holder = `${deps.instance}:${++holders}`;
      if (!(await deps.gate.tryAcquire(claims, holder))) {
        waitingFor.add(claims[0]!.key);
        continue;
      }
      const [job] = await deps.queue.fetch(run.id, 1);
      if (!job) {
        await deps.gate.release(holder);
        continue;
      }
      started = true;
      inFlight++;
      playing.set(run.id, (playing.get(run.id) ?? 0) + 1);
      void play(run, p, job, holder).finally(() => {
        inFlight--;
        const n = (playing.get(run.id) ?? 1) - 1;
        if (n > 0) playing.set(run.id, n);
        else playing.delete(run.id);
        wake?.();
      });
    }
    noteBlocked(waitingFor);
    return started;
  }

  async function run() {
    for (let offset = 0; !closing; offset++) {
      let started = false;
      try {
        started = await tick(offset);
      } catch (err) {
        deps.log(`the worker could not look for work: ${(err as Error).message}`);
      }
      if (started && inFlight < deps.slots) continue;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(done, deps.pollMs ?? 500);
        function done() {
          clearTimeout(timer);
          wake = null;
          resolve();
        }
        wake = done;
      });
    }
  }

  return {
    start() {
      loop = run();
    },
    nudge: () => wake?.(),
    stopRun(runId, why) {
      void prepared.get(runId)?.then((p) => {
        if (p && !p.stop.signal.aborted) p.stop.abort(why);
      });
    },
    playing: (runId) => playing.has(runId),
    settleIfDone,
    async close() {
      closing = true;
      wake?.();
      await loop;
      for (const p of prepared.values()) {
        const r = await p;
        if (r && !r.stop.signal.aborted)
          r.stop.abort(new EpisodeStop("interrupted", "the worker playing it stopped"));
      }
      while (inFlight > 0) await sleep(20);
      noteBlocked(new Set());
      await forget(new Set());
    },
  };
}
