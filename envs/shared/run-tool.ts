// Test helper: runs an environment's tools directly through the SDK objects (no HTTP), the way
// the host does — shared tools plus the task's own tools, input validated by the tool's schema.
import type { AnyEnvironment, JsonObject, ToolResult } from "@/lib/ors/sdk";

export interface DirectSession {
  readonly task: JsonObject;
  state: Record<string, unknown>;
  /** Every tool of the session, shared and task-specific. */
  toolNames(): string[];
  prompt(): Promise<ReturnType<AnyEnvironment["definition"]["getPrompt"]>>;
  /** Validates and runs a tool; validation failures come back as `{ ok: false, error }`. */
  call(
    name: string,
    input?: unknown,
  ): Promise<{ ok: true; result: ToolResult } | { ok: false; error: string }>;
  setup(): Promise<void>;
}

export async function openDirectSession(
  env: AnyEnvironment,
  task: JsonObject | { split: string; index: number },
  options: { secrets?: Record<string, string>; signal?: AbortSignal } = {},
): Promise<DirectSession> {
  const spec: JsonObject =
    "split" in task && typeof task.split === "string" && typeof task.index === "number"
      ? await env.getTask(task.split, task.index)
      : (task as JsonObject);
  const secrets = options.secrets ?? {};
  const signal = options.signal ?? new AbortController().signal;
  const ctx = {
    sessionId: "direct-test-session",
    task: spec,
    secrets,
    state: env.definition.createState?.({ task: spec, secrets }) ?? {},
  };
  const tools = () => {
    const all = new Map(env.tools);
    for (const [k, v] of Object.entries(env.definition.taskTools?.(ctx) ?? {})) all.set(k, v);
    return all;
  };
  return {
    task: spec,
    get state() {
      return ctx.state;
    },
    set state(s) {
      ctx.state = s;
    },
    toolNames: () => [...tools().keys()],
    prompt: async () => env.definition.getPrompt(ctx),
    setup: async () => env.definition.setup?.(ctx),
    async call(name, input = {}) {
      const tool = tools().get(name);
      if (!tool) return { ok: false, error: `Unknown tool ${name}` };
      const parsed = tool.parse(input);
      if (!parsed.ok) return { ok: false, error: parsed.error };
      return { ok: true, result: await tool.run(parsed.value, { ...ctx, signal }) };
    },
  };
}

/** The text of a tool result's text blocks, joined. */
export function resultText(result: ToolResult): string {
  return result.blocks
    .filter((b) => b.type === "text")
    .map((b) => (b as { text: string }).text)
    .join("\n");
}
