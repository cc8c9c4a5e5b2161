// The policy contract (docs/runs.md "Policies"): what decides the next tool calls of an episode from
// what was observed. A Policy starts one state per episode; the episode answers turns: zero or more
// tool calls (played in order), the model's text and token usage, or a stop with its reason.
// Isomorphic and free of the executor: the runs (./executor.ts), the live "model at the controls"
// and the quality checks all drive policies through this one seam.

import type { Block, JsonObject, RunToolOutput, ToolSpec } from "@/lib/ors/protocol";
import type { AgentEnd, StepAgent } from "@/lib/trajectory/schema";

export const POLICY_KINDS = ["model", "random", "replay", "script"] as const;
export type PolicyKind = (typeof POLICY_KINDS)[number];

/** Tokens a turn took. */
export interface TurnUsage {
  promptTokens: number;
  completionTokens: number;
}

/** One tool call a policy asks for: its id in the policy's conversation, the tool, the input. */
export interface PolicyToolCall {
  id: string;
  tool: string;
  input: JsonObject;
}

/**
 * A policy's answer for one turn. With `calls`, they are played in order (the episode stops
 * early when one finishes it). Without any, the episode ends: `stop` says why (`no_tool_call` when
 * a model answered in words only, `policy_stop`, `no_more_actions` ...).
 */
export interface PolicyTurn {
  calls: PolicyToolCall[];
  /** What the model said beside its calls (or instead of them), if anything. */
  message: string | null;
  usage: TurnUsage | null;
  /** Why the policy stops (only with no calls). */
  stop?: string;
}

/** How one call of the previous turn went: the environment's RunToolOutput (`ok: false` included). */
export interface CallOutcome {
  call: PolicyToolCall;
  result: RunToolOutput;
}

/** What a policy knows about the episode it starts. */
export interface EpisodeContext {
  server: string;
  env: string;
  /** The split and task index of the episode (null for a hand-written task_spec). */
  split: string | null;
  taskIndex: number | null;
  /** Which repeat of the task this is (0-based). */
  repeat: number;
  /** The prompt's blocks, as the environment gave them. */
  prompt: Block[];
  /** The tools of the session (`/task_tools`, else `/tools`). */
  tools: ToolSpec[];
  /** The task object (`/task`), fetched when first asked (an oracle reads the answer from it). */
  task(): Promise<JsonObject | null>;
  /** Aborted when the episode is cancelled or times out. */
  signal: AbortSignal;
}

/** One episode's state of a policy. */
export interface PolicyEpisode {
  /** The next turn; `outcomes` are the previous turn's calls and results (empty on the first). */
  next(outcomes: CallOutcome[]): Promise<PolicyTurn>;
}

export interface Policy {
  readonly kind: PolicyKind;
  /** Short words for logs and the run page, e.g. `model gpt-4o-mini at local-vllm` (no secrets). */
  readonly label: string;
  /** The model's id (model policies), for the trajectory's agent marks and exports. */
  readonly model?: string;
  startEpisode(ctx: EpisodeContext): PolicyEpisode | Promise<PolicyEpisode>;
  /** Releases what the policy holds (connections); called once when its run stops. */
  close?(): Promise<void>;
}

/** A turn that stops the episode. */
export function stopTurn(
  stop: string,
  message: string | null = null,
  usage: TurnUsage | null = null,
): PolicyTurn {
  return { calls: [], message, usage, stop };
}

/** Thrown by a policy that cannot play (a model endpoint refusing, a script throwing): the episode errors. */
export class PolicyError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "PolicyError";
  }
}

/** A stopping turn as the trajectory records it (`agent_end`). */
export function agentEndOf(turn: PolicyTurn): AgentEnd {
  return {
    reason: turn.stop ?? "policy_stop",
    message: turn.message,
    ...(turn.usage
      ? { usage: { prompt_tokens: turn.usage.promptTokens, completion_tokens: turn.usage.completionTokens } }
      : {}),
  };
}

/**
 * The agent's mark on call `i` of a turn: who chose it (the policy's kind and model), in which
 * turn, with the turn's text and tokens on its first call.
 */
export function agentOf(
  who: { kind: PolicyKind; model?: string },
  turn: Pick<PolicyTurn, "message" | "usage">,
  turnNo: number,
  callId: string,
  i: number,
): StepAgent {
  return {
    policy: who.kind,
    ...(who.model ? { model: who.model } : {}),
    turn: turnNo,
    call_id: callId,
    ...(i === 0 && turn.message ? { message: turn.message } : {}),
    ...(i === 0 && turn.usage
      ? {
          usage: {
            prompt_tokens: turn.usage.promptTokens,
            completion_tokens: turn.usage.completionTokens,
          },
        }
      : {}),
  };
}
