// The ORS → MCP bridge over Streamable HTTP as a fetch handler (Request → Response): the app mounts it
// at /api/servers/<name>/mcp, `ors-playground mcp --http` serves it at /mcp. One MCP session per
// client (the `Mcp-Session-Id` the SDK's transport hands out), each with its bridge; their number is
// capped and idle ones are closed, so no client can make memory grow without bound. Who may call it
// at all (Host, origin, the access token) is the request policy's, applied before (lib/security).
import { randomUUID } from "node:crypto";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { type OrsBridgeOptions, OrsMcpSession } from "./bridge";

export interface McpHttpOptions {
  /** A new MCP session's bridge options for this server, or null when there is no such server. */
  open(server: string): Promise<OrsBridgeOptions | null> | OrsBridgeOptions | null;
  /** MCP sessions held at once (default 64); beyond, a new one answers 429 (nobody is evicted). */
  maxSessions?: number;
  /** An MCP session without a request for this long is closed, its episode ended (default 60 min). */
  idleMs?: number;
  /** How often idle sessions are looked for (default 60 s; 0: only when `sweep()` is called). */
  sweepEveryMs?: number;
  /** The largest request body (default 4 MiB, the SDK's): 413 beyond. */
  maxBodyBytes?: number;
}

export interface McpHttpHandler {
  /** Answers one HTTP request of the MCP endpoint of `server`. */
  handle(req: Request, server: string): Promise<Response>;
  /** MCP sessions held now. */
  readonly sessions: number;
  /** Closes the sessions idle past the limit (at `now`). */
  sweep(now?: number): Promise<void>;
  /** Closes every session (their episodes end). */
  close(): Promise<void>;
}

interface Held {
  server: string;
  bridge: OrsMcpSession;
  transport: WebStandardStreamableHTTPServerTransport;
  lastSeen: number;
}

const METHODS = "GET, POST, DELETE";

/** A JSON-RPC error answer, shaped as the SDK's transport shapes its own. */
function rpcError(status: number, message: string, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify({ jsonrpc: "2.0", error: { code: -32000, message }, id: null }), {
    status,
    headers: { "content-type": "application/json", "cache-control": "no-store", ...headers },
  });
}

export function createMcpHttpHandler(options: McpHttpOptions): McpHttpHandler {
  const maxSessions = options.maxSessions ?? 64;
  const idleMs = options.idleMs ?? 60 * 60_000;
  const held = new Map<string, Held>();

  const drop = async (id: string) => {
    const h = held.get(id);
    if (!h) return;
    held.delete(id);
    await h.bridge.close();
  };

  const sweep = async (now = Date.now()) => {
    for (const [id, h] of [...held]) if (now - h.lastSeen >= idleMs) await drop(id);
  };
  const every = options.sweepEveryMs ?? 60_000;
  const timer = every > 0 ? setInterval(() => void sweep(), every) : null;
  timer?.unref?.();

  /** A request without a session: an initialize, which opens one. */
  const open = async (req: Request, server: string): Promise<Response> => {
    if (req.method !== "POST")
      return rpcError(400, "Bad Request: no Mcp-Session-Id (start a session with an initialize POST)");
    if (held.size >= maxSessions) await sweep();
    if (held.size >= maxSessions)
      return rpcError(
        429,
        `Too many MCP sessions: this bridge holds at most ${maxSessions} at once; close one (DELETE), or retry later`,
        { "retry-after": "30" },
      );
    const bridgeOptions = await options.open(server);
    if (!bridgeOptions) return rpcError(404, `unknown server ${JSON.stringify(server)}`);
    const bridge = new OrsMcpSession(bridgeOptions);
    const entry: Held = { server, bridge, transport: null as never, lastSeen: Date.now() };
    entry.transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => {
        held.set(id, entry);
      },
      onsessionclosed: (id) => {
        held.delete(id);
      },
      ...(options.maxBodyBytes ? { maxRequestBodySize: options.maxBodyBytes } : {}),
    });
    await bridge.server.connect(entry.transport);
    const res = await entry.transport.handleRequest(req);
    // Not an initialize (the transport said why): nothing is kept for it.
    if (!entry.transport.sessionId || !held.has(entry.transport.sessionId)) await bridge.close();
    return res;
  };

  return {
    async handle(req, server) {
      if (req.method !== "GET" && req.method !== "POST" && req.method !== "DELETE")
        return rpcError(405, `Method ${req.method} is not allowed here`, { allow: METHODS });
      const id = req.headers.get("mcp-session-id");
      if (id === null) return open(req, server);
      const h = held.get(id);
      // The MCP specification's answer to an unknown (or ended) session: 404, the client starts anew.
      if (!h || h.server !== server) return rpcError(404, "Session not found");
      h.lastSeen = Date.now();
      return h.transport.handleRequest(req);
    },
    get sessions() {
      return held.size;
    },
    sweep,
    async close() {
      if (timer) clearInterval(timer);
      await Promise.all([...held.keys()].map(drop));
    },
  };
}
