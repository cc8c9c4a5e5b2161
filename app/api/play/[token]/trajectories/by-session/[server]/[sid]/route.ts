// GET /api/play/<token>/trajectories/by-session/<server>/<sid>: a share link's player's own episode.
import { getPlayground } from "@/lib/playground";
import { respond } from "@/lib/review/http";
import { gateSessionTrajectory } from "@/lib/review/share-gate";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export async function GET(
  _req: Request,
  ctx: { params: Promise<{ token: string; server: string; sid: string }> },
) {
  const { token, server, sid } = await ctx.params;
  return respond(() => gateSessionTrajectory(getPlayground(), token, server, sid));
}
