// POST /api/trajectories/<id>/replay {secrets?}: every recorded action re-run against the server as
// it is now (recorded like any episode, session closed at the end), with a step-aligned diff.
import { z } from "zod";
import { replayTrajectory } from "@/lib/episodes/fork";
import { BodyError, jsonError, noStore, readJsonObject } from "@/lib/episodes/http";
import { ReplayError } from "@/lib/episodes/replay";
import { describeZodError, secretsSchema } from "@/lib/ors/protocol";
import { getPlayground } from "@/lib/playground";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

const bodySchema = z.strictObject({ secrets: secretsSchema.optional() });

export async function POST(req: Request, ctx: { params: Promise<{ id: string }> }) {
  const { id } = await ctx.params;
  const playground = getPlayground();
  try {
    const body = bodySchema.safeParse(await readJsonObject(req));
    if (!body.success) return jsonError(400, describeZodError(body.error));
    const t = await playground.store.get(id);
    if (!t) return jsonError(404, `no trajectory with id "${id}"`);
    return Response.json(await replayTrajectory(playground, t, body.data.secrets));
  } catch (e) {
    if (e instanceof BodyError) return jsonError(e.status, e.detail);
    // The kind says what failed: the server unreachable, its own error, or a protocol mismatch.
    if (e instanceof ReplayError)
      return Response.json({ detail: e.message, kind: e.kind }, { status: e.status, headers: noStore });
    throw e;
  }
}
