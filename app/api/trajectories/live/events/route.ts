// GET /api/trajectories/live/events: SSE feed of every recorded episode (started, prompt, step, ended;
// frames and protocol log entries are left to the per-trajectory feed). First `event: running` with
// the running episodes.

import { liveSseResponse } from "@/lib/episodes/live-sse";
import { route } from "@/lib/http";
import { getPlayground } from "@/lib/playground";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const GET = route((req) => {
  const { store: s, live } = getPlayground();
  return liveSseResponse(req, live, null, {
    first: async () => [{ event: "running", data: { type: "running", items: await s.running() } }],
    // Frames (chunks can be large) and protocol log entries are left to the per-episode feed.
    skip: (e) => e.type === "frame" || e.type === "exchange",
  });
});
