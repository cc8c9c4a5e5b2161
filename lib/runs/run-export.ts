// `GET /api/runs/{id}/export?format=…` and `GET /api/runs/{id}/tools?format=…` (docs/runs.md
// "Exports"): a run's episodes in the trajectory formats (JSONL, chat JSONL, ATIF: ./exports.ts), the
// verifiers library's results JSONL, its tasks' curriculum weights (`task-weights`, with `?group=G`),
// its prompts as Parquet, and the tool specs it was played with in a provider's shape.
import "server-only";
import { noStore } from "@/lib/http";
import { errorResponse, isToolFormat, TOOL_FORMATS, type ToolSpec, toolsAs } from "@/lib/ors/protocol";
import type { PlaygroundStore, RunRecord } from "@/lib/store/types";
import type { Trajectory } from "@/lib/trajectory/schema";
import { RunError } from "./errors";
import { EXPORT_FORMATS, type ExportFormat } from "./exports";
import { exportResponse, runTrajectories } from "./http";
import { promptsParquet } from "./parquet";
import { buildSummary, HISTOGRAM_BINS, runConfigOf } from "./summary";
import { promptRow, taskWeights, verifiersLine } from "./trainer-exports";

export const RUN_EXPORT_FORMATS = [...EXPORT_FORMATS, "verifiers", "task-weights", "parquet"] as const;
export type RunExportFormat = (typeof RUN_EXPORT_FORMATS)[number];

async function runOf(store: PlaygroundStore, id: string): Promise<RunRecord> {
  const run = await store.getRun(id);
  if (!run) throw new RunError(404, `no run with id "${id}"`);
  return run;
}

/** The summary with the learning signal over groups of `?group=G` (default: the run's repeats). */
async function summaryOf(store: PlaygroundStore, run: RunRecord, url: URL) {
  const raw = url.searchParams.get("group");
  const group = raw === null ? run.repeats : Number(raw);
  if (!Number.isInteger(group) || group < 2 || group > 1024)
    throw new RunError(400, `group: expected a whole number from 2 to 1024, got ${JSON.stringify(raw)}`);
  const a = await store.runAggregates(run.id, {
    successAt: runConfigOf(run).successAt,
    histogramBins: HISTOGRAM_BINS,
  });
  return buildSummary(run, a, group);
}

function ndjson(lines: AsyncIterable<unknown> | Iterable<unknown>, filename: string): Response {
  const encoder = new TextEncoder();
  const it = (Symbol.asyncIterator in lines ? lines[Symbol.asyncIterator]() : lines[Symbol.iterator]()) as
    | AsyncIterator<unknown>
    | Iterator<unknown>;
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      const next = await it.next();
      if (next.done) controller.close();
      else controller.enqueue(encoder.encode(`${JSON.stringify(next.value)}\n`));
    },
    async cancel() {
      await it.return?.(undefined);
    },
  });
  return new Response(body, {
    headers: {
      ...noStore,
      "Content-Type": "application/x-ndjson; charset=utf-8",
      "Content-Disposition": `attachment; filename="${filename}"`,
    },
  });
}

async function* mapped<T>(source: AsyncIterable<Trajectory>, f: (t: Trajectory) => T): AsyncGenerator<T> {
  for await (const t of source) yield f(t);
}

/** One row per task: the prompt its first recorded episode was shown, with its weight in the run. */
async function parquetOf(store: PlaygroundStore, run: RunRecord, url: URL): Promise<Response> {
  const weights = new Map(taskWeights(await summaryOf(store, run, url)).map((w) => [w.task, w]));
  const rows = [];
  const seen = new Set<number>();
  for (const e of await store.runEpisodes(run.id)) {
    if (seen.has(e.taskIndex) || !e.trajectoryId) continue;
    const t = await store.get(e.trajectoryId);
    if (!t?.prompt) continue;
    seen.add(e.taskIndex);
    rows.push(promptRow(t, run, weights.get(e.taskIndex)));
  }
  return new Response(promptsParquet(rows), {
    headers: {
      ...noStore,
      "Content-Type": "application/vnd.apache.parquet",
      "Content-Disposition": `attachment; filename="run-${run.id}.parquet"`,
    },
  });
}

/** `GET /api/runs/{id}/export?format=…`. */
export async function runExport(store: PlaygroundStore, id: string, url: URL): Promise<Response> {
  const format = url.searchParams.get("format") ?? "jsonl";
  if (!(RUN_EXPORT_FORMATS as readonly string[]).includes(format))
    throw new RunError(
      400,
      `format: expected one of ${RUN_EXPORT_FORMATS.join(", ")}, got ${JSON.stringify(format)}`,
    );
  const run = await runOf(store, id);
  switch (format as RunExportFormat) {
    case "task-weights":
      return ndjson(taskWeights(await summaryOf(store, run, url)), `run-${id}.task-weights.jsonl`);
    case "verifiers":
      return ndjson(mapped(runTrajectories(store, id), verifiersLine), `run-${id}.results.jsonl`);
    case "parquet":
      return parquetOf(store, run, url);
    default:
      return exportResponse(runTrajectories(store, id), format as ExportFormat, `run-${id}`);
  }
}

/** `GET /api/runs/{id}/tools?format=openai|anthropic|gemini`: the specs its episodes were played with. */
export async function runTools(store: PlaygroundStore, id: string, url: URL): Promise<Response> {
  await runOf(store, id);
  const format = url.searchParams.get("format");
  if (format !== null && !isToolFormat(format))
    return errorResponse(
      400,
      `format: expected one of ${TOOL_FORMATS.join(", ")}, got ${JSON.stringify(format)}`,
    );
  let tools: ToolSpec[] | null = null;
  for (const e of await store.runEpisodes(id)) {
    if (!e.trajectoryId) continue;
    tools = (await store.get(e.trajectoryId))?.tools ?? null;
    if (tools) break;
  }
  if (!tools) return errorResponse(404, `run ${id} recorded no tool specs yet (no episode has started)`);
  return Response.json(format ? { format, tools: toolsAs(tools, format) } : { tools }, { headers: noStore });
}
