// POST /api/servers/<name>/restart: starts a server the playground runs (`start --spawn`) again — after
// a crash, or to pick up a change outside --watch. The episodes running on it end, saying so. Answers
// 202 with its state once the restart has begun; the log feed shows the rest.
import { errorResponse } from "@/lib/ors/protocol";
import { getPlayground } from "@/lib/playground";
import { spawnedOr404 } from "@/lib/spawn/routes";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

type Ctx = { params: Promise<{ name: string }> };

export async function POST(_req: Request, ctx: Ctx) {
  const found = await spawnedOr404(getPlayground(), (await ctx.params).name);
  if ("status" in found) return errorResponse(found.status, found.detail);
  void found.server.restart("restarted from the playground's page");
  return Response.json(found.server.status(), { status: 202 });
}
