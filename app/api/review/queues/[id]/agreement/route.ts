// GET /api/review/queues/<id>/agreement: the verifier against the reviewers — confusion matrix with
// the episodes behind each cell, false-positive and false-negative rates (Wilson 95%), Cohen's κ.
import { getPlayground } from "@/lib/playground";
import { answer } from "@/lib/review/http";
import { agreementReport } from "@/lib/review/queues";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export async function GET(_req: Request, ctx: { params: Promise<{ id: string }> }) {
  const { id } = await ctx.params;
  return answer(() => agreementReport(getPlayground().store, id));
}
