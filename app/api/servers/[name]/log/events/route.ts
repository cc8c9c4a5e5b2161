// GET /api/servers/<name>/log/events: the log of a server the playground started, live (SSE):
// `snapshot` first, then `lines` (batched) and `status` as they happen (lib/spawn/log-sse.ts).
import { errorResponse } from "@/lib/ors/protocol";
import { getPlayground } from "@/lib/playground";
import { logEventsResponse } from "@/lib/spawn/log-sse";
import { spawnedOr404 } from "@/lib/spawn/routes";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

type Ctx = { params: Promise<{ name: string }> };

export async function GET(req: Request, ctx: Ctx) {
  const found = await spawnedOr404(getPlayground(), (await ctx.params).name);
  if ("status" in found) return errorResponse(found.status, found.detail);
  return logEventsResponse(req, found.server);
}
