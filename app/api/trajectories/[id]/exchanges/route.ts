// GET /api/trajectories/<id>/exchanges: the episode's protocol log (lib/trajectory/FORMAT.md
// "Protocol log"): `{items: [{seq, at, ms, method, path, status, request: {headers, body, truncated?,
// size}, response: {contentType, body, truncated?, size}}], dropped}` in seq order, secrets masked.
// `?after=<seq>` lists only the later ones (a page that has some already). 404 for an unknown id.

import { noTrajectory } from "@/lib/episodes/http";
import { json, route } from "@/lib/http";
import { OrsError } from "@/lib/ors/protocol";
import { getPlayground } from "@/lib/playground";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const GET = route<{ id: string }>(async (req, { id }) => {
  const raw = new URL(req.url).searchParams.get("after");
  const after = raw === null ? 0 : Number(raw);
  if (!Number.isSafeInteger(after) || after < 0)
    throw new OrsError(400, `after: expected a seq (an integer from 0), got ${JSON.stringify(raw)}`);
  const { store, recorder } = getPlayground();
  // What the relay has passed so far is in the log.
  await recorder.idle();
  const log = await store.exchanges(id, { after });
  if (!log) throw noTrajectory(id);
  return json(log);
});
