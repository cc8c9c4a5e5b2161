// GET /api/runs/<id>: the run's summary (docs/runs.md "Results"). DELETE removes the run, its
// episodes and their trajectories (not while it plays).
import { json, route } from "@/lib/http";
import { getPlayground } from "@/lib/playground";
import { RunError } from "@/lib/runs/errors";
import { runOf, runSummary } from "@/lib/runs/http";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const GET = route<{ id: string }>(async (_req, { id }) => json(await runSummary(getPlayground(), id)));

export const DELETE = route<{ id: string }>(async (_req, { id }) => {
  const { store } = getPlayground();
  const run = await runOf(store, id);
  if (run.status === "running" || run.status === "queued")
    throw new RunError(409, `run ${id} is ${run.status}: cancel it first`);
  await store.deleteRun(id);
  return json({ deleted: id });
});
