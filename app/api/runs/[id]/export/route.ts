// GET /api/runs/<id>/export?format=atif|chat-jsonl (or jsonl, the trajectory format): one line per
// episode of the run, streamed (docs/runs.md "Exports").
import { route } from "@/lib/http";
import { getPlayground } from "@/lib/playground";
import { exportFormatOf, exportResponse, runOf, runTrajectories } from "@/lib/runs/http";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const GET = route<{ id: string }>(async (req, { id }) => {
  const { store } = getPlayground();
  const format = exportFormatOf(new URL(req.url));
  await runOf(store, id);
  return exportResponse(runTrajectories(store, id), format, `run-${id}`);
});
