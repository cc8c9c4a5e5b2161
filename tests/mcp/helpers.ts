// Helpers of the MCP bridge's tests: the official SDK's Client (a real MCP client no one here wrote)
// over Streamable HTTP or stdio, a math episode played through it, and the bridge's HTTP handler
// served on a loopback port as the app's route serves it.
import { execFile } from "node:child_process";
import path from "node:path";
import { promisify } from "node:util";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { expect } from "vitest";
import { generateMathTasks } from "@/envs/math";
import type { McpHttpHandler } from "@/lib/mcp/http";
import { nodeListener } from "@/lib/mcp/node-http";
import { listenHttp } from "@/lib/ors/host";

export const REPO = path.resolve(__dirname, "../..");
export { FIXTURE_SERVER } from "../fixtures/mcp-server/env-module";
/** The tools the fixture MCP server lists (without a FIXTURE_TOKEN), in its order. */
export const FIXTURE_TOOLS = ["add", "fail", "sleep", "whoami", "secret_hash", "picture", "resource"];

/**
 * The time limit of a test that starts processes (the CLI, MCP Inspector, an MCP server): each
 * compiles TypeScript on start, which takes seconds on a busy machine.
 */
export const PROCESS_TEST_MS = 300_000;

/** The clientInfo the tests' MCP clients give: the trajectories they play are tagged with it. */
export const CLIENT_INFO = { name: "mcp-test-client", version: "9.9.9" };

export type ToolResult = {
  content: Array<{ type: string; text?: string; data?: string; mimeType?: string }>;
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
};

/** An SDK client connected over Streamable HTTP to `url`, sending `headers`. */
export async function httpClient(url: string, headers: Record<string, string> = {}): Promise<Client> {
  const client = new Client(CLIENT_INFO, { capabilities: {} });
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }));
  return client;
}

/** An SDK client that starts `command args` and speaks stdio with it. */
export async function stdioClient(
  command: string,
  args: string[],
  env: Record<string, string> = {},
): Promise<{ client: Client; transport: StdioClientTransport }> {
  const transport = new StdioClientTransport({
    command,
    args,
    env: { ...(process.env as Record<string, string>), ...env },
    cwd: REPO,
    stderr: "pipe",
  });
  const client = new Client(CLIENT_INFO, { capabilities: {} });
  await client.connect(transport, { timeout: 120_000 });
  return { client, transport };
}

/** Calls a tool and returns its result (as the SDK validated it). */
export async function call(
  client: Client,
  name: string,
  args: Record<string, unknown> = {},
): Promise<ToolResult> {
  return (await client.callTool({ name, arguments: args }, undefined, { timeout: 120_000 })) as ToolResult;
}

/** The text items of a result, joined. */
export function textOf(r: ToolResult): string {
  return r.content
    .filter((c) => c.type === "text")
    .map((c) => c.text)
    .join("\n");
}

const TRAIN = generateMathTasks("train");

/** Plays `math` train task `index` with the right answer; the submit result. */
export async function playMath(client: Client, index: number): Promise<ToolResult> {
  const started = await call(client, "start_episode", { env: "math", split: "train", index });
  expect(started.isError, textOf(started)).toBeFalsy();
  expect(textOf(started)).toContain(TRAIN[index]!.question);
  return call(client, "submit", { answer: TRAIN[index]!.answer });
}

/** Serves the bridge's handler at `/api/servers/<name>/mcp` on a free loopback port, as the app does. */
export async function serveGateway(
  mcp: McpHttpHandler,
): Promise<{ url: (server: string) => string; close(): Promise<void> }> {
  const listening = await listenHttp(
    nodeListener(async (req) => {
      const m = /^\/api\/servers\/([^/]+)\/mcp$/.exec(new URL(req.url).pathname);
      return m ? mcp.handle(req, decodeURIComponent(m[1]!)) : new Response("not found", { status: 404 });
    }),
    { host: "127.0.0.1", port: 0 },
  );
  return {
    url: (server) => `${listening.url}/api/servers/${encodeURIComponent(server)}/mcp`,
    close: () => listening.close(200),
  };
}

/** Whether a process id is alive (signal 0). */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** npm's settings for the commands the tests run as printed: the local packages, no registry. */
export const NPM_OFFLINE = {
  npm_config_offline: "true",
  npm_config_audit: "false",
  npm_config_fund: "false",
  npm_config_update_notifier: "false",
};

/** Runs a command line in a shell, in the repository, as a reader pastes it; its stdout. */
export async function shell(
  line: string,
  env: Record<string, string> = {},
  timeoutMs = 240_000,
): Promise<string> {
  try {
    const { stdout } = await promisify(execFile)("sh", ["-c", line], {
      cwd: REPO,
      timeout: timeoutMs,
      maxBuffer: 16 << 20,
      env: { ...process.env, ...NPM_OFFLINE, ...env },
    });
    return stdout;
  } catch (e) {
    const err = e as { stdout?: string; stderr?: string; message: string };
    throw new Error(`\`${line}\` failed: ${err.message}\n${err.stdout ?? ""}\n${err.stderr ?? ""}`);
  }
}

/** The JSON MCP Inspector's CLI mode prints (after its notices). */
export function inspectorJson(stdout: string): unknown {
  return JSON.parse(stdout.slice(stdout.indexOf("{")));
}

/** MCP Inspector's CLI mode (the devDependency), as `npx @modelcontextprotocol/inspector --cli` runs it. */
export async function inspector(args: string[], env: Record<string, string> = {}): Promise<unknown> {
  const quoted = args.map((a) => `'${a.replace(/'/g, "'\\''")}'`).join(" ");
  return inspectorJson(await shell(`npx @modelcontextprotocol/inspector --cli ${quoted}`, env));
}
