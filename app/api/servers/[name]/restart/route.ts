// POST /api/servers/<name>/restart: starts a server the playground runs (`start --spawn`) again — after
// a crash, or to pick up a change outside --watch. The episodes running on it end, saying so. Answers
// 202 with its state once the restart has begun; the log feed shows the rest.
import { json, route } from "@/lib/http";
import { getPlayground } from "@/lib/playground";
import { spawnedOr404 } from "@/lib/spawn/routes";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const POST = route<{ name: string }>(async (_req, { name }) => {
  const server = await spawnedOr404(getPlayground(), name);
  void server.restart("restarted from the playground's page");
  return json(server.status(), { status: 202 });
});
