// GET /api/trajectories/export: every trajectory matching the filters as JSONL (one per line),
// streamed so a large export never sits in memory. `?format=chat-jsonl` or `atif` exports them for
// training and analysis instead (docs/runs.md "Exports"); `run=<id>` is one run's episodes.

import { jsonError, noStore, parseFilter } from "@/lib/episodes/http";
import { getPlayground } from "@/lib/playground";
import { isRunError } from "@/lib/runs/errors";
import { exportFormatOf, exportResponse } from "@/lib/runs/http";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export function GET(req: Request) {
  const url = new URL(req.url);
  const f = parseFilter(url);
  if (!f.ok) return f.response;
  let format: ReturnType<typeof exportFormatOf>;
  try {
    format = exportFormatOf(url);
  } catch (err) {
    if (isRunError(err)) return jsonError(err.status, err.detail);
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
