// GET /api/trajectories/export: every trajectory matching the filters as JSONL (one per line),
// streamed so a large export never sits in memory.

import { noStore, parseFilter } from "@/lib/episodes/http";
import { getPlayground } from "@/lib/playground";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export function GET(req: Request) {
  const f = parseFilter(new URL(req.url));
  if (!f.ok) return f.response;
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
  const stamp = new Date().toISOString().replace(/[:.]/g, "-");
  return new Response(body, {
    headers: {
      ...noStore,
      "Content-Type": "application/x-ndjson; charset=utf-8",
      "Content-Disposition": `attachment; filename="trajectories-${stamp}.jsonl"`,
    },
  });
}
