// POST /api/review/queues/<id>/golden: every confirmed false positive becomes a golden episode with
// the reward its reviewers said (docs/review.md "Verifier agreement") → {golden: [{from, id, reward}]}.
import { getPlayground } from "@/lib/playground";
import { answer } from "@/lib/review/http";
import { goldenFalsePositives } from "@/lib/review/queues";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export async function POST(_req: Request, ctx: { params: Promise<{ id: string }> }) {
  const { id } = await ctx.params;
  return answer(() => goldenFalsePositives(getPlayground().store, id));
}
