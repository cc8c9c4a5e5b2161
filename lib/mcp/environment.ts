// MCP → ORS (docs/mcp.md "An MCP server as an environment"): `defineMcpEnvironment` makes an MCP
// server plus tasks plus a reward an ORS environment, hosted like any other. Each ORS session starts
// its own MCP session in its setup and closes it in its teardown (`/delete`, idle expiry); the MCP
// server's tools are the environment's tools, their content mapped to ORS blocks. Exported from the
// SDK entry (`ors-playground/sdk`); relative imports only, as the SDK bundle needs.
import type { Block, JsonObject, SplitType } from "../ors/protocol/schemas";
import {
  defineEnvironment,
  type Environment,
  type SessionContext,
  type Tool,
  type ToolContext,
  type ToolResult,
} from "../ors/sdk/define";
import { compileJsonSchema } from "../ors/sdk/json-schema";
import {
  connectMcp,
  describeServer,
  type McpConnection,
  type McpServerSpec,
  type McpToolInfo,
} from "./connection";
import { type McpContent, mcpContentToOrsBlocks, mcpText } from "./content";

export type { McpServerSpec } from "./connection";

/** One MCP tool call of an episode, as `reward` and `finished` see it. */
export interface McpToolCall {
  tool: string;
  input: JsonObject;
  /** The MCP content of the result. */
  content: McpContent[];
  /** Its text items joined by newlines. */
  text: string;
  structuredContent?: JsonObject;
  /** The MCP server said the call failed (`isError`). */
  isError: boolean;
}

/** What an MCP environment's tools (its own, and the extra ORS tools) find in `ctx.state`. */
export interface McpSessionState {
  /** The session's MCP server: extra tools may call its tools themselves (not counted in `calls`). */
  mcp: { callTool(name: string, input: JsonObject): Promise<McpToolCall>; readonly pid: number | null };
  /**
   * The MCP tool calls of the episode so far, oldest first: the last MAX_KEPT_CALLS, within
   * MAX_KEPT_CHARS of content (older ones are dropped first, so a long episode's memory is bounded).
   */
  calls: McpToolCall[];
}

type Awaitable<T> = T | Promise<T>;

export interface McpEnvironmentDefinition<Task extends JsonObject = JsonObject> {
  name: string;
  description?: string;
  /** The MCP server each session starts (`{command, args, env}`) or opens (`{url, headers}`). */
  server: McpServerSpec;
  /**
   * Secrets of `/create` the server gets, as environment variables of a stdio server: a list of
   * names (the variable is named as the secret), or `{secret: VARIABLE}`. Others never reach it.
   */
  secrets?: readonly string[] | Readonly<Record<string, string>>;
  /** The tasks by split: `{ train: [...] }` (a split named train, validation or test has that type), or `{ name: { type, tasks } }`. */
  splits: Readonly<Record<string, readonly Task[] | { type: SplitType; tasks: readonly Task[] }>>;
  /** The task's prompt. */
  prompt(task: Task): Awaitable<string | Block[]>;
  /** The reward of the latest MCP tool call, from every call so far (default: none). */
  reward?(task: Task, calls: readonly McpToolCall[]): Awaitable<number | null | undefined>;
  /** Whether the episode is over after the latest MCP tool call (default: never). */
  finished?(task: Task, calls: readonly McpToolCall[]): Awaitable<boolean>;
  /** Extra ORS tools beside the MCP server's, such as a `submit` (defineTool; state: McpSessionState). */
  tools?: Readonly<Record<string, Tool<Task, McpSessionState>>>;
  /** How long an MCP tool call may take (default 60 s). The host's ORS_CALL_TIMEOUT_MS ends it sooner. */
  toolTimeoutMs?: number;
  /** How long starting and initializing the MCP server may take (default 30 s). */
  startTimeoutMs?: number;
}

const SPLIT_TYPES = new Set(["train", "validation", "test"]);
const NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]*$/;

function splitsOf<Task>(where: string, splits: McpEnvironmentDefinition["splits"]) {
  const entries = Object.entries(splits ?? {});
  if (entries.length === 0) throw new Error(`${where}: has no splits`);
  return entries.map(([name, v]) => {
    if (Array.isArray(v)) {
      if (!SPLIT_TYPES.has(name))
        throw new Error(
          `${where}: split ${JSON.stringify(name)} needs a type: { ${name}: { type: "train", tasks } }`,
        );
      return { name, type: name as SplitType, tasks: v as unknown as Task[] };
    }
    const s = v as { type: SplitType; tasks: Task[] };
    if (!Array.isArray(s?.tasks))
      throw new Error(`${where}: split ${JSON.stringify(name)} has no tasks array`);
    return { name, type: s.type, tasks: s.tasks };
  });
}

/** The secrets of `/create` as the server's variables, under the names the module gave. */
function secretVariables(
  names: McpEnvironmentDefinition["secrets"],
  secrets: Readonly<Record<string, string>>,
): Record<string, string> {
  const map: Record<string, string> = Array.isArray(names)
    ? Object.fromEntries((names as string[]).map((n) => [n, n]))
    : { ...(names as Record<string, string> | undefined) };
  const out: Record<string, string> = {};
  for (const [secret, variable] of Object.entries(map))
    if (secret in secrets) out[variable] = secrets[secret]!;
  return out;
}

/** The calls a session keeps for `reward` and `finished` at most, and the characters of their content. */
export const MAX_KEPT_CALLS = 1000;
export const MAX_KEPT_CHARS = 32 * 1024 * 1024;

/** Adds a call to the session's, dropping the oldest beyond the caps (the newest is always kept). */
function keep(state: Internal, call: McpToolCall): void {
  const size = JSON.stringify(call.content).length;
  state.calls.push(call);
  state.sizes.push(size);
  state.chars += size;
  while (state.calls.length > 1 && (state.calls.length > MAX_KEPT_CALLS || state.chars > MAX_KEPT_CHARS)) {
    state.calls.shift();
    state.chars -= state.sizes.shift()!;
  }
}

interface Internal extends McpSessionState {
  /** The content size of each kept call, and their sum. */
  sizes: number[];
  chars: number;
  connection: McpConnection | null;
  /** This session's tools that the listing at definition did not have (or had otherwise). */
  own: Record<string, Tool<JsonObject, McpSessionState>>;
}

function toCall(
  tool: string,
  input: JsonObject,
  r: Awaited<ReturnType<McpConnection["callTool"]>>,
): McpToolCall {
  return {
    tool,
    input,
    content: r.content,
    text: mcpText(r.content),
    ...(r.structuredContent ? { structuredContent: r.structuredContent } : {}),
    isError: r.isError,
  };
}

/** An MCP tool as an ORS tool: the call goes to the session's MCP server, the result is mapped back. */
function forwarder<Task extends JsonObject>(
  def: McpEnvironmentDefinition<Task>,
  info: McpToolInfo,
  timeoutMs: number,
): Tool<Task, McpSessionState> {
  let validate: ((raw: unknown) => { ok: true; value: unknown } | { ok: false; error: string }) | null = null;
  try {
    validate = compileJsonSchema(info.inputSchema);
  } catch {
    // A schema AJV cannot compile: the MCP server checks the input itself.
  }
  return {
    kind: "ors-tool",
    description: info.description,
    inputSchema: info.inputSchema,
    parse(raw) {
      const r = validate ? validate(raw ?? {}) : { ok: true as const, value: raw ?? {} };
      return r.ok ? r : { ok: false, error: `Invalid input: ${r.error}` };
    },
    async run(input, ctx: ToolContext<Task, McpSessionState>): Promise<ToolResult> {
      const state = ctx.state as Internal;
      if (!state.connection) throw new Error("the MCP session is not open");
      const args = (input ?? {}) as JsonObject;
      const r = await state.connection.callTool(info.name, args, { signal: ctx.signal, timeoutMs });
      const call = toCall(info.name, args, r);
      keep(state, call);
      if (r.isError) throw new Error(call.text || `${info.name} failed (the MCP server gave no message)`);
      const calls = [...state.calls];
      return {
        blocks: mcpContentToOrsBlocks(r.content),
        reward: (await def.reward?.(ctx.task, calls)) ?? null,
        finished: (await def.finished?.(ctx.task, calls)) ?? false,
        metadata: r.structuredContent ?? null,
      };
    },
  };
}

/**
 * Lists the MCP server's tools once, at definition (the server started without secrets and closed),
 * and returns the environment. Throws, naming the environment, when the definition is incomplete,
 * the server cannot start, or an extra tool has the name of one of the server's.
 *
 * @example
 * export default defineMcpEnvironment({
 *   name: "files",
 *   server: { command: "npx", args: ["-y", "@modelcontextprotocol/server-filesystem", "/tmp/work"] },
 *   splits: { train: [{ file: "notes.txt", answer: "42" }] },
 *   prompt: (task) => `Read ${task.file} and say the number in it.`,
 *   reward: (task, calls) => (calls.at(-1)?.text.includes(String(task.answer)) ? 1 : 0),
 * });
 */
export async function defineMcpEnvironment<Task extends JsonObject = JsonObject>(
  def: McpEnvironmentDefinition<Task>,
): Promise<Environment<Task, McpSessionState>> {
  const where = `MCP environment ${JSON.stringify(def?.name)}`;
  const server = def?.server as Partial<Record<string, unknown>> | undefined;
  if (!server || (typeof server.command !== "string" && typeof server.url !== "string"))
    throw new Error(`${where}: server must be { command, args, env } or { url }`);
  if (typeof def.prompt !== "function") throw new Error(`${where}: prompt must be a function`);
  const splits = splitsOf<Task>(where, def.splits);
  const timeoutMs = def.toolTimeoutMs ?? 60_000;
  const startTimeoutMs = def.startTimeoutMs ?? 30_000;
  const open = (secrets: Readonly<Record<string, string>>) =>
    connectMcp(def.server, {
      extraEnv: secretVariables(def.secrets, secrets),
      timeoutMs: startTimeoutMs,
      label: def.name,
    });

  const probe = await open({});
  let listed: McpToolInfo[];
  try {
    listed = await probe.listTools();
  } finally {
    await probe.close();
  }
  const tools: Record<string, Tool<Task, McpSessionState>> = {};
  for (const info of listed) {
    if (!NAME.test(info.name)) {
      console.error(`${where}: the MCP tool ${JSON.stringify(info.name)} is left out (not an ORS tool name)`);
      continue;
    }
    tools[info.name] = forwarder(def, info, timeoutMs);
  }
  for (const [name, tool] of Object.entries(def.tools ?? {})) {
    if (name in tools)
      throw new Error(
        `${where}: the extra tool ${JSON.stringify(name)} has the name of a tool of ${describeServer(def.server)}`,
      );
    tools[name] = tool;
  }

  const probed = new Map(listed.map((t) => [t.name, JSON.stringify(t)]));
  const byName = new Map(splits.map((s) => [s.name, s.tasks]));
  return defineEnvironment<Task, McpSessionState>({
    name: def.name,
    description: def.description ?? `The MCP server ${describeServer(def.server)} as an ORS environment`,
    splits: splits.map((s) => ({ name: s.name, type: s.type })),
    listTasks: (split) => [...(byName.get(split) ?? [])],
    getPrompt: ({ task }) => def.prompt(task),
    tools,
    createState: () =>
      ({ connection: null, calls: [], sizes: [], chars: 0, mcp: null as never, own: {} }) as Internal,
    setup: async (ctx: SessionContext<Task, McpSessionState>) => {
      const state = ctx.state as Internal;
      const connection = await open(ctx.secrets);
      // The session's own listing: a server may list other tools once it has its secrets.
      try {
        for (const info of await connection.listTools())
          if (
            NAME.test(info.name) &&
            probed.get(info.name) !== JSON.stringify(info) &&
            !def.tools?.[info.name]
          )
            state.own[info.name] = forwarder(def, info, timeoutMs) as unknown as Tool<
              JsonObject,
              McpSessionState
            >;
      } catch (err) {
        await connection.close();
        throw err;
      }
      state.connection = connection;
      state.mcp = {
        pid: connection.pid,
        callTool: async (name, input) =>
          toCall(name, input, await connection.callTool(name, input, { timeoutMs })),
      };
    },
    taskTools: (ctx) => (ctx.state as Internal).own as unknown as Record<string, Tool<Task, McpSessionState>>,
    teardown: async (ctx) => {
      await (ctx.state as Internal).connection?.close();
    },
  });
}
