// GET /api/models/<name>/models: the model ids the configured endpoint <name> lists (its own
// `GET /v1/models`, reached by the server with the endpoint's key) → {items: [{id}]}; the key never
// reaches the browser (docs/runs.md "A model at the controls").
import { getPlayground } from "@/lib/playground";
import { answer } from "@/lib/runs/http";
import { listModelIds } from "@/lib/runs/model-ids";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export async function GET(req: Request, ctx: { params: Promise<{ name: string }> }) {
  const { name } = await ctx.params;
  return answer(
    async () => ({
      items: (await listModelIds(getPlayground().models, name, req.signal)).map((id) => ({ id })),
    }),
    200,
    req.signal,
  );
}
