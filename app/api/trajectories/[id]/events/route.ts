// GET /api/trajectories/<id>/events: SSE live feed of one trajectory. First `event: snapshot`
// (the whole trajectory, in-flight frames included, the last activity, which steps are passing
// through the relay now), then `step`, `frame`, `prompt`, `reprompt`, `activity` and `ended` events
// as they happen. The stream closes after `ended` (at once for an ended trajectory), except for a
// finished one, whose session may still take calls (recorded as after the end).

import { trajectoryEventsResponse } from "@/lib/episodes/http";
import { getPlayground } from "@/lib/playground";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export async function GET(req: Request, ctx: { params: Promise<{ id: string }> }) {
  const { id } = await ctx.params;
  return trajectoryEventsResponse(req, getPlayground(), id);
}
