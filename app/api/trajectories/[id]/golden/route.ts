// POST /api/trajectories/<id>/golden {golden: boolean}: marks a trajectory golden (a reference that
// `test` replays as a regression test, kept by retention) or unmarks it. Answers {id, golden}.
import { z } from "zod";
import { noTrajectory } from "@/lib/episodes/http";
import { json, readJsonBody, route } from "@/lib/http";
import { getPlayground } from "@/lib/playground";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

const bodySchema = z.strictObject({ golden: z.boolean() });

export const POST = route<{ id: string }>(async (req, { id }) => {
  const { golden } = await readJsonBody(req, bodySchema);
  if (!(await getPlayground().store.setGolden(id, golden))) throw noTrajectory(id);
  return json({ id, golden });
});
