// POST /api/trajectories/<id>/fork {step, secrets?}: a new live session on the same task with the
// recorded actions 1..step replayed through the relay; answers the new sid and the step marks.

import { z } from "zod";
import { jsonError } from "@/lib/episodes/http";
import { forkTrajectory, ReplayError } from "@/lib/episodes/replay";
import { describeZodError, secretsSchema } from "@/lib/ors/protocol";
import { getPlayground } from "@/lib/playground";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

const bodySchema = z.strictObject({
  step: z.number().int().nonnegative(),
  secrets: secretsSchema.optional(),
});

export async function POST(req: Request, ctx: { params: Promise<{ id: string }> }) {
  const { id } = await ctx.params;
  const s = getPlayground().store;
  const t = s.get(id);
  if (!t) return jsonError(404, `no trajectory with id "${id}"`);
  const body = bodySchema.safeParse(await req.json().catch(() => null));
  if (!body.success) return jsonError(400, describeZodError(body.error));
  try {
    return Response.json(
      await forkTrajectory(s, t, body.data.step, new URL(req.url).origin, body.data.secrets),
    );
  } catch (e) {
    if (e instanceof ReplayError) return jsonError(e.status, e.message);
    return jsonError(502, `fork failed: ${e instanceof Error ? e.message : String(e)}`);
  }
}
