// The tools an MCP client sees from the ORS → MCP bridge (docs/mcp.md "The tools"): the bridge's own
// `list_tasks`, `start_episode`, `end_episode` (prefixed `ors_` only when the environment has a
// tool of that name), and the environment's tools with their ORS `input_schema` as `inputSchema`;
// how their arguments are checked, and how an ORS result reads as an MCP result.
import { z } from "zod";
import { describeZodError, type JsonObject, type RunToolOutput, type ToolSpec } from "@/lib/ors/protocol";
import { type McpContent, orsBlocksToMcp } from "./content";

/** The bridge's own tools, by the names the issue gives them (contracts: scripts call them). */
export const CONTROL_TOOLS = ["list_tasks", "start_episode", "end_episode"] as const;
export type ControlTool = (typeof CONTROL_TOOLS)[number];

/** A tool as MCP's `tools/list` gives it. */
export interface McpTool {
  name: string;
  title?: string;
  description: string;
  inputSchema: JsonObject & { type: "object" };
  outputSchema?: JsonObject & { type: "object" };
}

/** An MCP `tools/call` result. */
export interface McpToolResult {
  content: McpContent[];
  structuredContent?: JsonObject;
  isError?: boolean;
  [key: string]: unknown;
}

const name = z.string().min(1).max(200);

export const listTasksArgs = z.strictObject({
  env: name.optional().describe("The environment (default: the only one, or the one the bridge serves)"),
  split: name.optional().describe("The split, e.g. train or test (default: the bridge's, or the only one)"),
  offset: z.number().int().min(0).optional().describe("The first task index to list (default 0)"),
  limit: z
    .number()
    .int()
    .min(1)
    .max(100)
    .optional()
    .describe("How many tasks to list (default 20, at most 100)"),
});

export const startEpisodeArgs = z
  .strictObject({
    env: name.optional().describe("The environment (default: the only one, or the one the bridge serves)"),
    split: name.optional().describe("The split of the task (with index)"),
    index: z.number().int().min(0).optional().describe("The task's index in the split (see list_tasks)"),
    task_spec: z
      .record(z.string(), z.unknown())
      .optional()
      .describe("A task given in full instead of split + index"),
  })
  .refine((a) => (a.index === undefined) !== (a.task_spec === undefined), {
    message: "give either index (with split) or task_spec, not both or neither",
    path: ["index"],
  });

export const endEpisodeArgs = z.strictObject({});

/** What an environment tool's structuredContent holds (the names are contracts). */
export const stepOutputSchema = {
  type: "object",
  properties: {
    reward: { type: ["number", "null"], description: "This call's reward (null: none)" },
    finished: { type: "boolean", description: "Whether the episode is over" },
    total_reward: { type: "number", description: "The episode's reward so far" },
    metadata: { type: ["object", "null"], description: "The environment's metadata of this call" },
  },
  required: ["reward", "finished", "total_reward"],
} as const satisfies JsonObject;

const episodeEndSchema = {
  type: "object",
  properties: {
    finished: { type: "boolean" },
    total_reward: { type: "number" },
    steps: { type: "integer" },
  },
  required: ["finished", "total_reward", "steps"],
} as const satisfies JsonObject;

function jsonSchemaOf(schema: z.ZodType): JsonObject & { type: "object" } {
  const { $schema: _drop, ...rest } = z.toJSONSchema(schema, {
    io: "input",
    unrepresentable: "any",
  }) as JsonObject;
  return { ...rest, type: "object" };
}

const CONTROL_SPECS: Record<ControlTool, Omit<McpTool, "name">> = {
  list_tasks: {
    title: "List tasks",
    description:
      "Lists tasks of a split of the ORS environment: each task's index and a short summary. Start one with start_episode.",
    inputSchema: jsonSchemaOf(listTasksArgs),
  },
  start_episode: {
    title: "Start an episode",
    description:
      "Starts an episode of the ORS environment on a task ({split, index} or {task_spec}) and answers its prompt. " +
      "The environment's tools then play it; a running episode is ended first.",
    inputSchema: jsonSchemaOf(startEpisodeArgs),
  },
  end_episode: {
    title: "End the episode",
    description: "Ends the running episode (its ORS session is deleted) and says its total reward.",
    inputSchema: jsonSchemaOf(endEpisodeArgs),
    outputSchema: episodeEndSchema,
  },
};

/** The name a control tool has beside these environment tools: `ors_<name>` when one is named so. */
export function controlName(tool: ControlTool, envTools: ReadonlySet<string>): string {
  return envTools.has(tool) ? `ors_${tool}` : tool;
}

/** The control tool a called name is, beside these environment tools, or null. */
export function controlOf(called: string, envTools: ReadonlySet<string>): ControlTool | null {
  for (const t of CONTROL_TOOLS) if (controlName(t, envTools) === called) return t;
  return null;
}

/** An ORS input schema as an MCP `inputSchema`, which must be an object schema. */
export function mcpInputSchema(schema: JsonObject | null | undefined): JsonObject & { type: "object" } {
  if (!schema) return { type: "object", properties: {} };
  if (schema.type === undefined || schema.type === "object") return { ...schema, type: "object" };
  // Not an object schema (no ORS server should serve one): the server still checks the input.
  return {
    type: "object",
    description: `The server's input schema: ${JSON.stringify(schema).slice(0, 500)}`,
  };
}

/** The tools an MCP client is shown: the control tools, then the environment's. */
export function listedTools(envTools: readonly ToolSpec[]): McpTool[] {
  const names = new Set(envTools.map((t) => t.name));
  return [
    ...CONTROL_TOOLS.map((t) => ({ name: controlName(t, names), ...CONTROL_SPECS[t] })),
    ...envTools.map((t) => ({
      name: t.name,
      description: t.description,
      inputSchema: mcpInputSchema(t.input_schema),
      outputSchema: stepOutputSchema,
    })),
  ];
}

/** Parses a control tool's arguments; a message naming the fields otherwise. */
export function parseArgs<T>(
  schema: z.ZodType<T>,
  tool: string,
  args: unknown,
): { ok: true; value: T } | { ok: false; error: string } {
  const r = schema.safeParse(args ?? {});
  return r.success
    ? { ok: true, value: r.data }
    : { ok: false, error: `Invalid arguments for ${tool}: ${describeZodError(r.error)}` };
}

/** A tool error: a result the model reads (`isError`), never a protocol error. */
export function toolError(text: string): McpToolResult {
  return { content: [{ type: "text", text }], isError: true };
}

/** The short line a model reads after a call: "reward 1 · finished". */
export function rewardLine(reward: number | null, finished: boolean, total: number): string {
  const parts = [reward === null ? "no reward" : `reward ${reward}`];
  if (finished) parts.push("finished");
  if (total !== (reward ?? 0)) parts.push(`total reward ${total}`);
  return parts.join(" · ");
}

/** An ORS call's result as an MCP result; `total` is the episode's reward after it. */
export function stepResult(out: RunToolOutput, total: number): McpToolResult {
  if (!out.ok) return toolError(out.error);
  const { blocks, reward, finished, metadata } = out.output;
  return {
    content: [...orsBlocksToMcp(blocks), { type: "text", text: rewardLine(reward ?? null, finished, total) }],
    structuredContent: { reward: reward ?? null, finished, total_reward: total, metadata: metadata ?? null },
  };
}

/** A task in a line: its JSON, cut to `max` characters. */
export function taskSummary(task: JsonObject, max = 160): string {
  const json = JSON.stringify(task);
  return json.length <= max ? json : `${json.slice(0, max - 1)}…`;
}
