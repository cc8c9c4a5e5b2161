// GET /api/trajectories/by-session/<server>/<sid>: the newest trajectory of a session (the
// episode view reopens a live episode with it after a reload).

import { noStore, withInflight } from "@/lib/episodes/http";
import { errorResponse } from "@/lib/ors/protocol";
import { getPlayground } from "@/lib/playground";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export async function GET(_req: Request, ctx: { params: Promise<{ server: string; sid: string }> }) {
  const { server, sid } = await ctx.params;
  const { store, recorder } = getPlayground();
  await recorder.idle();
  const summary = await store.findBySession(server, sid);
  const t = summary ? await store.get(summary.id) : null;
  if (!t) return errorResponse(404, `no recorded episode for session "${sid}" on server "${server}"`);
  return Response.json(withInflight(t, recorder), { headers: noStore });
}
