// GET /api/servers/<name>/log: a server the playground started (`start --spawn`): its state (starting,
// ready, exited with its code ...) and the last lines of its stdout and stderr (lib/spawn/types.ts,
// ServerLogSnapshot). The live feed is ./events.
import { errorResponse } from "@/lib/ors/protocol";
import { getPlayground } from "@/lib/playground";
import { logSnapshot } from "@/lib/spawn/log-sse";
import { spawnedOr404 } from "@/lib/spawn/routes";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

type Ctx = { params: Promise<{ name: string }> };

export async function GET(_req: Request, ctx: Ctx) {
  const found = await spawnedOr404(getPlayground(), (await ctx.params).name);
  if ("status" in found) return errorResponse(found.status, found.detail);
  return Response.json(logSnapshot(found.server), { headers: { "cache-control": "no-store" } });
}
