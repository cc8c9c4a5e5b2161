// GET /api/review/queues/<id>: the queue, each reviewer's progress and assignments. DELETE removes
// it (the labels stay: they are the episodes').
import { getPlayground } from "@/lib/playground";
import { answer, queueWithProgress } from "@/lib/review/http";
import { queueOf } from "@/lib/review/queues";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

type Ctx = { params: Promise<{ id: string }> };

export async function GET(_req: Request, ctx: Ctx) {
  const { id } = await ctx.params;
  const { store } = getPlayground();
  return answer(async () => ({
    ...(await queueWithProgress(store, await queueOf(store, id))),
    items: await store.queueItems(id),
  }));
}

export async function DELETE(_req: Request, ctx: Ctx) {
  const { id } = await ctx.params;
  const { store } = getPlayground();
  return answer(async () => {
    await queueOf(store, id);
    await store.deleteQueue(id);
    return { deleted: id };
  });
}
