// GET /api/runs/compare?a=<run>&b=<run>: the two runs task by task, paired → {a, b, tasks, gained,
// lost, meanDelta, ci95, paired} (docs/runs.md "Compare two runs").
import { json, route } from "@/lib/http";
import { getPlayground } from "@/lib/playground";
import { compare } from "@/lib/runs/http";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const GET = route(async (req) => json(await compare(getPlayground(), new URL(req.url))));
