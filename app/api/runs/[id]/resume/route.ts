// POST /api/runs/<id>/resume: plays the episodes an interrupted or cancelled run is missing
// → {id, status}.
import { json, route } from "@/lib/http";
import { getPlayground } from "@/lib/playground";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const POST = route<{ id: string }>(async (_req, { id }) => {
  const run = await getPlayground().runs.resume(id);
  return json({ id: run.id, status: run.status });
});
