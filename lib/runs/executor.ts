// The run executor (docs/runs.md "Running"): starts a run (its tasks resolved against the split,
// its policy built, its record stored), plays its episodes with bounded concurrency (./episode.ts),
// publishes progress on the run events, and cancels, resumes and finishes runs. The API, the CLI
// and the UI all go through this one executor; it runs server-side, so closing a tab changes
// nothing. Built once per process by the composition root; nothing starts on import.
import "server-only";
import { setMaxListeners } from "node:events";
import { isOrsClientError } from "@/lib/ors/client";
import type { RunEpisodeKey, RunRecord, RunStatus } from "@/lib/store/types";
import { type EpisodeDeps, EpisodeStop, playEpisode } from "./episode";
import { RunError } from "./errors";
import type { RunEvents, RunProgress } from "./events";
import type { ModelRegistry } from "./models";
import { policyFromSpec, replaySource } from "./policies";
import type { Policy } from "./policy";
import {
  DEFAULT_EPISODE_TIMEOUT_MS,
  defaultMaxTurns,
  type RunConfig,
  type RunPolicy,
  type RunRequest,
  type TaskSelection,
} from "./spec";
import { runConfigOf } from "./summary";
import { resolveTasks, TaskSelectionError } from "./tasks";

export interface RunExecutorDeps extends EpisodeDeps {
  models: ModelRegistry;
  events: RunEvents;
  /** This process's id in the store (runs it plays carry it). */
  instance: string;
  /** Where script modules are resolved, and the folders they may be in (null: anywhere). */
  cwd: string;
  scriptRoots: readonly string[] | null;
  /** Where problems are reported (never a key: none passes here). */
  log?: (line: string) => void;
}

/** A run to start: the API's request, or the CLI's (whose model policy may name a URL). */
export type StartRun = Omit<RunRequest, "policy"> & { policy: RunPolicy };

export interface RunExecutor {
  /** Validates, stores (`queued`) and starts a run; resolves once it is stored. Throws RunError. */
  start(request: StartRun): Promise<RunRecord>;
  /** Plays the missing episodes of an interrupted or cancelled run. Throws RunError. */
  resume(id: string): Promise<RunRecord>;
  /** Cancels a run: its running episodes end (`cancelled`, sessions deleted), none starts. */
  cancel(id: string): Promise<RunRecord>;
  /** Resolves when this process stops playing the run (at once when it does not play it). */
  settled(id: string): Promise<RunRecord | null>;
  /** The run's progress now. */
  progress(id: string): Promise<RunProgress | null>;
  /** Whether this process is playing the run. */
  isActive(id: string): boolean;
  /** Stops every run this process plays (they become `interrupted`, to be resumed). */
  close(): Promise<void>;
}

interface Active {
  run: RunRecord;
  stop: AbortController;
  done: Promise<void>;
  /** Episode end times of the last half minute (the rate). */
  ends: number[];
  lastPublished: number;
}

const RATE_WINDOW_MS = 30_000;
const PROGRESS_EVERY_MS = 250;
/** How often a playing run checks whether another process cancelled it. */
const STATUS_POLL_MS = 2_000;

export function createRunExecutor(deps: RunExecutorDeps): RunExecutor {
  const now = deps.now ?? Date.now;
  const log = deps.log ?? ((l: string) => console.error(`[runs] ${l}`));
  const active = new Map<string, Active>();
  const { store, events } = deps;

  const policyDeps = { store, models: deps.models, cwd: deps.cwd, scriptRoots: deps.scriptRoots };

  async function progressOf(run: RunRecord, a?: Active): Promise<RunProgress> {
    const t = now();
    const p = await store.runProgress(run.id, t - RATE_WINDOW_MS);
    const c = p.counts;
    const window = a ? Math.min(RATE_WINDOW_MS, Math.max(1, t - (run.startedAt ?? t))) : RATE_WINDOW_MS;
    const ended = a ? a.ends.filter((x) => x >= t - RATE_WINDOW_MS).length : p.endedSince;
    const rate = ended ? ended / (window / 1000) : null;
    const left = c.pending + c.running + c.cancelled + c.interrupted;
    const status = (await store.getRun(run.id))?.status ?? run.status;
    return {
      status,
      total: run.episodes,
      done: c.done,
      errored: c.errored,
      running: c.running,
      pending: c.pending,
      cancelled: c.cancelled,
      interrupted: c.interrupted,
      rate,
      etaMs: rate && status === "running" ? Math.round((left / rate) * 1000) : null,
    };
  }

  async function publishProgress(a: Active, force = false) {
    const t = now();
    if (!force && t - a.lastPublished < PROGRESS_EVERY_MS) return;
    a.lastPublished = t;
    events.publish({ type: "progress", runId: a.run.id, at: t, ...(await progressOf(a.run, a)) });
  }

  /** Sets the status of a run this process plays (not once another process has taken it over). */
  async function setStatus(run: RunRecord, status: RunStatus, error: string | null = null) {
    if (await store.setRunStatus(run.id, status, now(), { error, owner: deps.instance }))
      events.publish({ type: "status", runId: run.id, status, error, at: now() });
  }

  /** Plays `keys` of `run` with `policy`, `concurrency` at a time; then settles the run's status. */
  function launch(run: RunRecord, policy: Policy, keys: RunEpisodeKey[]): Active {
    const config = runConfigOf(run);
    const stop = new AbortController();
    // Every episode playing listens to it.
    setMaxListeners(Math.max(10, config.concurrency * 2), stop.signal);
    const a: Active = { run, stop, done: Promise.resolve(), ends: [], lastPublished: 0 };
    const queue = [...keys];
    const maxTurns = defaultMaxTurns(config.policy);
    const worker = async () => {
      while (queue.length && !stop.signal.aborted) {
        const key = queue.shift()!;
        const startedAt = now();
        // Claimed in the store first: a run another process took over (or cancelled) plays no more here.
        const claimed = await store.claimEpisode(run.id, key, deps.instance, {
          status: "running",
          startedAt,
          endedAt: null,
          trajectoryId: null,
          error: null,
          stop: null,
        });
        if (!claimed) {
          await checkOwnership();
          continue;
        }
        events.publish({
          type: "episode",
          runId: run.id,
          ...key,
          status: "running",
          trajectoryId: null,
          reward: null,
          error: null,
          at: now(),
        });
        let patch: Awaited<ReturnType<typeof playEpisode>>;
        try {
          patch = await playEpisode(deps, {
            run,
            key,
            policy,
            maxTurns,
            timeoutMs: config.timeoutMs,
            stop: stop.signal,
            owner: deps.instance,
            startedAt,
          });
        } catch (err) {
          // The store failed under the episode: record what can be, keep the other workers going.
          patch = {
            status: "errored",
            error: `the episode could not be recorded: ${(err as Error).message}`,
            endedAt: now(),
          };
          log(`run ${run.id}: ${patch.error}`);
        }
        // Written only while this process holds the episode (another may have taken the run over).
        if (!(await store.updateEpisode(run.id, key, patch, { owner: deps.instance }))) continue;
        a.ends.push(now());
        while (a.ends.length && a.ends[0]! < now() - RATE_WINDOW_MS) a.ends.shift();
        events.publish({
          type: "episode",
          runId: run.id,
          ...key,
          status: patch.status!,
          trajectoryId: patch.trajectoryId ?? null,
          reward: patch.reward ?? null,
          error: patch.error ?? null,
          at: now(),
        });
        await publishProgress(a).catch(() => {});
      }
    };
    /**
     * Whether the run is still this process's to play, as the store says; if not, every episode
     * stops: cancelled when it was cancelled, else as lost (interrupted by another process after it
     * found this one dead, taken over, deleted).
     */
    const checkOwnership = async () => {
      const r = await store.getRun(run.id);
      if (stop.signal.aborted || (r?.status === "running" && r.instance === deps.instance)) return;
      if (r?.status === "cancelled" && r.instance === deps.instance)
        stop.abort(new EpisodeStop("cancelled", "the run was cancelled"));
      else
        stop.abort(
          new EpisodeStop(
            "interrupted",
            !r
              ? "the run was deleted"
              : r.instance !== deps.instance
                ? "the run is played by another process now"
                : `the run is ${r.status}`,
            true,
          ),
        );
    };
    // Another process may cancel it (the app, for a run the CLI plays), or take it over after
    // finding this one dead: checked every few seconds.
    const poll = setInterval(() => void checkOwnership().catch(() => {}), STATUS_POLL_MS);
    poll.unref?.();
    a.done = (async () => {
      try {
        await Promise.all(
          Array.from({ length: Math.max(1, Math.min(config.concurrency, keys.length)) }, worker),
        );
        const reason = stop.signal.reason;
        if (!stop.signal.aborted) await setStatus(run, "done");
        else if (reason instanceof EpisodeStop && reason.lost) {
          // Not this process's run any more: whoever has it now says how it stands.
          log(`run ${run.id}: stopped playing it: ${reason.message}`);
        } else if (reason instanceof EpisodeStop && reason.status === "interrupted") {
          await store.setEpisodesStatus(run.id, ["running"], "interrupted", reason.message);
          await setStatus(run, "interrupted", reason.message);
        } else {
          await store.setEpisodesStatus(run.id, ["running"], "cancelled", "the run was cancelled");
          const current = await store.getRun(run.id);
          if (current?.status !== "cancelled") await setStatus(run, "cancelled");
          else events.publish({ type: "status", runId: run.id, status: "cancelled", error: null, at: now() });
        }
      } catch (err) {
        log(`run ${run.id} failed: ${(err as Error).message}`);
        await setStatus(run, "failed", (err as Error).message).catch(() => {});
      } finally {
        clearInterval(poll);
        await policy.close?.().catch(() => {});
        await publishProgress(a, true).catch(() => {});
        active.delete(run.id);
      }
    })();
    active.set(run.id, a);
    return a;
  }

  async function claim(run: RunRecord, from: readonly RunStatus[]): Promise<RunRecord> {
    if (!(await store.setRunStatus(run.id, "running", now(), { from, instance: deps.instance })))
      throw new RunError(
        409,
        `run ${run.id} is ${(await store.getRun(run.id))?.status ?? "gone"}; it cannot start now`,
      );
    events.publish({ type: "status", runId: run.id, status: "running", error: null, at: now() });
    return (await store.getRun(run.id))!;
  }

  /** The split's size, through the relay (so an unknown server or environment says so). */
  async function splitSize(server: string, env: string, split: string): Promise<number> {
    const ors = deps.clientFor(server, { headers: {}, wrapFetch: (f) => f });
    try {
      return (await ors.numTasks(env, split, { signal: AbortSignal.timeout(30_000) })).num_tasks;
    } catch (err) {
      if (isOrsClientError(err)) {
        const status =
          err.kind === "http" && err.status >= 400 && err.status < 500
            ? err.status === 404
              ? 404
              : 400
            : 502;
        throw new RunError(
          status,
          `server "${server}" cannot list the tasks of ${env}/${split}: ${err.detail}`,
        );
      }
      throw new RunError(
        502,
        `server "${server}" cannot list the tasks of ${env}/${split}: ${(err as Error).message}`,
      );
    }
  }

  return {
    async start(request) {
      const size = await splitSize(request.server, request.env, request.split);
      let selection: TaskSelection | undefined = request.tasks;
      if (selection === undefined && request.policy.kind === "replay")
        selection = (await replaySource(request.policy, store)).tasks;
      let tasks: number[];
      try {
        tasks = resolveTasks(selection, size);
      } catch (err) {
        if (err instanceof TaskSelectionError) throw new RunError(400, `tasks: ${err.message}`);
        throw err;
      }
      const policy = await policyFromSpec(request.policy, policyDeps);
      const config: RunConfig = {
        tasks: selection ?? "all",
        concurrency: request.concurrency ?? 4,
        successAt: request.successAt ?? 1,
        timeoutMs: request.timeoutMs ?? DEFAULT_EPISODE_TIMEOUT_MS,
        policy: request.policy,
        policyLabel: policy.label,
      };
      let run = await store.createRun({
        server: request.server,
        env: request.env,
        split: request.split,
        tasks,
        repeats: request.repeats ?? 1,
        config: config as unknown as RunRecord["config"],
        createdAt: now(),
        instance: deps.instance,
      });
      run = await claim(run, ["queued"]);
      launch(run, policy, await store.pendingEpisodes(run.id));
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
      } else events.publish({ type: "status", runId: id, status: "cancelled", error: null, at: now() });
      return (await store.getRun(id))!;
    },

    async settled(id) {
      await active.get(id)?.done;
      return store.getRun(id);
    },

    async progress(id) {
      const run = await store.getRun(id);
      return run ? progressOf(run, active.get(id)) : null;
    },

    isActive: (id) => active.has(id),

    async close() {
      const all = [...active.values()];
      for (const a of all)
        a.stop.abort(new EpisodeStop("interrupted", "the playground stopped while the run was playing"));
      await Promise.all(all.map((a) => a.done));
    },
  };
}
