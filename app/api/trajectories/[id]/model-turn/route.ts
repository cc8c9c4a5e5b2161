// POST /api/trajectories/<id>/model-turn {endpoint, model, temperature?, ...}: one model turn for a
// live episode, from its recorded steps, without calling a tool → {turn, message, toolCalls: [{id,
// tool, input, agent}], usage, stop} (docs/runs.md "A model at the controls").
import { trajectoryOr404 } from "@/lib/episodes/http";
import { json, route } from "@/lib/http";
import { getPlayground } from "@/lib/playground";
import { bodyOf } from "@/lib/runs/http";
import { liveModelTurn, modelTurnRequestSchema } from "@/lib/runs/model-turn";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const POST = route<{ id: string }>(async (req, { id }) => {
  const playground = getPlayground();
  const body = await bodyOf(req, modelTurnRequestSchema);
  await playground.recorder.idle();
  const t = await trajectoryOr404(playground.store, id);
  const inflight = playground.recorder.inflight(id);
  const turn = await liveModelTurn(
    {
      models: playground.models,
      toolsOf: async (x) => (await playground.clientFor(x.server).tools(x.env ?? "")).tools,
    },
    inflight.length ? { ...t, steps: [...t.steps, ...inflight] } : t,
    body,
    req.signal,
  );
  return json(turn);
});
