// The ORS → MCP bridge over stdio, what Claude Code, Claude Desktop and Cursor launch: one MCP
// session on this process's stdin and stdout until the client closes stdin or `signal` aborts.
// stdout carries the protocol alone, so everything the process would print there goes to stderr.
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { type OrsBridgeOptions, OrsMcpSession } from "./bridge";

export interface StdioOptions {
  signal?: AbortSignal;
  stdin?: NodeJS.ReadableStream & { pause(): unknown };
  stdout?: NodeJS.WritableStream;
  /** Where the SDK's errors (a malformed message) are reported (default: stderr). */
  log?: (line: string) => void;
}

/**
 * Serves one MCP session over stdio; resolves once it is over (stdin closed, or `signal`), after
 * the running episode's ORS session was deleted.
 */
export async function serveMcpStdio(bridge: OrsBridgeOptions, o: StdioOptions = {}): Promise<void> {
  const stdin = o.stdin ?? process.stdin;
  const log = o.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const restore = stdoutToStderr();
  const session = new OrsMcpSession({ ...bridge, log });
  const transport = new StdioServerTransport(stdin as never, (o.stdout ?? process.stdout) as never);
  const over = new Promise<void>((resolve) => {
    const end = () => void session.close().then(resolve, resolve);
    stdin.once("end", end);
    stdin.once("close", end);
    o.signal?.addEventListener("abort", end, { once: true });
    if (o.signal?.aborted) end();
    session.server.onclose = end;
  });
  // A line that is not JSON-RPC: the SDK reports it here and reads on (no answer has an id to go to).
  session.server.onerror = (err) => log(`[mcp] ${err.message}`);
  try {
    await session.server.connect(transport);
    await over;
  } finally {
    restore();
  }
}

/**
 * Sends console.log/info/debug to stderr (an environment's or a library's output must not break the
 * protocol); returns what undoes it.
 */
export function stdoutToStderr(): () => void {
  const saved = { log: console.log, info: console.info, debug: console.debug };
  console.log = console.info = console.debug = console.error;
  return () => Object.assign(console, saved);
}
