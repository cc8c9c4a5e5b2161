// GET /api/runs/<id>/export?format=atif|chat-jsonl|jsonl|verifiers|task-weights|parquet: the run's
// episodes (one line each), its tasks' weights, or its prompts as Parquet (docs/runs.md "Exports").
import { errorResponse } from "@/lib/ors/protocol";
import { getPlayground } from "@/lib/playground";
import { isRunError } from "@/lib/runs/errors";
import { runExport } from "@/lib/runs/run-export";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export async function GET(req: Request, ctx: { params: Promise<{ id: string }> }) {
  const { id } = await ctx.params;
  try {
    return await runExport(getPlayground().store, id, new URL(req.url));
  } catch (err) {
    if (isRunError(err)) return errorResponse(err.status, err.detail);
    throw err;
  }
}
