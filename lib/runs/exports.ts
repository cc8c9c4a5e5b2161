// Exports of episodes for training and analysis (docs/runs.md "Exports"), one line per episode, for a
// run or any filtered set of trajectories: chat JSONL (`{messages, tools, reward, env, task,
// runId}`: OpenAI chat messages with `tool_calls` and `tool` messages, tools as function specs —
// what SFT and RL trainers read) and ATIF (the Agent Trajectory Interchange Format, v1.4: a
// document per episode, ORS rewards and `finished` in `extra`). Both are built from the recorded
// trajectory alone, with the tool specs it was played with. Isomorphic.

import type { Block, JsonObject, ToolSpec } from "@/lib/ors/protocol";
import { type FunctionTool, functionNames, functionTools } from "@/lib/ors/protocol/tool-schema";
import type { Trajectory, TrajectoryStep } from "@/lib/trajectory/schema";
import { type ChatMessage, chatMessages, resultOfStep, transcriptOf } from "./conversation";

export const EXPORT_FORMATS = ["jsonl", "chat-jsonl", "atif"] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

export const ATIF_SCHEMA_VERSION = "ATIF-v1.4";

/** The tools of an episode: those it recorded, else the names its steps called (without schemas). */
function toolsOf(t: Trajectory): ToolSpec[] {
  if (t.tools) return t.tools;
  const names = [...new Set(t.steps.map((s) => s.tool))];
  return names.map((name) => ({ name, description: "", input_schema: null }));
}

export interface ChatJsonlLine {
  messages: ChatMessage[];
  tools: FunctionTool[];
  reward: number;
  env: string | null;
  /** The task: `{split, index}` or `{task_spec}` (null when unknown). */
  task: Trajectory["task"];
  runId: string | null;
  /** Beside the named fields: which episode this is. */
  trajectoryId: string;
  repeat: number | null;
  finished: boolean;
}

/** One episode as a chat JSONL line. */
export function chatJsonlLine(t: Trajectory): ChatJsonlLine {
  const tools = toolsOf(t);
  const names = functionNames(tools);
  return {
    messages: chatMessages(t.prompt ?? [], transcriptOf(t), {
      functionName: names.toFunction,
      end: t.agent_end ?? null,
    }),
    tools: functionTools(tools),
    reward: t.total_reward,
    env: t.env,
    task: t.task,
    runId: t.run?.id ?? null,
    trajectoryId: t.id,
    repeat: t.run?.repeat ?? null,
    finished: t.end_reason === "finished",
  };
}

const iso = (ms: number) => new Date(ms).toISOString();

function blocksText(blocks: Block[]): string {
  return blocks.map((b) => (b.type === "text" ? b.text : `[image ${b.mimeType}]`)).join("\n\n");
}

function stepExtra(s: TrajectoryStep): JsonObject {
  return {
    ors_step: s.index,
    reward: s.reward,
    finished: s.finished,
    ok: s.ok,
    ...(s.error ? { error: s.error } : {}),
    ...(s.metadata ? { metadata: s.metadata } : {}),
    ...(s.latency_ms !== null ? { latency_ms: s.latency_ms } : {}),
    ...(s.blocks.some((b) => b.type === "image")
      ? {
          images: s.blocks
            .filter((b) => b.type === "image")
            .map((b) => ({ mimeType: (b as { mimeType: string }).mimeType })),
        }
      : {}),
  };
}

/** One episode as an ATIF document. */
export function atifDocument(t: Trajectory, agent: { name?: string; version?: string } = {}): JsonObject {
  const tools = toolsOf(t);
  const names = functionNames(tools);
  const model = t.steps.find((s) => s.agent?.model)?.agent?.model;
  const policy = t.steps.find((s) => s.agent)?.agent?.policy ?? "human";
  const steps: JsonObject[] = [];
  steps.push({
    step_id: 1,
    timestamp: iso(t.started_at),
    source: "user",
    message: blocksText(t.prompt ?? []),
    extra: { ors: "prompt", ...(t.prompt?.some((b) => b.type === "image") ? { has_images: true } : {}) },
  });
  let promptTokens = 0;
  let completionTokens = 0;
  let withUsage = false;
  // One agent step per policy turn (several calls of a turn together), its results as the observation.
  const byTurn: TrajectoryStep[][] = [];
  let lastTurn: number | null = null;
  for (const s of t.steps.filter((x) => !x.after_end)) {
    const turn = s.agent?.turn ?? null;
    if (turn !== null && turn === lastTurn && byTurn.length) byTurn[byTurn.length - 1]!.push(s);
    else byTurn.push([s]);
    lastTurn = turn;
  }
  for (const group of byTurn) {
    const first = group[0]!;
    const usage = first.agent?.usage;
    if (usage) {
      withUsage = true;
      promptTokens += usage.prompt_tokens;
      completionTokens += usage.completion_tokens;
    }
    steps.push({
      step_id: steps.length + 1,
      timestamp: iso(first.started_at),
      source: "agent",
      ...(first.agent?.model ? { model_name: first.agent.model } : {}),
      message: first.agent?.message ?? "",
      tool_calls: group.map((s) => ({
        tool_call_id: s.agent?.call_id ?? `call_${s.index}`,
        function_name: names.toFunction(s.tool),
        arguments: s.input,
      })),
      observation: {
        results: group.map((s) => {
          const r = resultOfStep(s);
          return {
            source_call_id: s.agent?.call_id ?? `call_${s.index}`,
            content: r === null ? "" : r.ok ? blocksText(r.blocks) : `Error: ${r.error}`,
          };
        }),
      },
      ...(usage
        ? { metrics: { prompt_tokens: usage.prompt_tokens, completion_tokens: usage.completion_tokens } }
        : {}),
      extra: {
        ors_steps: group.map(stepExtra),
        ...(first.agent ? { policy: first.agent.policy } : { policy: "human" }),
      },
    });
  }
  if (t.agent_end) {
    if (t.agent_end.usage) {
      withUsage = true;
      promptTokens += t.agent_end.usage.prompt_tokens;
      completionTokens += t.agent_end.usage.completion_tokens;
    }
    steps.push({
      step_id: steps.length + 1,
      timestamp: iso(t.ended_at ?? t.steps.at(-1)?.ended_at ?? t.started_at),
      source: "agent",
      ...(model ? { model_name: model } : {}),
      message: t.agent_end.message ?? "",
      ...(t.agent_end.usage
        ? {
            metrics: {
              prompt_tokens: t.agent_end.usage.prompt_tokens,
              completion_tokens: t.agent_end.usage.completion_tokens,
            },
          }
        : {}),
      extra: { stop: t.agent_end.reason },
    });
  }
  return {
    schema_version: ATIF_SCHEMA_VERSION,
    session_id: t.id,
    agent: {
      name: agent.name ?? "ors-playground",
      version: agent.version ?? "1",
      ...(model ? { model_name: model } : {}),
      tool_definitions: functionTools(tools),
      extra: { policy },
    },
    steps,
    final_metrics: {
      ...(withUsage ? { total_prompt_tokens: promptTokens, total_completion_tokens: completionTokens } : {}),
      total_steps: steps.length,
      extra: { total_reward: t.total_reward },
    },
    extra: {
      ors: {
        server: t.server,
        env: t.env,
        sid: t.sid,
        task: t.task,
        total_reward: t.total_reward,
        finished: t.end_reason === "finished",
        end_reason: t.end_reason,
        error: t.error,
        started_at: t.started_at,
        ended_at: t.ended_at,
        ...(t.run ? { run: t.run } : {}),
      },
    },
  };
}

/** One line of an export in `format` (JSONL of the trajectory format, chat JSONL, ATIF). */
export function exportLine(t: Trajectory, format: ExportFormat, agent?: { version?: string }): string {
  const value = format === "chat-jsonl" ? chatJsonlLine(t) : format === "atif" ? atifDocument(t, agent) : t;
  return `${JSON.stringify(value)}\n`;
}
