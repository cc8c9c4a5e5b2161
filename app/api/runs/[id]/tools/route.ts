// GET /api/runs/<id>/tools?format=openai|anthropic|gemini: the tool specs the run's episodes were
// played with, in a provider's shape (docs/runs.md "Tool specs").
import { errorResponse } from "@/lib/ors/protocol";
import { getPlayground } from "@/lib/playground";
import { isRunError } from "@/lib/runs/errors";
import { runTools } from "@/lib/runs/run-export";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export async function GET(req: Request, ctx: { params: Promise<{ id: string }> }) {
  const { id } = await ctx.params;
  try {
    return await runTools(getPlayground().store, id, new URL(req.url));
  } catch (err) {
    if (isRunError(err)) return errorResponse(err.status, err.detail);
    throw err;
  }
}
