// The runs' HTTP API (docs/runs.md "HTTP API"), as functions the thin route handlers under
// app/api/runs/ call: request bodies checked with zod, errors thrown as RunError (answered as
// `{detail}` by lib/http's route wrapper), the run's progress as SSE, exports streamed line by line.
// JSON in camelCase.
import "server-only";
import { z } from "zod";
import type { LiveFeeds } from "@/lib/episodes/live";
import { ndjsonResponse, parseWith, readJsonBody, type SseWriter, sseResponse } from "@/lib/http";
import {
  FINAL_RUN_STATUSES,
  type PlaygroundStore,
  RUN_STATUSES,
  type RunAggregates,
  type RunRecord,
} from "@/lib/store/types";
import type { Trajectory } from "@/lib/trajectory/schema";
import { RunError } from "./errors";
import type { RunEvent, RunEvents } from "./events";
import type { RunExecutor, RunPlacement } from "./executor";
import { EXPORT_FORMATS, type ExportFormat, exportLine } from "./exports";
import { runRequestSchema } from "./spec";
import { compareRuns } from "./stats";
import { buildSummary, HISTOGRAM_BINS, type RunSummary, runConfigOf } from "./summary";

export interface RunsApiDeps {
  store: PlaygroundStore;
  runs: RunExecutor;
  runEvents: RunEvents;
  live?: LiveFeeds;
}

/** What a runs API body may weigh. */
const RUNS_BODY_BYTES = 1024 * 1024;

/** Parses a JSON body with a schema: a 400 OrsError naming what is wrong. */
export function bodyOf<T>(req: Request, schema: z.ZodType<T>): Promise<T> {
  return readJsonBody(req, schema, RUNS_BODY_BYTES);
}

/** The run `id`; a 404 RunError when there is none. */
export async function runOf(store: PlaygroundStore, id: string): Promise<RunRecord> {
  const run = await store.getRun(id);
  if (!run) throw new RunError(404, `no run with id "${id}"`);
  return run;
}

/** The summary of a run, with its progress (rate, time left) while it plays. */
export async function runSummary(
  d: RunsApiDeps,
  id: string,
): Promise<RunSummary & { rate: number | null; etaMs: number | null; placement: RunPlacement }> {
  const run = await runOf(d.store, id);
  const config = runConfigOf(run);
  const summary = buildSummary(
    run,
    await d.store.runAggregates(id, { successAt: config.successAt, histogramBins: HISTOGRAM_BINS }),
  );
  const p = run.status === "running" ? await d.runs.progress(id) : null;
  return {
    ...summary,
    rate: p?.rate ?? null,
    etaMs: p?.etaMs ?? null,
    placement: await d.runs.placement(run),
  };
}

const listQuery = z.strictObject({
  server: z.string().optional(),
  env: z.string().optional(),
  status: z.enum(RUN_STATUSES).optional(),
  tag: z.string().max(32).optional(),
  limit: z.coerce.number().int().min(1).max(1000).optional(),
  offset: z.coerce.number().int().min(0).optional(),
});

/** Statuses a run stops in (resume may start it again). */
const TERMINAL: ReadonlySet<string> = new Set(FINAL_RUN_STATUSES);

/** A listed run's counts and success rate. */
interface ListedStats {
  counts: RunAggregates["counts"];
  successRate: number | null;
}

/**
 * The list's figures of runs that stopped, per store, which change only when a run plays again
 * (its status and end time are in the key): a list of big runs is not recomputed at every poll.
 */
const stoppedStats = new WeakMap<PlaygroundStore, Map<string, ListedStats>>();
const STOPPED_STATS_KEPT = 1000;

async function listedStats(store: PlaygroundStore, r: RunRecord): Promise<ListedStats> {
  const key = `${r.id}:${r.status}:${r.endedAt}`;
  const stopped = TERMINAL.has(r.status);
  let cache = stoppedStats.get(store);
  const hit = stopped ? cache?.get(key) : undefined;
  if (hit) return hit;
  const a = await store.runAggregates(r.id, {
    successAt: runConfigOf(r).successAt,
    histogramBins: HISTOGRAM_BINS,
  });
  const stats = { counts: a.counts, successRate: a.counts.done ? a.successes / a.counts.done : null };
  if (stopped) {
    if (!cache) {
      cache = new Map();
      stoppedStats.set(store, cache);
    }
    if (cache.size >= STOPPED_STATS_KEPT) cache.delete(cache.keys().next().value!);
    cache.set(key, stats);
  }
  return stats;
}

/** `GET /api/runs`: runs, newest first, each with its episodes' counts and success rate. */
export async function listRuns(d: RunsApiDeps, url: URL) {
  const q = parseWith(listQuery, Object.fromEntries([...url.searchParams].filter(([, v]) => v !== "")));
  const { items, total } = await d.store.listRuns(q);
  return {
    total,
    items: await Promise.all(
      items.map(async (r) => {
        const { counts, successRate } = await listedStats(d.store, r);
        const c = runConfigOf(r);
        // The record less its settings (only the policy's name is listed) and the process playing it.
        const { config: _config, instance: _instance, ...run } = r;
        return {
          ...run,
          policy: c.policy,
          policyLabel: c.policyLabel,
          completed: counts.done,
          errored: counts.errored,
          running: counts.running,
          pending: counts.pending + counts.cancelled + counts.interrupted,
          /** Completed episodes that succeeded, over the completed ones (null before any). */
          successRate,
        };
      }),
    ),
  };
}

/** `POST /api/runs`: a run started from the request's body → `{id, status}`. */
export async function startRun(d: RunsApiDeps, req: Request) {
  const request = await bodyOf(req, runRequestSchema);
  const run = await d.runs.start(request);
  return { id: run.id, status: run.status };
}

/** `GET /api/runs/compare?a=&b=`: two runs task by task, paired. */
export async function compare(d: RunsApiDeps, url: URL) {
  const a = url.searchParams.get("a");
  const b = url.searchParams.get("b");
  if (!a || !b) throw new RunError(400, "give the two runs to compare: ?a=<run id>&b=<run id>");
  const [ra, rb] = await Promise.all([runSummary(d, a), runSummary(d, b)]);
  const c = compareRuns(ra.tasks, rb.tasks);
  const head = (s: RunSummary) => ({
    id: s.id,
    status: s.status,
    server: s.server,
    env: s.env,
    split: s.split,
    policyLabel: s.policyLabel,
    successRate: s.successRate,
    meanReward: s.meanReward,
  });
  return { a: head(ra), b: head(rb), ...c };
}

/** What `GET /api/runs` answers (the UI reads these types). */
export type RunList = Awaited<ReturnType<typeof listRuns>>;
export type RunListItem = RunList["items"][number];
/** What `GET /api/runs/{id}` answers: the summary, with the progress while it plays. */
export type RunSummaryResponse = Awaited<ReturnType<typeof runSummary>>;
/** What `GET /api/runs/compare?a=&b=` answers. */
export type RunComparison = Awaited<ReturnType<typeof compare>>;

/**
 * `GET /api/runs/{id}/events`: SSE of the run's progress — `progress` first, then `progress`,
 * `episode` and `status` events as they happen — until the run stops. A run another process plays
 * (the CLI) is followed by reading its progress from the store every second.
 */
export async function runEventsResponse(d: RunsApiDeps, req: Request, id: string): Promise<Response> {
  await runOf(d.store, id);
  return sseResponse((w) => followRun(d, id, w), { signal: req.signal });
}

/** Feeds a run's events to `w` until the run stops; returns the teardown. */
function followRun(d: RunsApiDeps, id: string, w: SseWriter): () => void {
  let last = "";
  /** Sends the progress now (when it changed) and closes once the run has stopped. */
  const snapshot = async () => {
    const p = await d.runs.progress(id);
    if (!p) return w.close();
    const key = JSON.stringify(p);
    if (key !== last) w.send("progress", { type: "progress", runId: id, at: Date.now(), ...p });
    last = key;
    if (TERMINAL.has(p.status) && !d.runs.isActive(id)) w.close();
  };
  const unsubscribe = d.runEvents.subscribe(id, (e: RunEvent) => {
    w.send(e.type, e);
    if (e.type === "progress")
      last = JSON.stringify({ ...e, type: undefined, runId: undefined, at: undefined });
    if (e.type === "status" && TERMINAL.has(e.status)) void snapshot();
  });
  // A run played elsewhere (the CLI, another replica) sends nothing here: its store is read.
  const poll = setInterval(() => {
    if (!d.runs.isActive(id)) void snapshot().catch(() => w.close());
  }, 1000);
  poll.unref?.();
  void snapshot().catch(() => w.close());
  return () => {
    unsubscribe();
    clearInterval(poll);
  };
}

/** The format asked by `?format=` (default `jsonl`, the trajectory format); a 400 RunError otherwise. */
export function exportFormatOf(url: URL, fallback: ExportFormat = "jsonl"): ExportFormat {
  const f = url.searchParams.get("format") ?? fallback;
  if (!(EXPORT_FORMATS as readonly string[]).includes(f))
    throw new RunError(400, `format: expected one of ${EXPORT_FORMATS.join(", ")}, got ${JSON.stringify(f)}`);
  return f as ExportFormat;
}

/** Streams trajectories as an export, one line each, never holding more than one in memory. */
export function exportResponse(
  trajectories: AsyncIterable<Trajectory>,
  format: ExportFormat,
  filename: string,
  agent?: { version?: string },
): Promise<Response> {
  return ndjsonResponse(trajectories, {
    filename: `${filename}.${format === "atif" ? "atif.jsonl" : "jsonl"}`,
    line: (t) => exportLine(t, format, agent),
  });
}

/** A run's episodes' trajectories (the last attempt of each task and repeat), task by task. */
export async function* runTrajectories(store: PlaygroundStore, id: string): AsyncGenerator<Trajectory> {
  await runOf(store, id);
  for (const e of await store.runEpisodes(id)) {
    if (!e.trajectoryId) continue;
    const t = await store.get(e.trajectoryId);
    if (t) yield t;
  }
}
