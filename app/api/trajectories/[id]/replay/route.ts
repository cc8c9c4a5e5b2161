// POST /api/trajectories/<id>/replay {secrets?}: every recorded action re-run against the server as
// it is now (recorded like any episode, session closed at the end), with a step-aligned diff.
import { z } from "zod";
import { replayTrajectory } from "@/lib/episodes/fork";
import { rerunTrajectory } from "@/lib/episodes/http";
import { route } from "@/lib/http";
import { secretsSchema } from "@/lib/ors/protocol";
import { getPlayground } from "@/lib/playground";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

const bodySchema = z.strictObject({ secrets: secretsSchema.optional() });

export const POST = route<{ id: string }>((req, { id }) => {
  const playground = getPlayground();
  return rerunTrajectory(req, id, playground.store, bodySchema, (t, body, signal) =>
    replayTrajectory(playground, t, body.secrets, signal),
  );
});
