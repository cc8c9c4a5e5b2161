// GET /api/runs: runs, newest first (`?server=&env=&status=&limit=&offset=`) → {items, total}.
// POST /api/runs {server, env, split, tasks?, repeats?, concurrency?, successAt?, timeoutMs?, policy}
// starts a run server-side → 201 {id, status}. docs/runs.md "HTTP API".
import { getPlayground } from "@/lib/playground";
import { answer, listRuns, startRun } from "@/lib/runs/http";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export function GET(req: Request) {
  return answer(() => listRuns(getPlayground(), new URL(req.url)));
}

export function POST(req: Request) {
  return answer(() => startRun(getPlayground(), req), 201);
}
