// POST /api/runs/<id>/cancel: running episodes end (`cancelled`, sessions deleted), none starts
// → {id, status}.
import { json, route } from "@/lib/http";
import { getPlayground } from "@/lib/playground";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const POST = route<{ id: string }>(async (_req, { id }) => {
  const run = await getPlayground().runs.cancel(id);
  return json({ id: run.id, status: run.status });
});
