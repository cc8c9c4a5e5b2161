// The `model` policy (docs/runs.md "Policies"): any OpenAI-compatible Chat Completions endpoint
// with tool calling, through the AI SDK (`ai` + `@ai-sdk/openai-compatible`). The ORS tools are
// function tools without `execute` (the playground calls them, through the relay); the episode is
// rebuilt as a chat every turn (./conversation.ts), so one turn needs nothing but what was played.
// 429 and 5xx answers are retried by the SDK, honouring `Retry-After`.
import "server-only";
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import {
  generateText,
  jsonSchema,
  type ModelMessage,
  streamText,
  type Tool,
  type ToolCallPart,
  tool,
  type UserContent,
} from "ai";
import type { Block, JsonObject, ToolSpec } from "@/lib/ors/protocol";
import { functionNames, parametersOf } from "@/lib/ors/protocol/tool-schema";
import { type ChatContentPart, type ChatMessage, chatMessages, type TranscriptTurn } from "./conversation";
import type { ModelEndpoint, ModelRegistry } from "./models";
import { type Policy, PolicyError, type PolicyTurn, stopTurn, type TurnUsage } from "./policy";

export interface ModelSettings {
  /** The model's id at the endpoint, e.g. `gpt-4o-mini`, `qwen2.5-7b-instruct`. */
  model: string;
  temperature?: number;
  /** The most tokens one answer may take. */
  maxTokens?: number;
  /** A system message before the prompt. */
  system?: string;
  /** Ask for a streamed answer (Server-Sent Events) instead of one JSON answer. */
  stream?: boolean;
  /** Keep `$defs`/`$ref` in tool schemas (default: inlined, which every provider reads). */
  keepRefs?: boolean;
  /** Retries of a 429/5xx answer (default 4), each after the endpoint's `Retry-After` when it sends one. */
  maxRetries?: number;
  /** Time limit of one model answer (default 120 s). */
  timeoutMs?: number;
}

/** A client of one endpoint: the AI SDK model, with its key and pinned fetch. */
export interface ModelClient {
  endpoint: ModelEndpoint;
  settings: ModelSettings;
  /** Removes the key from a text (an error message from the provider), defensively. */
  redact(text: string): string;
  languageModel: ReturnType<ReturnType<typeof createOpenAICompatible>["chatModel"]>;
}

export function createModelClient(
  models: ModelRegistry,
  endpoint: ModelEndpoint,
  settings: ModelSettings,
): ModelClient {
  const apiKey = models.apiKey(endpoint);
  const provider = createOpenAICompatible({
    name: "playground",
    baseURL: endpoint.baseUrl,
    ...(apiKey ? { apiKey } : {}),
    fetch: models.fetchFor(endpoint),
    includeUsage: true,
  });
  return {
    endpoint,
    settings,
    redact: (text) => (apiKey && apiKey.length >= 4 ? text.split(apiKey).join("[redacted]") : text),
    languageModel: provider.chatModel(settings.model),
  };
}

function dataUrlPart(url: string): { image: string; mediaType?: string } {
  const m = /^data:([^;,]+);base64,(.*)$/s.exec(url);
  return m ? { image: m[2]!, mediaType: m[1] } : { image: url };
}

/** OpenAI-format messages as the AI SDK's (tool results as text, images as image parts). */
export function toModelMessages(messages: ChatMessage[]): ModelMessage[] {
  const toolNames = new Map<string, string>();
  const part = (p: ChatContentPart) =>
    p.type === "text"
      ? { type: "text" as const, text: p.text }
      : { type: "image" as const, ...dataUrlPart(p.image_url.url) };
  return messages.map((m): ModelMessage => {
    if (m.role === "system") return { role: "system", content: m.content };
    if (m.role === "user")
      return {
        role: "user",
        content: (typeof m.content === "string" ? m.content : m.content.map(part)) as UserContent,
      };
    if (m.role === "tool")
      return {
        role: "tool",
        content: [
          {
            type: "tool-result",
            toolCallId: m.tool_call_id,
            toolName: toolNames.get(m.tool_call_id) ?? "tool",
            output: { type: "text", value: m.content },
          },
        ],
      };
    const content: ({ type: "text"; text: string } | ToolCallPart)[] = [];
    if (m.content) content.push({ type: "text", text: m.content });
    for (const c of m.tool_calls ?? []) {
      toolNames.set(c.id, c.function.name);
      let input: unknown = {};
      try {
        input = JSON.parse(c.function.arguments);
      } catch {
        input = c.function.arguments;
      }
      content.push({ type: "tool-call", toolCallId: c.id, toolName: c.function.name, input });
    }
    return { role: "assistant", content };
  });
}

const isObject = (v: unknown): v is JsonObject => typeof v === "object" && v !== null && !Array.isArray(v);

/** Why a model call failed, in words (status and the provider's message; never a key). */
function describeModelError(client: ModelClient, err: unknown): string {
  const e = err as { name?: string; message?: string; statusCode?: number; lastError?: unknown };
  const last = (e.lastError ?? err) as { statusCode?: number; message?: string };
  const status = last.statusCode ?? e.statusCode;
  const what = last.message ?? e.message ?? String(err);
  return client.redact(
    `model endpoint "${client.endpoint.name}" (${client.endpoint.baseUrl}) failed${status ? ` with HTTP ${status}` : ""}: ${what}`,
  );
}

export interface ModelTurnInput {
  prompt: Block[];
  tools: ToolSpec[];
  turns: TranscriptTurn[];
  signal?: AbortSignal;
}

/**
 * One model turn: the episode so far as a chat, sent once (with retries); its tool calls (ORS
 * names and object inputs), its text and token usage. An answer without a tool call stops the
 * episode (`no_tool_call`); a call whose arguments are not a JSON object stops it too
 * (`invalid_tool_call`, the arguments in the message), since no ORS call can carry them.
 */
export async function modelTurn(client: ModelClient, input: ModelTurnInput): Promise<PolicyTurn> {
  const s = client.settings;
  const names = functionNames(input.tools);
  const tools: Record<string, Tool> = {};
  for (const t of input.tools)
    tools[names.toFunction(t.name)] = tool({
      description: t.description,
      inputSchema: jsonSchema(parametersOf(t, { inline: !s.keepRefs }) as never),
    });
  const messages = toModelMessages(
    chatMessages(input.prompt, input.turns, { system: s.system ?? null, functionName: names.toFunction }),
  );
  const common = {
    model: client.languageModel,
    messages,
    tools,
    toolChoice: "auto" as const,
    ...(s.temperature !== undefined ? { temperature: s.temperature } : {}),
    ...(s.maxTokens !== undefined ? { maxOutputTokens: s.maxTokens } : {}),
    maxRetries: s.maxRetries ?? 4,
    abortSignal: input.signal
      ? AbortSignal.any([input.signal, AbortSignal.timeout(s.timeoutMs ?? 120_000)])
      : AbortSignal.timeout(s.timeoutMs ?? 120_000),
  };
  let text: string;
  let calls: { toolCallId: string; toolName: string; input: unknown }[];
  let usage: { inputTokens?: number; outputTokens?: number };
  try {
    if (s.stream) {
      let failure: unknown = null;
      const r = streamText({
        ...common,
        onError: ({ error }) => {
          failure ??= error;
        },
      });
      [text, calls, usage] = await Promise.all([r.text, r.toolCalls, r.usage]);
      if (failure) throw failure;
    } else {
      const r = await generateText(common);
      [text, calls, usage] = [r.text, r.toolCalls, r.usage];
    }
  } catch (err) {
    if (input.signal?.aborted) throw input.signal.reason;
    throw new PolicyError(describeModelError(client, err), { cause: err });
  }
  const turnUsage: TurnUsage | null =
    usage.inputTokens !== undefined || usage.outputTokens !== undefined
      ? { promptTokens: usage.inputTokens ?? 0, completionTokens: usage.outputTokens ?? 0 }
      : null;
  const message = text.trim() ? text : null;
  if (calls.length === 0) return stopTurn("no_tool_call", message, turnUsage);
  const bad = calls.find((c) => !isObject(c.input));
  if (bad)
    return stopTurn(
      "invalid_tool_call",
      `${message ? `${message}\n\n` : ""}[the model called ${bad.toolName} with arguments that are not a JSON object: ${String(JSON.stringify(bad.input)).slice(0, 2000)}]`,
      turnUsage,
    );
  return {
    calls: calls.map((c) => ({
      id: c.toolCallId,
      tool: names.toTool(c.toolName) ?? c.toolName,
      input: c.input as JsonObject,
    })),
    message,
    usage: turnUsage,
  };
}

/** The model policy of a run: one chat per episode, rebuilt from what it played each turn. */
export function createModelPolicy(client: ModelClient): Policy {
  const s = client.settings;
  return {
    kind: "model",
    label: `model ${s.model} at ${client.endpoint.name === "cli" ? client.endpoint.baseUrl : client.endpoint.name}`,
    model: s.model,
    startEpisode(ctx) {
      const turns: TranscriptTurn[] = [];
      return {
        async next(outcomes) {
          const last = turns.at(-1);
          if (last)
            for (const o of outcomes) {
              const c = last.calls.find((x) => x.id === o.call.id);
              if (c)
                c.result = o.result.ok
                  ? { ok: true, blocks: o.result.output.blocks }
                  : { ok: false, error: o.result.error };
            }
          // Calls of the last turn not played (the episode finished before them) are left out.
          if (last) last.calls = last.calls.filter((c) => c.result !== null);
          const turn = await modelTurn(client, {
            prompt: ctx.prompt,
            tools: ctx.tools,
            turns,
            signal: ctx.signal,
          });
          if (turn.calls.length)
            turns.push({
              message: turn.message,
              calls: turn.calls.map((c) => ({ ...c, result: null })),
              usage: turn.usage,
            });
          return turn;
        },
      };
    },
  };
}
