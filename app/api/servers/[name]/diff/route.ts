// POST /api/servers/<name>/diff: the surface diff of one of this server's environments against
// another known server's (lib/conformance/diff/compare.ts) — the compare view's table. Body
// (application/json): {env, with: {server, env}, tasks?, prompts?}; answers the diff's report
// (docs/ci.md "Reports", without scores). A few at a time, each within five minutes.
import { z } from "zod";
import { CompareError, compareEnvironments } from "@/lib/conformance/diff/compare";
import { BodyError, noStore, readJsonObject } from "@/lib/episodes/http";
import { describeZodError, errorResponse } from "@/lib/ors/protocol";
import { getPlayground } from "@/lib/playground";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

const name = z.string().trim().min(1).max(256);
const bodySchema = z.strictObject({
  env: name,
  with: z.strictObject({ server: name, env: name }),
  tasks: z.number().int().min(0).max(10_000).optional(),
  prompts: z.number().int().min(0).max(10).optional(),
});

const MAX_RUNNING = 4;
let running = 0;

export async function POST(req: Request, ctx: { params: Promise<{ name: string }> }) {
  const { name: server } = await ctx.params;
  try {
    const body = bodySchema.safeParse(await readJsonObject(req));
    if (!body.success) return errorResponse(400, describeZodError(body.error));
    if (running >= MAX_RUNNING)
      return errorResponse(429, `${running} diffs are running; wait for one to finish`);
    running++;
    try {
      const signal = AbortSignal.any([req.signal, AbortSignal.timeout(5 * 60_000)]);
      const report = await compareEnvironments(getPlayground(), { server, ...body.data }, signal);
      return Response.json(report, { headers: noStore });
    } finally {
      running--;
    }
  } catch (e) {
    if (e instanceof BodyError) return errorResponse(e.status, e.detail);
    if (e instanceof CompareError) return errorResponse(e.status, e.message);
    throw e;
  }
}
