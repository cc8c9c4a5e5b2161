// GET /api/runs/<id>/events: SSE of the run's progress (`progress`, `episode`, `status`) until it
// stops (docs/runs.md "Progress").
import { route } from "@/lib/http";
import { getPlayground } from "@/lib/playground";
import { runEventsResponse } from "@/lib/runs/http";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const GET = route<{ id: string }>((req, { id }) => runEventsResponse(getPlayground(), req, id));
