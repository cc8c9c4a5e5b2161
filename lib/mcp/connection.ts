// One MCP client session of an MCP → ORS environment (docs/mcp.md "An MCP server as an
// environment"): a stdio child process or a Streamable HTTP session, on the official SDK's
// `Client`; what went wrong said plainly (the server could not start, exited mid-call, did not
// answer in time), with the end of its stderr. Closing ends the child (the SDK's transport: stdin
// closed, then SIGTERM, then SIGKILL). Relative imports only: the SDK bundle includes it.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";
import type { JsonObject } from "../ors/protocol/schemas";
import type { McpContent } from "./content";

/** How to reach an MCP server: a command to start (stdio) or a Streamable HTTP URL. */
export type McpServerSpec =
  | {
      command: string;
      args?: readonly string[];
      /** Variables the server gets beside PATH, HOME and the like (the SDK's safe defaults). */
      env?: Readonly<Record<string, string>>;
      cwd?: string;
    }
  | {
      url: string;
      /** Headers of every request (e.g. an API key the server wants). */
      headers?: Readonly<Record<string, string>>;
    };

/** A tool as the MCP server lists it. */
export interface McpToolInfo {
  name: string;
  description: string;
  inputSchema: JsonObject;
}

/** An MCP tool call's result. */
export interface McpCallResult {
  content: McpContent[];
  structuredContent?: JsonObject;
  isError: boolean;
}

export interface McpConnection {
  /** The stdio child's process id (null over HTTP). */
  readonly pid: number | null;
  /** Why the server is gone (it exited, the connection closed), or null while it is there. */
  readonly lost: string | null;
  listTools(): Promise<McpToolInfo[]>;
  callTool(
    name: string,
    args: JsonObject,
    o: { signal?: AbortSignal; timeoutMs: number },
  ): Promise<McpCallResult>;
  /** Ends the session (a stdio child is stopped); idempotent. */
  close(): Promise<void>;
}

export interface ConnectOptions {
  /** Variables added to a stdio server's environment (secrets under the names the module gave). */
  extraEnv?: Readonly<Record<string, string>>;
  /** The time limit of starting and initializing. */
  timeoutMs: number;
  /** The environment, as errors name it. */
  label: string;
}

/** Tools listed at most (pages of `tools/list` followed until then). */
const MAX_TOOLS = 1000;
/** The end of a stdio server's stderr kept for error messages. */
const STDERR_TAIL = 2048;

/** How the server is named in messages: its command line or its URL. */
export function describeServer(spec: McpServerSpec): string {
  return "url" in spec ? spec.url : [spec.command, ...(spec.args ?? [])].join(" ");
}

/** Starts (stdio) or opens (HTTP) an MCP session and initializes it. */
export async function connectMcp(spec: McpServerSpec, o: ConnectOptions): Promise<McpConnection> {
  let tail = "";
  const transport =
    "url" in spec
      ? new StreamableHTTPClientTransport(new URL(spec.url), {
          requestInit: { headers: { ...spec.headers } },
        })
      : new StdioClientTransport({
          command: spec.command,
          args: [...(spec.args ?? [])],
          env: { ...spec.env, ...o.extraEnv },
          ...(spec.cwd ? { cwd: spec.cwd } : {}),
          stderr: "pipe",
        });
  if (transport instanceof StdioClientTransport)
    transport.stderr?.on("data", (chunk: Buffer) => {
      tail = (tail + chunk.toString("utf8")).slice(-STDERR_TAIL);
    });
  const stderr = () =>
    tail.trim() ? ` (its stderr ends: ${tail.trim().split("\n").slice(-3).join(" | ")})` : "";
  const what = `the MCP server of ${o.label} (${describeServer(spec)})`;
  const client = new Client({ name: "ors-playground", version: "1.0.0" }, { capabilities: {} });
  let lost: string | null = null;
  let closing = false;
  client.onclose = () => {
    if (!closing) lost ??= `${what} ended the connection: it exited or was stopped${stderr()}`;
  };
  try {
    await client.connect(transport, { timeout: o.timeoutMs });
  } catch (err) {
    closing = true;
    await client.close().catch(() => {});
    throw new Error(`could not start ${what}: ${(err as Error).message}${stderr()}`);
  }
  const pid = transport instanceof StdioClientTransport ? transport.pid : null;

  return {
    pid,
    get lost() {
      return lost;
    },
    async listTools() {
      const tools: McpToolInfo[] = [];
      let cursor: string | undefined;
      do {
        const page = await client.listTools(cursor ? { cursor } : {}, { timeout: o.timeoutMs });
        for (const t of page.tools)
          tools.push({
            name: t.name,
            description: t.description ?? t.title ?? "",
            inputSchema: t.inputSchema as JsonObject,
          });
        cursor = page.nextCursor;
      } while (cursor && tools.length < MAX_TOOLS);
      return tools;
    },
    async callTool(name, args, { signal, timeoutMs }) {
      if (lost) throw new Error(lost);
      try {
        const r = await client.callTool({ name, arguments: args }, undefined, { signal, timeout: timeoutMs });
        return {
          content: (r.content ?? []) as McpContent[],
          ...(r.structuredContent ? { structuredContent: r.structuredContent as JsonObject } : {}),
          isError: r.isError === true,
        };
      } catch (err) {
        if (lost) throw new Error(`${name} did not finish: ${lost}`);
        if (err instanceof McpError && err.code === ErrorCode.RequestTimeout && !signal?.aborted)
          throw new Error(`${what} did not answer ${name} within ${timeoutMs / 1000} s (toolTimeoutMs)`);
        throw err;
      }
    },
    async close() {
      if (closing) return;
      closing = true;
      await client.close().catch(() => {});
    },
  };
}
