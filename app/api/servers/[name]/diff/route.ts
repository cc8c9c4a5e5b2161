// POST /api/servers/<name>/diff: the surface diff of one of this server's environments against
// another known server's (lib/conformance/diff/compare.ts) — the compare view's table. Body
// (application/json): {env, with: {server, env}, tasks?, prompts?}; answers the diff's report
// (docs/ci.md "Reports", without scores). A few at a time, each within five minutes.
import { z } from "zod";
import { CompareError, compareEnvironments } from "@/lib/conformance/diff/compare";
import { errorResponse } from "@/lib/ors/protocol";
import { getPlayground } from "@/lib/playground";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

type Ctx = { params: Promise<{ name: string }> };

const name = z.string().trim().min(1).max(256);
const bodySchema = z.strictObject({
  env: name,
  with: z.strictObject({ server: name, env: name }),
  tasks: z.number().int().min(0).max(10_000).optional(),
  prompts: z.number().int().min(0).max(10).optional(),
});

const MAX_RUNNING = 4;
let running = 0;

export async function POST(req: Request, ctx: Ctx) {
  if (!(req.headers.get("content-type") ?? "").includes("application/json"))
    return errorResponse(415, "send the diff's options as application/json");
  let raw: unknown;
  try {
    raw = JSON.parse(await req.text());
  } catch {
    return errorResponse(400, "the body is not JSON");
  }
  const parsed = bodySchema.safeParse(raw);
  if (!parsed.success)
    return errorResponse(
      400,
      parsed.error.issues.map((i) => `${i.path.join(".") || "body"}: ${i.message}`).join("; "),
    );
  if (running >= MAX_RUNNING)
    return errorResponse(429, `${running} diffs are running; wait for one to finish`);
  running++;
  try {
    const { name: server } = await ctx.params;
    const signal = AbortSignal.any([req.signal, AbortSignal.timeout(5 * 60_000)]);
    const report = await compareEnvironments(getPlayground(), { server, ...parsed.data }, signal);
    return Response.json(report, { headers: { "cache-control": "no-store" } });
  } catch (err) {
    if (err instanceof CompareError) return errorResponse(err.status, err.message);
    throw err;
  } finally {
    running--;
  }
}
