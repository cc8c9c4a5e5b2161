// `check --probe` played (docs/check.md "Can the reward be gamed?"), server-side: the reference —
// the oracle played as a run of the playground (recorded), a baseline run, or golden episodes — then
// every probe's attempts on the sampled tasks at the server's own URL, the analysis, and each
// finding's first episodes replayed through the relay so they are recorded and linked.
import "server-only";
import { setMaxListeners } from "node:events";
import { createOrsClient, type OrsClient } from "@/lib/ors/client";
import type { JsonObject, ToolSpec } from "@/lib/ors/protocol";
import type { Playground } from "@/lib/playground";
import { RunError } from "@/lib/runs/errors";
import type { RunExecutor } from "@/lib/runs/executor";
import { sampleIndexes } from "@/lib/runs/tasks";
import type { PlaygroundStore } from "@/lib/store/types";
import type { Trajectory } from "@/lib/trajectory/schema";
import { qualitySummary, stoppedText } from "../quality/analyze";
import { target } from "../quality/run-quality";
import { reportTimes, stopWhen } from "../quality/stop";
import {
  DEFAULT_QUALITY_MAX_TIME_MS,
  DEFAULT_QUALITY_SEED,
  DEFAULT_QUALITY_TASKS,
  MAX_QUALITY_TASKS,
  trajectoryRef,
} from "../quality/types";
import { analyzeProbes } from "./analyze";
import { createLeanFetch } from "./lean-fetch";
import { planAttempts, referencesOf, type TaskReference } from "./plans";
import { type PlayedAttempt, playAttempt, playAttempts } from "./play";
import { type ProbeReference, type ProbeReport, type ProbeResult, RECORDED_EVIDENCE } from "./types";

const CONCURRENCY = 8;

export interface ProbeDeps {
  runs: Pick<RunExecutor, "start" | "settled" | "cancel">;
  store: Pick<PlaygroundStore, "getRun" | "runEpisodes" | "get" | "findBySession">;
  recorder: { idle(): Promise<void> };
  /** A client of a known server through the relay (what it plays is recorded). */
  clientFor(server: string): OrsClient;
}

export function probeDeps(pg: Pick<Playground, "runs" | "store" | "recorder" | "clientFor">): ProbeDeps {
  return { runs: pg.runs, store: pg.store, recorder: pg.recorder, clientFor: (s) => pg.clientFor(s) };
}

export interface ProbeOptions {
  /** The server as the playground knows it (the oracle and the findings' episodes are recorded there). */
  server: string;
  /** Its own URL, where the probes play (unrecorded: thousands of short episodes). */
  url: string;
  apiKey?: string;
  fetch?: typeof fetch;
  env?: string | null;
  split?: string;
  tasks?: number;
  seed?: number;
  /** The reference: an oracle (a script policy module), a recorded run's id, or golden episodes. */
  oracle?: string;
  baseline?: string;
  golden?: { file: string; trajectories: Trajectory[] };
  allow?: readonly string[];
  signal?: AbortSignal;
  maxTimeMs?: number;
  onProgress?(p: { phase: "reference" | "probing" | "recording"; done: number; total: number }): void;
}

async function trajectoriesOf(deps: ProbeDeps, runId: string): Promise<Trajectory[]> {
  const out: Trajectory[] = [];
  for (const e of await deps.store.runEpisodes(runId)) {
    const t = e.trajectoryId ? await deps.store.get(e.trajectoryId) : null;
    if (t) out.push(t);
  }
  return out;
}

/** Where the reference comes from, and the environment and split it names when none is given. */
async function referenceSource(deps: ProbeDeps, o: ProbeOptions) {
  if (o.baseline !== undefined) {
    const run = await deps.store.getRun(o.baseline);
    if (!run) throw new RunError(400, `--baseline: no run with id "${o.baseline}" in the playground's store`);
    return {
      env: o.env ?? run.env,
      split: o.split ?? run.split,
      trajectories: await trajectoriesOf(deps, run.id),
      runId: run.id,
    };
  }
  if (o.golden) {
    const first = o.golden.trajectories.find((t) => t.env && t.task && "split" in t.task);
    if (!first) throw new RunError(400, `--golden ${o.golden.file}: no episode of a split's task`);
    const split = first.task && "split" in first.task ? first.task.split : undefined;
    return {
      env: o.env ?? first.env,
      split: o.split ?? split,
      trajectories: o.golden.trajectories,
      runId: null,
    };
  }
  if (o.oracle === undefined)
    throw new RunError(400, "the probes need a reference: --oracle, --baseline or --golden");
  return { env: o.env ?? null, split: o.split, trajectories: null, runId: null };
}

/** The oracle played on `tasks` as a run (recorded), cancelled when `stop` aborts. */
async function playOracle(
  deps: ProbeDeps,
  o: ProbeOptions,
  at: { env: string; split: string },
  tasks: number[],
  stop: AbortSignal,
) {
  const run = await deps.runs.start({
    server: o.server,
    env: at.env,
    split: at.split,
    tasks,
    concurrency: CONCURRENCY,
    timeoutMs: 60_000,
    policy: { kind: "script", module: o.oracle! },
  });
  const cancel = () => void deps.runs.cancel(run.id).catch(() => {});
  stop.addEventListener("abort", cancel, { once: true });
  try {
    await deps.runs.settled(run.id);
  } finally {
    stop.removeEventListener("abort", cancel);
  }
  return { runId: run.id, trajectories: await trajectoriesOf(deps, run.id) };
}

/** A finding's first episodes replayed through the relay: each evidence gets its recording. */
async function recordEvidence(
  deps: ProbeDeps,
  o: ProbeOptions,
  at: { env: string; split: string },
  results: ProbeResult[],
  signal: AbortSignal,
) {
  const relay = deps.clientFor(o.server);
  for (const r of results.filter((x) => x.outcome === "finding"))
    for (const e of r.evidence.slice(0, RECORDED_EVIDENCE)) {
      const calls = e.calls.map((c, i) => ({
        ...c,
        role: i === e.calls.length - 1 ? ("probe" as const) : ("setup" as const),
      }));
      const played = await playAttempt(
        relay,
        at,
        // Every call is replayed, those after the episode's end too (after-finished's are the point).
        {
          probe: r.id,
          task: e.task,
          variant: e.variant,
          counts: "after-end",
          best: e.best,
          calls: () => calls,
        },
        signal,
      ).catch(() => null);
      if (!played?.sid) continue;
      await deps.recorder.idle();
      const t = await deps.store.findBySession(o.server, played.sid);
      const step = e.calls.findIndex((c) => c.tool === e.call?.tool && c.input === e.call?.input);
      if (t) e.trajectory = trajectoryRef(t.id, step >= 0 ? step + 1 : null);
    }
}

/** The sampled tasks' references, task objects and tools: what the plans need. */
async function planAll(
  ors: OrsClient,
  at: { env: string; split: string },
  refs: TaskReference[],
  seed: number,
  signal: AbortSignal,
) {
  const tools = new Map<string, ToolSpec>(
    ((await ors.tools(at.env, { signal }).catch(() => ({ tools: [] }))).tools as ToolSpec[]).map((t) => [
      t.name,
      t,
    ]),
  );
  const specs = await Promise.all(
    refs.map((r) =>
      ors.task(at.env, at.split, r.task, { signal }).then(
        (x) => x.task as JsonObject,
        () => null,
      ),
    ),
  );
  return refs.flatMap((ref, i) => {
    const own = ref.tools ? new Map(ref.tools.map((t) => [t.name, t])) : tools;
    return planAttempts({
      ref,
      spec: specs[i] ?? null,
      tools: own,
      others: refs.filter((x) => x !== ref),
      seed,
    });
  });
}

/**
 * Runs the probes on one environment of a server and returns their report. Throws a RunError when
 * they cannot play at all (no reference, an unknown environment or split: 4xx; the server failing:
 * 502); never for what the environment does once playing.
 */
export async function runProbes(deps: ProbeDeps, o: ProbeOptions): Promise<ProbeReport> {
  const started = Date.now();
  const { stop, dispose } = stopWhen(o.signal, o.maxTimeMs ?? DEFAULT_QUALITY_MAX_TIME_MS);
  // Every episode playing, and each of its requests, listens to it.
  setMaxListeners(8 * CONCURRENCY, stop.signal);
  const lean = o.fetch ? null : createLeanFetch();
  try {
    const ors = createOrsClient({
      baseUrl: o.url,
      apiKey: o.apiKey,
      fetch: o.fetch ?? lean!,
      timeoutMs: 60_000,
    });
    const source = await referenceSource(deps, o);
    const t = await target(deps.clientFor(o.server), { env: source.env, split: source.split }, stop.signal);
    const at = { env: t.env, split: t.split };
    const seed = o.seed ?? DEFAULT_QUALITY_SEED;
    const want = Math.min(o.tasks ?? DEFAULT_QUALITY_TASKS, MAX_QUALITY_TASKS);
    let reference: ProbeReference;
    let trajectories: Trajectory[];
    if (source.trajectories) {
      trajectories = source.trajectories;
      reference =
        o.baseline !== undefined
          ? { kind: "baseline", source: o.baseline, runId: source.runId }
          : { kind: "golden", source: o.golden!.file, runId: null };
    } else {
      o.onProgress?.({ phase: "reference", done: 0, total: 0 });
      const played = await playOracle(
        deps,
        o,
        at,
        sampleIndexes(t.size, Math.min(want, t.size), seed),
        stop.signal,
      );
      trajectories = played.trajectories;
      reference = { kind: "oracle", source: o.oracle!, runId: played.runId };
    }
    const all = [...referencesOf(trajectories, t.env, t.split).values()].filter((r) => r.total > 0);
    const pick = all.length > want ? new Set(sampleIndexes(all.length, want, seed)) : null;
    const refs = all.sort((a, b) => a.task - b.task).filter((_, i) => !pick || pick.has(i));
    const attempts = await planAll(ors, at, refs, seed, stop.signal);
    const played: PlayedAttempt[] = await playAttempts(ors, at, attempts, {
      concurrency: CONCURRENCY,
      signal: stop.signal,
      onPlayed: (done, total) => o.onProgress?.({ phase: "probing", done, total }),
    });
    const results = analyzeProbes(played, {
      url: o.url,
      env: t.env,
      split: t.split,
      apiKey: !!o.apiKey,
      allow: o.allow ?? [],
    });
    o.onProgress?.({ phase: "recording", done: 0, total: 0 });
    if (!stop.signal.aborted) await recordEvidence(deps, o, at, results, stop.signal);
    const error = stop.signal.aborted
      ? stoppedText(stop.signal)
      : refs.length
        ? null
        : `the ${reference.kind} earned no reward on any task of ${t.env}/${t.split}: nothing to compare the probes with`;
    return {
      server: o.server,
      ...reportTimes(started),
      reference,
      sample: {
        environment: t.env,
        split: t.split,
        splitSize: t.size,
        seed,
        tasks: refs.map((r) => r.task),
        episodes: played.length,
        failed: played.filter((p) => p.error).length,
      },
      error,
      results,
      summary: qualitySummary(results, error),
    };
  } finally {
    dispose();
    lean?.close();
  }
}
