// POST /api/runs/<id>/resume: plays the episodes an interrupted or cancelled run is missing
// → {id, status}.
import { getPlayground } from "@/lib/playground";
import { answer } from "@/lib/runs/http";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export async function POST(_req: Request, ctx: { params: Promise<{ id: string }> }) {
  const { id } = await ctx.params;
  return answer(async () => {
    const run = await getPlayground().runs.resume(id);
    return { id: run.id, status: run.status };
  });
}
