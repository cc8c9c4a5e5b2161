// GET /api/trajectories/by-session/<server>/<sid>: the newest trajectory of a session (the
// episode view reopens a live episode with it after a reload).

import { sessionTrajectoryResponse } from "@/lib/episodes/http";
import { getPlayground } from "@/lib/playground";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export async function GET(_req: Request, ctx: { params: Promise<{ server: string; sid: string }> }) {
  const { server, sid } = await ctx.params;
  return sessionTrajectoryResponse(getPlayground(), server, sid);
}
