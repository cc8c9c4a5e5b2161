// GET /api/runs/<id>/export?format=atif|chat-jsonl (or jsonl, the trajectory format): one line per
// episode of the run, streamed (docs/runs.md "Exports").
import { errorResponse } from "@/lib/ors/protocol";
import { getPlayground } from "@/lib/playground";
import { isRunError } from "@/lib/runs/errors";
import { exportFormatOf, exportResponse, runTrajectories } from "@/lib/runs/http";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export async function GET(req: Request, ctx: { params: Promise<{ id: string }> }) {
  const { id } = await ctx.params;
  const { store } = getPlayground();
  try {
    const format = exportFormatOf(new URL(req.url));
    if (!(await store.getRun(id))) return errorResponse(404, `no run with id "${id}"`);
    return exportResponse(runTrajectories(store, id), format, `run-${id}`);
  } catch (err) {
    if (isRunError(err)) return errorResponse(err.status, err.detail);
    throw err;
  }
}
