// node:http glue for the request policy (lib/security): applying it to a request, writing its
// answers, and the requests that never reach a `request` listener (CONNECT, upgrades, malformed
// HTTP), so every one of them gets a clear 4xx with a `{detail}` instead of a reset or a 500.
// Shared by the app's server entry and the standalone host (scripts/serve-main.ts).
import "server-only";
import { type IncomingMessage, type Server, type ServerResponse, STATUS_CODES } from "node:http";
import type { Duplex } from "node:stream";
import { errorBody } from "@/lib/ors/protocol";
import {
  checkRequest,
  type PolicyAnswer,
  type PolicyRequest,
  type RequestPolicy,
} from "@/lib/security/request-policy";

type Listener = (req: IncomingMessage, res: ServerResponse) => void;

/** A node:http request as the policy reads it (a class: no closure per request on the fast path). */
class NodePolicyRequest implements PolicyRequest {
  constructor(private readonly req: IncomingMessage) {}
  get method(): string {
    return this.req.method ?? "GET";
  }
  get target(): string {
    return this.req.url ?? "/";
  }
  header(name: string): string | null {
    const v = this.req.headers[name];
    if (v === undefined) return null;
    return Array.isArray(v) ? v.join(", ") : v;
  }
}

/** Applies the policy to a node:http request: null when it may go on, else the answer to write. */
export function checkNodeRequest(req: IncomingMessage, policy: RequestPolicy): PolicyAnswer | null {
  return checkRequest(new NodePolicyRequest(req), policy);
}

/** Request bodies up to this size are read and dropped after a refusal; larger ones end the connection. */
const DRAIN_LIMIT = 16 * 1024 * 1024;

/**
 * Writes a policy answer. The request's body was not read: a small one is read and dropped so the
 * connection stays usable (closing with unread data would reset it, losing the answer); a large or
 * unsized one is not waited for, the connection closes after the answer.
 */
export function writeAnswer(req: IncomingMessage, res: ServerResponse, answer: PolicyAnswer): void {
  const headers: Record<string, string | number> = {
    ...answer.headers,
    "content-length": Buffer.byteLength(answer.body),
  };
  const declared = Number(req.headers["content-length"] ?? 0);
  if (req.headers["transfer-encoding"] !== undefined || !(declared <= DRAIN_LIMIT))
    headers.connection = "close";
  res.writeHead(answer.status, headers);
  res.end(answer.body);
  req.resume();
}

/**
 * An answer written straight to a socket (CONNECT, refused upgrades, malformed HTTP), then closed.
 * `head`: the request was a HEAD, whose answer has no body.
 */
export function writeRawAnswer(socket: Duplex, answer: PolicyAnswer, head = false): void {
  socket.on("error", () => {});
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  const lines = [`HTTP/1.1 ${answer.status} ${STATUS_CODES[answer.status] ?? ""}`];
  for (const [k, v] of Object.entries(answer.headers)) lines.push(`${k}: ${v}`);
  lines.push(`content-length: ${Buffer.byteLength(answer.body)}`, "connection: close", "", "");
  socket.end(lines.join("\r\n") + (head ? "" : answer.body));
}

function detail(status: number, text: string): PolicyAnswer {
  return {
    status,
    headers: { "content-type": "application/json", "cache-control": "no-store" },
    body: errorBody(text),
  };
}

/** A `request` listener that applies the policy before `next`. */
export function guardListener(policy: () => RequestPolicy, next: Listener): Listener {
  return (req, res) => {
    const refused = checkNodeRequest(req, policy());
    if (refused) writeAnswer(req, res, refused);
    else next(req, res);
  };
}

/**
 * What a node:http server does with requests that skip `request` listeners: CONNECT is refused,
 * malformed HTTP gets 400 (431 for oversized headers), and upgrades pass the policy before
 * `upgrade` (when there is none, they are refused).
 */
export function guardServer(
  server: Server,
  policy: () => RequestPolicy,
  upgrade?: (req: IncomingMessage, socket: Duplex, head: Buffer) => void,
): void {
  server.on("connect", (_req: IncomingMessage, socket: Duplex) => {
    writeRawAnswer(socket, detail(405, "CONNECT is not allowed: this server is not a proxy"));
  });
  server.on("clientError", (err: NodeJS.ErrnoException & { rawPacket?: Buffer }, socket: Duplex) => {
    if (err.code === "ECONNRESET" || !socket.writable) {
      socket.destroy();
      return;
    }
    const head = err.rawPacket?.subarray(0, 5).toString("latin1") === "HEAD ";
    if (err.code === "HPE_HEADER_OVERFLOW")
      writeRawAnswer(socket, detail(431, "request headers too large"), head);
    else if (err.code === "ERR_HTTP_REQUEST_TIMEOUT")
      writeRawAnswer(socket, detail(408, "the request was not received in time"), head);
    else writeRawAnswer(socket, detail(400, `malformed HTTP request (${err.code ?? "parse error"})`), head);
  });
  server.on("upgrade", (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    const refused = checkNodeRequest(req, policy());
    if (refused) writeRawAnswer(socket, refused);
    else if (upgrade) upgrade(req, socket, head);
    else writeRawAnswer(socket, detail(400, "this server takes no protocol upgrades"));
  });
}
