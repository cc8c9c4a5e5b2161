// GET /api/servers/<name>/log: a server the playground started (`start --spawn`): its state (starting,
// ready, exited with its code ...) and the last lines of its stdout and stderr (lib/spawn/types.ts,
// ServerLogSnapshot). The live feed is ./events.
import { json, route } from "@/lib/http";
import { getPlayground } from "@/lib/playground";
import { logSnapshot } from "@/lib/spawn/log-sse";
import { spawnedOr404 } from "@/lib/spawn/routes";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const GET = route<{ name: string }>(async (_req, { name }) =>
  json(logSnapshot(await spawnedOr404(getPlayground(), name))),
);
