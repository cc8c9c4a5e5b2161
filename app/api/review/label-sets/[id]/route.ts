// GET /api/review/label-sets/<id>: one label set. DELETE removes it with its labels and queues.
import { getPlayground } from "@/lib/playground";
import { answer } from "@/lib/review/http";
import { labelSetOf } from "@/lib/review/queues";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

type Ctx = { params: Promise<{ id: string }> };

export async function GET(_req: Request, ctx: Ctx) {
  const { id } = await ctx.params;
  return answer(() => labelSetOf(getPlayground().store, id));
}

export async function DELETE(_req: Request, ctx: Ctx) {
  const { id } = await ctx.params;
  const { store } = getPlayground();
  return answer(async () => {
    await labelSetOf(store, id);
    await store.deleteLabelSet(id);
    return { deleted: id };
  });
}
