// GET /api/trajectories/export: every trajectory matching the filters as JSONL (one per line),
// streamed so a large export never sits in memory. `?format=chat-jsonl` or `atif` exports them for
// training and analysis instead (docs/runs.md "Exports"); `run=<id>` is one run's episodes;
// `format=html` makes one self-contained HTML file of them to read (lib/episodes/html-export.ts).

import { blocksHtml } from "@/components/trajectories/html-export-blocks";
import { HTML_EXPORT_MAX, htmlExportResponse, trajectoriesHtml } from "@/lib/episodes/html-export";
import { noStore, parseFilter } from "@/lib/episodes/http";
import { errorResponse } from "@/lib/ors/protocol";
import { getPlayground } from "@/lib/playground";
import { isRunError } from "@/lib/runs/errors";
import { EXPORT_FORMATS } from "@/lib/runs/exports";
import { exportFormatOf, exportResponse } from "@/lib/runs/http";
import type { TrajectoryFilter } from "@/lib/trajectory/schema";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export function GET(req: Request) {
  const url = new URL(req.url);
  const f = parseFilter(url);
  if (!f.ok) return f.response;
  const requested = url.searchParams.get("format");
  if (requested === "html") return htmlExport(f.filter);
  if (requested !== null && !(EXPORT_FORMATS as readonly string[]).includes(requested))
    return errorResponse(
      400,
      `format: expected one of ${[...EXPORT_FORMATS, "html"].join(", ")}, got ${JSON.stringify(requested)}`,
    );
  let format: ReturnType<typeof exportFormatOf>;
  try {
    format = exportFormatOf(url);
  } catch (err) {
    if (isRunError(err)) return errorResponse(err.status, err.detail);
    throw err;
  }
  const stamp = new Date().toISOString().replace(/[:.]/g, "-");
  if (format !== "jsonl")
    return exportResponse(getPlayground().store.iterate(f.filter), format, `trajectories-${stamp}`);
  const it = getPlayground().store.iterate(f.filter)[Symbol.asyncIterator]();
  const encoder = new TextEncoder();
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
      "Content-Disposition": `attachment; filename="trajectories-${stamp}.jsonl"`,
    },
  });
}

/** The matching trajectories (at most HTML_EXPORT_MAX, in the list's order) as one HTML file, streamed. */
function htmlExport(filter: TrajectoryFilter): Response {
  const { store } = getPlayground();
  const stamp = new Date().toISOString().replace(/[:.]/g, "-");
  const shown = Object.entries(filter)
    .filter(([k, v]) => v !== undefined && k !== "limit" && k !== "offset")
    .map(([k, v]) => `${k}=${String(v)}`);
  return htmlExportResponse(async function* () {
    const limit = Math.min(filter.limit ?? HTML_EXPORT_MAX, HTML_EXPORT_MAX);
    const { items, total } = await store.list({ ...filter, limit });
    yield* trajectoriesHtml(items, filter.limit ? items.length : total, (id) => store.get(id), {
      blocks: blocksHtml,
      description: shown.length ? `Filters: ${shown.join(", ")}` : "Every recorded episode.",
    });
  }, `trajectories-${stamp}.html`);
}
