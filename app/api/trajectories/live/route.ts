// GET /api/trajectories/live: episodes running now (no end reason yet), newest activity first.
import { noStore, store } from "@/lib/episodes/http";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export function GET() {
  return Response.json({ items: store().running() }, { headers: noStore });
}
