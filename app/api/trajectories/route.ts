// GET /api/trajectories: summaries of recorded trajectories, filtered by query parameters.

import { noStore, parseFilter } from "@/lib/episodes/http";
import { getPlayground } from "@/lib/playground";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export async function GET(req: Request) {
  const f = parseFilter(new URL(req.url));
  if (!f.ok) return f.response;
  return Response.json(await getPlayground().store.list(f.filter), { headers: noStore });
}
