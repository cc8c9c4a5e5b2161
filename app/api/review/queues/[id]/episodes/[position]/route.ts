// GET /api/review/queues/<id>/episodes/<position>?reviewer=: one episode of the queue as that
// reviewer sees it (blind: rewards and metadata hidden until they have labelled it).
import { getPlayground } from "@/lib/playground";
import { answer, positionOf, reviewerOf } from "@/lib/review/http";
import { reviewEpisode } from "@/lib/review/queues";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export async function GET(req: Request, ctx: { params: Promise<{ id: string; position: string }> }) {
  const { id, position } = await ctx.params;
  return answer(async () =>
    reviewEpisode(getPlayground().store, id, positionOf(position), reviewerOf(new URL(req.url))),
  );
}
