// GET /api/trajectories/live/events: SSE feed of every recorded episode (started, prompt, step, ended;
// frames are left to the per-trajectory feed). First `event: running` with the running episodes.
import { store } from "@/lib/episodes/http";
import { liveSseResponse } from "@/lib/episodes/live-sse";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export function GET(req: Request) {
  const s = store();
  return liveSseResponse(req, null, () => [
    { event: "running", data: { type: "running", items: s.running() } },
  ]);
}
