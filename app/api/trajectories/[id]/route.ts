// GET /api/trajectories/<id>: one trajectory in the export format (`?download=1` as a file).
// DELETE removes it.

import { noStore, withInflight } from "@/lib/episodes/http";
import { errorResponse } from "@/lib/ors/protocol";
import { getPlayground } from "@/lib/playground";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export async function GET(req: Request, ctx: { params: Promise<{ id: string }> }) {
  const { id } = await ctx.params;
  const { store, recorder } = getPlayground();
  const t = await store.get(id);
  if (!t) return errorResponse(404, `no trajectory with id "${id}"`);
  const headers: Record<string, string> = { ...noStore };
  if (new URL(req.url).searchParams.get("download")) {
    headers["Content-Disposition"] = `attachment; filename="trajectory-${id}.json"`;
  }
  return new Response(JSON.stringify(withInflight(t, recorder), null, 2), {
    headers: { ...headers, "Content-Type": "application/json" },
  });
}

export async function DELETE(_req: Request, ctx: { params: Promise<{ id: string }> }) {
  const { id } = await ctx.params;
  if (!(await getPlayground().store.delete(id))) return errorResponse(404, `no trajectory with id "${id}"`);
  return Response.json({ deleted: id });
}
