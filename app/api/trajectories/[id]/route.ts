// GET /api/trajectories/<id>: one trajectory in the export format (`?download=1` as a file).
// DELETE removes it.

import { noTrajectory, trajectoryOr404, withInflight } from "@/lib/episodes/http";
import { json, noStore, route } from "@/lib/http";
import { getPlayground } from "@/lib/playground";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const GET = route<{ id: string }>(async (req, { id }) => {
  const { store, recorder } = getPlayground();
  const t = await trajectoryOr404(store, id);
  const headers: Record<string, string> = { ...noStore, "Content-Type": "application/json" };
  if (new URL(req.url).searchParams.get("download"))
    headers["Content-Disposition"] = `attachment; filename="trajectory-${id}.json"`;
  return new Response(JSON.stringify(withInflight(t, recorder), null, 2), { headers });
});

export const DELETE = route<{ id: string }>(async (_req, { id }) => {
  if (!(await getPlayground().store.delete(id))) throw noTrajectory(id);
  return json({ deleted: id });
});
