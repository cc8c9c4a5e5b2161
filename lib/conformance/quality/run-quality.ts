// Plays what the quality checks analyse (docs/check.md "Environment quality"), server-side: a seeded
// sample of a split's tasks played by the runs' own policies through the run executor — random valid
// inputs, the author's oracle (a script policy) — and each episode's actions replayed, every episode
// recorded through the relay like any run's; then the tasks' objects, and the analysis.
import "server-only";
import { isOrsClientError, type OrsClient } from "@/lib/ors/client";
import type { Playground } from "@/lib/playground";
import type { RelayEvents } from "@/lib/relay/events";
import { isRunError, RunError } from "@/lib/runs/errors";
import type { RunEvents } from "@/lib/runs/events";
import type { RunExecutor, StartRun } from "@/lib/runs/executor";
import type { RunPolicy } from "@/lib/runs/spec";
import { sampleIndexes } from "@/lib/runs/tasks";
import type { PlaygroundStore } from "@/lib/store/types";
import { analyzeQuality, bestReward, qualitySummary, stoppedText } from "./analyze";
import type { CallFailure, PlayedEpisode, QualityData } from "./played";
import { reportTimes, stopWhen } from "./stop";
import {
  DEFAULT_QUALITY_MAX_TIME_MS,
  DEFAULT_QUALITY_SEED,
  DEFAULT_QUALITY_TASKS,
  MAX_QUALITY_TASKS,
  type PlayRole,
  QUALITY_EPISODE_TIMEOUT_MS,
  type QualityPlay,
  type QualityProgress,
  type QualityReport,
  type QualitySample,
} from "./types";

const CONCURRENCY = 4;

export interface QualityDeps {
  runs: Pick<RunExecutor, "start" | "settled" | "cancel">;
  runEvents: Pick<RunEvents, "subscribe">;
  store: Pick<PlaygroundStore, "runEpisodes" | "get">;
  relayEvents: Pick<RelayEvents, "subscribe">;
  /** A client of a known server through the relay. */
  clientFor(server: string): OrsClient;
}

/** The deps from the playground's parts (its executor, store, relay and clients). */
export function qualityDeps(
  pg: Pick<Playground, "runs" | "runEvents" | "store" | "relay" | "clientFor">,
): QualityDeps {
  return {
    runs: pg.runs,
    runEvents: pg.runEvents,
    store: pg.store,
    relayEvents: pg.relay.events,
    clientFor: (server) => pg.clientFor(server),
  };
}

export interface QualityOptions {
  /** The server as the playground knows it. */
  server: string;
  /** The environment (default: the first with tasks). */
  env?: string | null;
  /** The split (default: the environment's first). */
  split?: string;
  /** Tasks to sample (default DEFAULT_QUALITY_TASKS; all when the split is smaller). */
  tasks?: number;
  /** The seed of the sample and of the random inputs. */
  seed?: number;
  /** The oracle: a script policy module (docs/runs.md "script"). */
  oracle?: string;
  /** Check ids waived. */
  allow?: readonly string[];
  signal?: AbortSignal;
  maxTimeMs?: number;
  episodeTimeoutMs?: number;
  onProgress?(p: QualityProgress): void;
}

/** Why the checks cannot play at all: an unknown environment or split (4xx), a server that fails (502). */
function cannot(err: unknown, what: string): RunError {
  if (isRunError(err)) return err;
  if (isOrsClientError(err)) {
    const status = err.kind === "http" && err.status >= 400 && err.status < 500 ? 400 : 502;
    return new RunError(status, `${what}: ${err.detail}`);
  }
  return new RunError(502, `${what}: ${(err as Error)?.message ?? String(err)}`);
}

export interface Target {
  env: string;
  split: string;
  size: number;
  tools: string[];
}

/**
 * The environment and split the checks play (the first environment with tasks, its first split,
 * unless named) and its size; a RunError when there is none (4xx) or the server fails (502). The
 * probes (lib/conformance/gaming) pick theirs the same way.
 */
export async function target(
  ors: OrsClient,
  o: Pick<QualityOptions, "env" | "split">,
  signal: AbortSignal,
): Promise<Target> {
  let env = o.env ?? null;
  if (!env) {
    const envs = await ors.listEnvironments({ signal }).catch((e) => {
      throw cannot(e, "the environments could not be listed");
    });
    for (const name of envs) {
      const splits = await ors.splits(name, { signal }).catch(() => []);
      if (splits.length) {
        env = name;
        break;
      }
    }
    if (!env) throw new RunError(400, "no environment of the server has a split to sample");
  }
  const splits = await ors.splits(env, { signal }).catch((e) => {
    throw cannot(e, `the splits of ${env} could not be read`);
  });
  const split = o.split ?? splits[0]?.name;
  if (!split) throw new RunError(400, `${env} has no split`);
  if (!splits.some((s) => s.name === split))
    throw new RunError(
      400,
      `${env} has no split ${JSON.stringify(split)} (it has ${splits.map((s) => s.name).join(", ")})`,
    );
  const size = (
    await ors.numTasks(env, split, { signal }).catch((e) => {
      throw cannot(e, `the tasks of ${env}/${split} could not be counted`);
    })
  ).num_tasks;
  if (size < 1) throw new RunError(400, `${env}/${split} has no tasks`);
  const tools = (await ors.tools(env, { signal }).catch(() => ({ tools: [] }))).tools.map((t) => t.name);
  return { env, split, size, tools };
}

/** Runs `fn` over `items`, `n` at a time. */
async function pool<T, R>(items: readonly T[], n: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(n, items.length) }, async () => {
      while (next < items.length) {
        const i = next++;
        out[i] = await fn(items[i]!);
      }
    }),
  );
  return out;
}

/**
 * Runs the quality checks on one environment of a known server and returns their report. Throws a
 * RunError when they cannot play at all (unknown environment or split: 4xx; an oracle that cannot
 * load: 400/403; the server failing: 502); never for what the environment does once playing.
 *
 * @example
 * const report = await runQualityChecks(qualityDeps(getPlayground()), {
 *   server: "local",
 *   env: "math",
 *   oracle: "./oracle.ts",
 * });
 */
export async function runQualityChecks(deps: QualityDeps, o: QualityOptions): Promise<QualityReport> {
  const started = Date.now();
  const { stop, dispose } = stopWhen(o.signal, o.maxTimeMs ?? DEFAULT_QUALITY_MAX_TIME_MS);
  const failures: CallFailure[] = [];
  const unsubscribe = deps.relayEvents.subscribe((e) => {
    if (
      e.type === "request_failed" &&
      e.server === o.server &&
      e.endpoint === "call" &&
      e.sid &&
      e.status >= 500 &&
      e.status !== 502 &&
      e.status !== 504 &&
      failures.length < 1000
    )
      failures.push({ sid: e.sid, status: e.status, detail: e.detail });
  });
  try {
    const ors = deps.clientFor(o.server);
    o.onProgress?.({ phase: "sampling", done: 0, total: 0 });
    const t = await target(ors, o, stop.signal);
    const seed = o.seed ?? DEFAULT_QUALITY_SEED;
    const requested = Math.min(o.tasks ?? DEFAULT_QUALITY_TASKS, MAX_QUALITY_TASKS);
    const indexes = sampleIndexes(t.size, Math.min(requested, t.size), seed);

    const plays: { role: PlayRole; runId: string; label: string }[] = [];
    const start = async (role: PlayRole, policy: RunPolicy) => {
      const request: StartRun = {
        server: o.server,
        env: t.env,
        split: t.split,
        ...(policy.kind === "replay" ? {} : { tasks: indexes }),
        concurrency: CONCURRENCY,
        timeoutMs: o.episodeTimeoutMs ?? QUALITY_EPISODE_TIMEOUT_MS,
        // Tagged, so the runs list tells them from ordinary runs; one attempt: what failed is a finding.
        tags: ["quality"],
        maxAttempts: 1,
        policy,
      };
      const run = await deps.runs.start(request);
      plays.push({
        role,
        runId: run.id,
        label: (run.config as { policyLabel?: string }).policyLabel ?? role,
      });
      return run.id;
    };
    // Plays runs to their end (or cancels them when stopped), reporting episodes as they end.
    const play = async (phase: QualityProgress["phase"], ids: string[]) => {
      const total = ids.length * indexes.length;
      let done = 0;
      o.onProgress?.({ phase, done, total });
      const offs = ids.map((id) =>
        deps.runEvents.subscribe(id, (e) => {
          if (e.type === "episode" && e.status !== "running") o.onProgress?.({ phase, done: ++done, total });
        }),
      );
      const cancel = () => {
        for (const id of ids) void deps.runs.cancel(id).catch(() => {});
      };
      stop.signal.addEventListener("abort", cancel, { once: true });
      if (stop.signal.aborted) cancel();
      try {
        await Promise.all(ids.map((id) => deps.runs.settled(id)));
      } finally {
        stop.signal.removeEventListener("abort", cancel);
        for (const off of offs) off();
      }
    };

    // The oracle first: a module that cannot load fails before anything plays.
    const oracleRun = o.oracle ? await start("oracle", { kind: "script", module: o.oracle }) : null;
    let randomRun: string;
    try {
      randomRun = await start("random", { kind: "random", seed });
    } catch (err) {
      if (oracleRun) await deps.runs.cancel(oracleRun).catch(() => {});
      throw err;
    }
    await play("playing", oracleRun ? [randomRun, oracleRun] : [randomRun]);
    // The replays; one that cannot start (the server went away) leaves what was played to analyse.
    let unreplayed: string | null = null;
    if (!stop.signal.aborted) {
      const replays: string[] = [];
      try {
        replays.push(await start("random-replay", { kind: "replay", run: randomRun }));
        if (oracleRun) replays.push(await start("oracle-replay", { kind: "replay", run: oracleRun }));
      } catch (err) {
        if (!isRunError(err)) throw err;
        unreplayed = `the episodes could not be replayed: ${err.detail}`;
      }
      await play("replaying", replays);
    }

    o.onProgress?.({ phase: "reading", done: 0, total: 0 });
    const episodes = async (role: PlayRole): Promise<PlayedEpisode[] | null> => {
      const run = plays.find((p) => p.role === role);
      if (!run) return null;
      const list = await deps.store.runEpisodes(run.runId);
      return pool(list, 8, async (e) => ({
        task: e.taskIndex,
        repeat: e.repeat,
        status: e.status,
        error: e.error,
        reward: e.reward,
        trajectory: e.trajectoryId ? await deps.store.get(e.trajectoryId) : null,
      }));
    };
    const tasks = await pool(indexes, CONCURRENCY, async (index) => ({
      index,
      task: await ors
        .task(t.env, t.split, index, { signal: AbortSignal.timeout(30_000) })
        .then((r) => r.task)
        .catch(() => null),
    }));
    const data: QualityData = {
      env: t.env,
      split: t.split,
      tasks,
      tools: t.tools,
      random: (await episodes("random")) ?? [],
      randomReplay: (await episodes("random-replay")) ?? [],
      oracle: await episodes("oracle"),
      oracleReplay: oracleRun ? ((await episodes("oracle-replay")) ?? []) : null,
      callFailures: failures,
    };
    const stopped = stop.signal.aborted ? stoppedText(stop.signal) : unreplayed;
    const results = analyzeQuality(data, o.allow ?? []);
    const sample = sampleOf(t, data, { requested, seed, indexes, oracle: o.oracle ?? null, plays });
    return {
      server: o.server,
      ...reportTimes(started),
      sample,
      error: stopped,
      bestReward: bestReward(data),
      results,
      summary: qualitySummary(results, stopped),
    };
  } finally {
    dispose();
    unsubscribe();
  }
}

function sampleOf(
  t: Target,
  data: QualityData,
  s: {
    requested: number;
    seed: number;
    indexes: number[];
    oracle: string | null;
    plays: { role: PlayRole; runId: string; label: string }[];
  },
): QualitySample {
  const byRole: Record<PlayRole, PlayedEpisode[] | null> = {
    random: data.random,
    "random-replay": data.randomReplay,
    oracle: data.oracle,
    "oracle-replay": data.oracleReplay,
  };
  const plays: QualityPlay[] = s.plays.map((p) => {
    const list = byRole[p.role] ?? [];
    return {
      ...p,
      episodes: list.length,
      done: list.filter((e) => e.status === "done").length,
      errored: list.filter((e) => e.status === "errored").length,
    };
  });
  const calls = new Map<string, number>(t.tools.map((name) => [name, 0]));
  let total = 0;
  for (const list of Object.values(byRole))
    for (const e of list ?? [])
      for (const step of e.trajectory?.steps ?? []) {
        total++;
        calls.set(step.tool, (calls.get(step.tool) ?? 0) + 1);
      }
  return {
    environment: t.env,
    split: t.split,
    splitSize: t.size,
    requested: s.requested,
    seed: s.seed,
    tasks: s.indexes,
    oracle: s.oracle,
    plays,
    calls: total,
    tools: [...calls].map(([name, n]) => ({ name, calls: n })),
  };
}
