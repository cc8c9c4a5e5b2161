// GET /api/trajectories/by-session/<server>/<sid>: the newest trajectory of a session (the
// episode view reopens a live episode with it after a reload).

import { sessionTrajectoryResponse } from "@/lib/episodes/http";
import { route } from "@/lib/http";
import { getPlayground } from "@/lib/playground";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const GET = route<{ server: string; sid: string }>((_req, { server, sid }) =>
  sessionTrajectoryResponse(getPlayground(), server, sid),
);
