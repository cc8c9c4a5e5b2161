// GET /api/trajectories/live: episodes running now (no end reason yet), newest activity first.

import { noStore } from "@/lib/episodes/http";
import { getPlayground } from "@/lib/playground";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export async function GET() {
  return Response.json({ items: await getPlayground().store.running() }, { headers: noStore });
}
