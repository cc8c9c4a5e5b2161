// GET /api/runs/<id>: the run's summary (docs/runs.md "Results"). DELETE removes the run, its
// episodes and their trajectories (not while it plays).
import { getPlayground } from "@/lib/playground";
import { RunError } from "@/lib/runs/errors";
import { answer, runSummary } from "@/lib/runs/http";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export async function GET(_req: Request, ctx: { params: Promise<{ id: string }> }) {
  const { id } = await ctx.params;
  return answer(() => runSummary(getPlayground(), id));
}

export async function DELETE(_req: Request, ctx: { params: Promise<{ id: string }> }) {
  const { id } = await ctx.params;
  const { store } = getPlayground();
  return answer(async () => {
    const run = await store.getRun(id);
    if (!run) throw new RunError(404, `no run with id "${id}"`);
    if (run.status === "running" || run.status === "queued")
      throw new RunError(409, `run ${id} is ${run.status}: cancel it first`);
    await store.deleteRun(id);
    return { deleted: id };
  });
}
