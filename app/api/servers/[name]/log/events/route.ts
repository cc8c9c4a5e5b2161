// GET /api/servers/<name>/log/events: the log of a server the playground started, live (SSE):
// `snapshot` first, then `lines` (batched) and `status` as they happen (lib/spawn/log-sse.ts).
import { route } from "@/lib/http";
import { getPlayground } from "@/lib/playground";
import { logEventsResponse } from "@/lib/spawn/log-sse";
import { spawnedOr404 } from "@/lib/spawn/routes";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const GET = route<{ name: string }>(async (req, { name }) =>
  logEventsResponse(req, await spawnedOr404(getPlayground(), name)),
);
