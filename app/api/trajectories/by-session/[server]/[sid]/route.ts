// GET /api/trajectories/by-session/<server>/<sid>: the newest trajectory of a session (the
// episode view reopens a live episode with it after a reload).

import { withInflight } from "@/lib/episodes/http";
import { json, route } from "@/lib/http";
import { OrsError } from "@/lib/ors/protocol";
import { getPlayground } from "@/lib/playground";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const GET = route<{ server: string; sid: string }>(async (_req, { server, sid }) => {
  const { store, recorder } = getPlayground();
  await recorder.idle();
  const summary = await store.findBySession(server, sid);
  const t = summary ? await store.get(summary.id) : null;
  if (!t) throw new OrsError(404, `no recorded episode for session "${sid}" on server "${server}"`);
  return json(withInflight(t, recorder));
});
