// GET /api/runs: runs, newest first (`?server=&env=&status=&limit=&offset=`) → {items, total}.
// POST /api/runs {server, env, split, tasks?, repeats?, concurrency?, successAt?, timeoutMs?, policy}
// starts a run server-side → 201 {id, status}. docs/runs.md "HTTP API".
import { json, route } from "@/lib/http";
import { getPlayground } from "@/lib/playground";
import { listRuns, startRun } from "@/lib/runs/http";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const GET = route(async (req) => json(await listRuns(getPlayground(), new URL(req.url))));

export const POST = route(async (req) => json(await startRun(getPlayground(), req), { status: 201 }));
