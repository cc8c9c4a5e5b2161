// POST /api/trajectories/<id>/model-turn {endpoint, model, temperature?, ...}: one model turn for a
// live episode, from its recorded steps, without calling a tool → {turn, message, toolCalls: [{id,
// tool, input, agent}], usage, stop} (docs/runs.md "A model at the controls").
import { getPlayground } from "@/lib/playground";
import { RunError } from "@/lib/runs/errors";
import { answer, bodyOf } from "@/lib/runs/http";
import { liveModelTurn, modelTurnRequestSchema } from "@/lib/runs/model-turn";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export async function POST(req: Request, ctx: { params: Promise<{ id: string }> }) {
  const { id } = await ctx.params;
  const playground = getPlayground();
  return answer(
    async () => {
      const body = await bodyOf(req, modelTurnRequestSchema);
      await playground.recorder.idle();
      const t = await playground.store.get(id);
      if (!t) throw new RunError(404, `no trajectory with id "${id}"`);
      const inflight = playground.recorder.inflight(id);
      return liveModelTurn(
        {
          models: playground.models,
          toolsOf: async (x) => (await playground.clientFor(x.server).tools(x.env ?? "")).tools,
        },
        inflight.length ? { ...t, steps: [...t.steps, ...inflight] } : t,
        body,
        req.signal,
      );
    },
    200,
    req.signal,
  );
}
