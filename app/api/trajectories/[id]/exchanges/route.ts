// GET /api/trajectories/<id>/exchanges: the episode's protocol log (lib/trajectory/FORMAT.md
// "Protocol log"): `{items: [{seq, at, ms, method, path, status, request: {headers, body, truncated?,
// size}, response: {contentType, body, truncated?, size}}], dropped}` in seq order, secrets masked.
// `?after=<seq>` lists only the later ones (a page that has some already). 404 for an unknown id.

import { noStore } from "@/lib/episodes/http";
import { errorResponse } from "@/lib/ors/protocol";
import { getPlayground } from "@/lib/playground";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export async function GET(req: Request, ctx: { params: Promise<{ id: string }> }) {
  const { id } = await ctx.params;
  const raw = new URL(req.url).searchParams.get("after");
  const after = raw === null ? 0 : Number(raw);
  if (!Number.isInteger(after) || after < 0)
    return errorResponse(400, `after: expected a seq (an integer from 0), got ${JSON.stringify(raw)}`);
  const { store, recorder } = getPlayground();
  // What the relay has passed so far is in the log.
  await recorder.idle();
  const log = await store.exchanges(id, { after });
  if (!log) return errorResponse(404, `no trajectory with id "${id}"`);
  return Response.json(log, { headers: noStore });
}
