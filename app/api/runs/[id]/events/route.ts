// GET /api/runs/<id>/events: SSE of the run's progress (`progress`, `episode`, `status`) until it
// stops (docs/runs.md "Progress").
import { getPlayground } from "@/lib/playground";
import { runEventsResponse } from "@/lib/runs/http";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export async function GET(req: Request, ctx: { params: Promise<{ id: string }> }) {
  const { id } = await ctx.params;
  return runEventsResponse(getPlayground(), req, id);
}
