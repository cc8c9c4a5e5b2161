// GET /api/runs/compare?a=<run>&b=<run>: the two runs task by task, paired → {a, b, tasks, gained,
// lost, meanDelta, ci95, paired} (docs/runs.md "Compare two runs").
import { getPlayground } from "@/lib/playground";
import { answer, compare } from "@/lib/runs/http";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export function GET(req: Request) {
  return answer(() => compare(getPlayground(), new URL(req.url)));
}
