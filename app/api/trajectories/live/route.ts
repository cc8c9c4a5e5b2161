// GET /api/trajectories/live: episodes running now (no end reason yet), newest activity first.

import { json, route } from "@/lib/http";
import { getPlayground } from "@/lib/playground";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const GET = route(async () => json({ items: await getPlayground().store.running() }));
