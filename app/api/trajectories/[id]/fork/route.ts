// POST /api/trajectories/<id>/fork {step, secrets?}: a new live session on the same task with the
// recorded actions 1..step replayed through the relay (recorded like any episode); answers the new
// sid and how each replayed step compared with the original.
import { z } from "zod";
import { forkTrajectory } from "@/lib/episodes/fork";
import { rerunTrajectory } from "@/lib/episodes/http";
import { route } from "@/lib/http";
import { secretsSchema } from "@/lib/ors/protocol";
import { getPlayground } from "@/lib/playground";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

const bodySchema = z.strictObject({
  step: z.number().int().nonnegative(),
  secrets: secretsSchema.optional(),
});

export const POST = route<{ id: string }>((req, { id }) => {
  const playground = getPlayground();
  return rerunTrajectory(req, id, playground.store, bodySchema, (t, body, signal) =>
    forkTrajectory(playground, t, body.step, body.secrets, signal),
  );
});
