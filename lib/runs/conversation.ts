// An episode as a chat (docs/runs.md "The model's conversation"): the prompt's blocks become the
// user message, each policy turn an assistant message with its tool calls, each call's output the
// `tool` message answering it (images follow as a user message: `tool` messages carry text only).
// One builder serves the model policy (turn by turn, from what it played), a model at the controls
// of a live episode (from the recorded trajectory, whoever made its steps) and the chat JSONL
// export. Messages are in the OpenAI Chat Completions format. Isomorphic.

import type { Block, JsonObject } from "@/lib/ors/protocol";
import type { AgentEnd, Trajectory, TrajectoryStep } from "@/lib/trajectory/schema";
import type { TurnUsage } from "./policy";

export type ChatContentPart =
  | { type: "text"; text: string }
  | { type: "image_url"; image_url: { url: string } };

export interface ChatToolCall {
  id: string;
  type: "function";
  function: { name: string; arguments: string };
}

export type ChatMessage =
  | { role: "system"; content: string }
  | { role: "user"; content: string | ChatContentPart[] }
  | { role: "assistant"; content: string | null; tool_calls?: ChatToolCall[] }
  | { role: "tool"; tool_call_id: string; content: string };

/** How a call went, as the conversation shows it (null: no answer yet). */
export type TranscriptResult = { ok: true; blocks: Block[] } | { ok: false; error: string } | null;

export interface TranscriptCall {
  id: string;
  tool: string;
  input: JsonObject;
  result: TranscriptResult;
}

/** One turn of the episode: what was said, and the calls made (one turn per call a person made). */
export interface TranscriptTurn {
  message: string | null;
  calls: TranscriptCall[];
  usage?: TurnUsage | null;
}

/** How a step reads in the conversation. */
export function resultOfStep(s: TrajectoryStep): TranscriptResult {
  if (s.ok === null) return null;
  if (s.ok) return { ok: true, blocks: s.blocks };
  return { ok: false, error: s.error ?? "the call failed" };
}

/**
 * The turns of a recorded episode: steps a policy made grouped by its turn (their `agent.turn`),
 * each step a person made a turn of its own, with an id of its own (`call_<step>`). Steps after
 * the end are left out (they are not part of the episode).
 */
export function transcriptOf(t: Pick<Trajectory, "steps">): TranscriptTurn[] {
  const turns: TranscriptTurn[] = [];
  let lastTurn: number | null = null;
  for (const s of t.steps) {
    if (s.after_end) continue;
    const call: TranscriptCall = {
      id: s.agent?.call_id ?? `call_${s.index}`,
      tool: s.tool,
      input: s.input,
      result: resultOfStep(s),
    };
    const turn = s.agent?.turn ?? null;
    if (turn !== null && turn === lastTurn && turns.length) turns[turns.length - 1]!.calls.push(call);
    else
      turns.push({
        message: s.agent?.message ?? null,
        calls: [call],
        usage: s.agent?.usage
          ? { promptTokens: s.agent.usage.prompt_tokens, completionTokens: s.agent.usage.completion_tokens }
          : null,
      });
    lastTurn = turn;
  }
  return turns;
}

/** The policy turn the next model answer will be (1-based): one after the last recorded. */
export function nextTurnNumber(t: Pick<Trajectory, "steps">): number {
  let n = 0;
  for (const s of t.steps) n = Math.max(n, s.agent?.turn ?? 0);
  return Math.max(n, transcriptOf(t).length) + 1;
}

function imagePart(b: Extract<Block, { type: "image" }>): ChatContentPart {
  return { type: "image_url", image_url: { url: `data:${b.mimeType};base64,${b.data}` } };
}

/** Blocks as a user message's content: plain text when there are no images. */
export function userContent(blocks: Block[]): string | ChatContentPart[] {
  if (blocks.every((b) => b.type === "text"))
    return blocks.map((b) => (b as { text: string }).text).join("\n\n");
  return blocks.map((b) => (b.type === "text" ? { type: "text" as const, text: b.text } : imagePart(b)));
}

/** A call's result as the `tool` message's text (and its images, which follow it). */
function toolAnswer(r: TranscriptResult): { text: string; images: ChatContentPart[] } {
  if (r === null) return { text: "Error: no result (the call did not complete)", images: [] };
  if (!r.ok) return { text: `Error: ${r.error}`, images: [] };
  const texts = r.blocks.filter((b) => b.type === "text").map((b) => (b as { text: string }).text);
  const images = r.blocks
    .filter((b) => b.type === "image")
    .map((b) => imagePart(b as Extract<Block, { type: "image" }>));
  if (images.length) texts.push(`[${images.length} image${images.length === 1 ? "" : "s"} attached below]`);
  return { text: texts.join("\n\n"), images };
}

export interface ChatOptions {
  /** A system message first. */
  system?: string | null;
  /** The name the model knows each tool by (see ./tool-schema.ts); default the ORS name. */
  functionName?: (tool: string) => string;
  /** The policy's last words (an answer without a tool call), as a final assistant message. */
  end?: AgentEnd | null;
}

/** The conversation of an episode: prompt, turns, and (for exports) the policy's final answer. */
export function chatMessages(prompt: Block[], turns: TranscriptTurn[], o: ChatOptions = {}): ChatMessage[] {
  const name = o.functionName ?? ((t: string) => t);
  const messages: ChatMessage[] = [];
  if (o.system) messages.push({ role: "system", content: o.system });
  messages.push({ role: "user", content: userContent(prompt) });
  for (const turn of turns) {
    messages.push({
      role: "assistant",
      content: turn.message,
      tool_calls: turn.calls.map((c) => ({
        id: c.id,
        type: "function",
        function: { name: name(c.tool), arguments: JSON.stringify(c.input) },
      })),
    });
    const images: ChatContentPart[] = [];
    for (const c of turn.calls) {
      const answer = toolAnswer(c.result);
      messages.push({ role: "tool", tool_call_id: c.id, content: answer.text });
      if (answer.images.length)
        images.push({ type: "text", text: `Images returned by ${c.tool} (${c.id}):` }, ...answer.images);
    }
    if (images.length) messages.push({ role: "user", content: images });
  }
  if (o.end?.message) messages.push({ role: "assistant", content: o.end.message });
  return messages;
}
