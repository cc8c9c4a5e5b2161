// GET /api/trajectories: summaries of recorded trajectories, filtered by query parameters.

import { parseFilter } from "@/lib/episodes/http";
import { json, route } from "@/lib/http";
import { getPlayground } from "@/lib/playground";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const GET = route(async (req) =>
  json(await getPlayground().store.list(parseFilter(new URL(req.url)))),
);
