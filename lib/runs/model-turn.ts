// A model at the controls of one live episode (docs/runs.md "A model at the controls"): one model
// turn for a recorded episode, built from its trajectory — the prompt and every step so far, whoever
// made it — without calling any tool. The episode page shows the turn (its text, its calls), the
// user may edit or reject each call, then sends it through the relay as usual with the `agent`
// header given here, so the step records who proposed it. The same policy code the runs use.
import "server-only";
import { z } from "zod";
import type { ToolSpec } from "@/lib/ors/protocol";
import { encodeAgent } from "@/lib/relay/annotations";
import type { Trajectory } from "@/lib/trajectory/schema";
import { nextTurnNumber, transcriptOf } from "./conversation";
import { RunError } from "./errors";
import { createModelClient, modelTurn } from "./model-policy";
import { ModelEndpointError, type ModelRegistry } from "./models";
import { agentOf, PolicyError } from "./policy";

export const modelTurnRequestSchema = z.strictObject({
  /** A configured endpoint's name (PLAYGROUND_MODELS). */
  endpoint: z.string().min(1).max(32),
  model: z.string().min(1).max(200),
  temperature: z.number().min(0).max(2).optional(),
  maxTokens: z.number().int().min(1).max(1_000_000).optional(),
  system: z.string().max(20_000).optional(),
  stream: z.boolean().optional(),
  keepRefs: z.boolean().optional(),
});
export type ModelTurnRequest = z.infer<typeof modelTurnRequestSchema>;

export interface ModelTurnResponse {
  /** The policy turn this is (1-based), as the agent marks say. */
  turn: number;
  message: string | null;
  /** The calls proposed, in order; `agent` is the `x-playground-agent` header to send each with. */
  toolCalls: { id: string; tool: string; input: Record<string, unknown>; agent: string }[];
  usage: { promptTokens: number; completionTokens: number } | null;
  /** Why the model proposes no call (`no_tool_call`, `invalid_tool_call`), when it does not. */
  stop: string | null;
}

export interface ModelTurnDeps {
  models: ModelRegistry;
  /** The tools of the episode when its trajectory did not record them (the environment's `/tools`). */
  toolsOf(t: Trajectory): Promise<ToolSpec[]>;
}

/** One model turn for a live episode (no tool called). Throws RunError (`{detail}` with its status). */
export async function liveModelTurn(
  deps: ModelTurnDeps,
  t: Trajectory,
  req: ModelTurnRequest,
  signal?: AbortSignal,
): Promise<ModelTurnResponse> {
  if (t.end_reason !== null)
    throw new RunError(409, `the episode has ended (${t.end_reason}): no turn to play`);
  if (t.steps.some((s) => s.ok === null))
    throw new RunError(409, "a call of this episode is still running: wait for its result");
  let endpoint: ReturnType<ModelRegistry["get"]>;
  try {
    endpoint = deps.models.get(req.endpoint);
  } catch (err) {
    if (err instanceof ModelEndpointError) throw new RunError(400, err.message);
    throw err;
  }
  const { endpoint: _e, ...settings } = req;
  const client = createModelClient(deps.models, endpoint, settings);
  const tools = t.tools ?? (await deps.toolsOf(t));
  const number = nextTurnNumber(t);
  let turn: Awaited<ReturnType<typeof modelTurn>>;
  try {
    turn = await modelTurn(client, { prompt: t.prompt ?? [], tools, turns: transcriptOf(t), signal });
  } catch (err) {
    if (err instanceof PolicyError) throw new RunError(502, err.message);
    throw err;
  }
  return {
    turn: number,
    message: turn.message,
    toolCalls: turn.calls.map((c, i) => ({
      ...c,
      agent: encodeAgent(agentOf({ kind: "model", model: req.model }, turn, number, c.id, i)),
    })),
    usage: turn.usage,
    stop: turn.calls.length ? null : (turn.stop ?? "no_tool_call"),
  };
}
