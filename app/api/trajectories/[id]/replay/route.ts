// POST /api/trajectories/<id>/replay {secrets?}: re-runs every recorded action against the current
// environment through the relay; answers the new trajectory's id and the step-aligned diff.

import { z } from "zod";
import { jsonError } from "@/lib/episodes/http";
import { ReplayError, replayTrajectory } from "@/lib/episodes/replay";
import { describeZodError, secretsSchema } from "@/lib/ors/protocol";
import { getPlayground } from "@/lib/playground";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

const bodySchema = z.strictObject({ secrets: secretsSchema.optional() });

export async function POST(req: Request, ctx: { params: Promise<{ id: string }> }) {
  const { id } = await ctx.params;
  const s = getPlayground().store;
  const t = s.get(id);
  if (!t) return jsonError(404, `no trajectory with id "${id}"`);
  const text = await req.text();
  const body = bodySchema.safeParse(text.trim() ? JSON.parse(text) : {});
  if (!body.success) return jsonError(400, describeZodError(body.error));
  try {
    return Response.json(await replayTrajectory(s, t, new URL(req.url).origin, body.data.secrets));
  } catch (e) {
    if (e instanceof ReplayError) return jsonError(e.status, e.message);
    return jsonError(502, `replay failed: ${e instanceof Error ? e.message : String(e)}`);
  }
}
