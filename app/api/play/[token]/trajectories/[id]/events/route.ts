// GET /api/play/<token>/trajectories/<id>/events: the live feed of a share link's player's own episode.
import { getPlayground } from "@/lib/playground";
import { respond } from "@/lib/review/http";
import { gateTrajectoryEvents } from "@/lib/review/share-gate";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export async function GET(req: Request, ctx: { params: Promise<{ token: string; id: string }> }) {
  const { token, id } = await ctx.params;
  return respond(() => gateTrajectoryEvents(getPlayground(), req, token, id));
}
