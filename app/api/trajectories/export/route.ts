// GET /api/trajectories/export: every trajectory matching the filters as JSONL (one per line),
// streamed so a large export never sits in memory. `?format=chat-jsonl` or `atif` exports them for
// training and analysis instead (docs/runs.md "Exports"); `run=<id>` is one run's episodes;
// `format=html` makes one self-contained HTML file of them to read (lib/episodes/html-export.ts).

import { blocksHtml } from "@/components/trajectories/html-export-blocks";
import { HTML_EXPORT_MAX, htmlExportResponse, trajectoriesHtml } from "@/lib/episodes/html-export";
import { parseFilter } from "@/lib/episodes/http";
import { route } from "@/lib/http";
import { OrsError } from "@/lib/ors/protocol";
import { getPlayground } from "@/lib/playground";
import { EXPORT_FORMATS } from "@/lib/runs/exports";
import { exportFormatOf, exportResponse } from "@/lib/runs/http";
import type { TrajectoryFilter } from "@/lib/trajectory/schema";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const GET = route((req) => {
  const url = new URL(req.url);
  const filter = parseFilter(url);
  const requested = url.searchParams.get("format");
  if (requested === "html") return htmlExport(filter);
  if (requested !== null && !(EXPORT_FORMATS as readonly string[]).includes(requested))
    throw new OrsError(
      400,
      `format: expected one of ${[...EXPORT_FORMATS, "html"].join(", ")}, got ${JSON.stringify(requested)}`,
    );
  const stamp = new Date().toISOString().replace(/[:.]/g, "-");
  return exportResponse(getPlayground().store.iterate(filter), exportFormatOf(url), `trajectories-${stamp}`);
});

/** The matching trajectories (at most HTML_EXPORT_MAX, in the list's order) as one HTML file, streamed. */
function htmlExport(filter: TrajectoryFilter): Promise<Response> {
  const { store } = getPlayground();
  const stamp = new Date().toISOString().replace(/[:.]/g, "-");
  const shown = Object.entries(filter)
    .filter(([k, v]) => v !== undefined && k !== "limit" && k !== "offset")
    .map(([k, v]) => `${k}=${String(v)}`);
  return htmlExportResponse(
    (async function* () {
      const limit = Math.min(filter.limit ?? HTML_EXPORT_MAX, HTML_EXPORT_MAX);
      const { items, total } = await store.list({ ...filter, limit });
      yield* trajectoriesHtml(items, filter.limit ? items.length : total, (id) => store.get(id), {
        blocks: blocksHtml,
        description: shown.length ? `Filters: ${shown.join(", ")}` : "Every recorded episode.",
      });
    })(),
    `trajectories-${stamp}.html`,
  );
}
