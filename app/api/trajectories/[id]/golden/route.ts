// POST /api/trajectories/<id>/golden {golden: boolean}: marks a trajectory golden (a reference that
// `test` replays as a regression test, kept by retention) or unmarks it. Answers {id, golden}.
import { z } from "zod";
import { BodyError, noStore, readJsonObject } from "@/lib/episodes/http";
import { describeZodError, errorResponse } from "@/lib/ors/protocol";
import { getPlayground } from "@/lib/playground";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

const bodySchema = z.strictObject({ golden: z.boolean() });

export async function POST(req: Request, ctx: { params: Promise<{ id: string }> }) {
  const { id } = await ctx.params;
  try {
    const body = bodySchema.safeParse(await readJsonObject(req));
    if (!body.success) return errorResponse(400, describeZodError(body.error));
    if (!(await getPlayground().store.setGolden(id, body.data.golden)))
      return errorResponse(404, `no trajectory with id "${id}"`);
    return Response.json({ id, golden: body.data.golden }, { headers: noStore });
  } catch (e) {
    if (e instanceof BodyError) return errorResponse(e.status, e.detail);
    throw e;
  }
}
