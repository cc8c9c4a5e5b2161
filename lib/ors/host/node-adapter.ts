// The node:http adapter of the ORS host (`npm run serve`, training-scale loads). Same
// handler, no web streams on the hot path: JSON bodies are written whole, SSE streams are written
// as they come with backpressure (waits for 'drain'), and a closed connection cancels the stream.
import {
  createServer,
  type IncomingMessage,
  type Server,
  type ServerOptions,
  type ServerResponse,
} from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { errorBody, INTERNAL_ERROR_DETAIL, OrsError } from "../protocol/http-error";
import type { OrsHandler } from "./handler";
import { JSON_CONTENT_TYPE, type OrsReply, SSE_HEADERS } from "./reply";
import { type IncomingOrsRequest, pathOf, tooLarge } from "./request";

const WRITE_BATCH = 64 * 1024;

function readNodeBody(req: IncomingMessage, limit: number): Promise<string> {
  const declared = req.headers["content-length"];
  if (declared !== undefined && Number(declared) > limit) {
    req.resume();
    return Promise.reject(tooLarge(limit));
  }
  // Inline callbacks and a `done` flag instead of named handlers removed afterwards: this runs for
  // most requests, and under tsx each named closure costs a property definition.
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    let total = 0;
    let done = false;
    req.on("data", (chunk: Buffer) => {
      if (done) return;
      total += chunk.length;
      if (total <= limit) {
        parts.push(chunk);
        return;
      }
      done = true;
      parts.length = 0;
      req.resume();
      reject(tooLarge(limit));
    });
    req.on("end", () => {
      if (done) return;
      done = true;
      resolve(parts.length === 1 ? parts[0]!.toString("utf8") : Buffer.concat(parts, total).toString("utf8"));
    });
    req.on("error", () => {
      if (done) return;
      done = true;
      reject(new OrsError(400, "body: the request body was not received completely"));
    });
    req.on("aborted", () => {
      if (done) return;
      done = true;
      reject(new OrsError(400, "body: the request body was not received completely"));
    });
  });
}

function header(req: IncomingMessage, name: string): string | null {
  const v = req.headers[name];
  if (v === undefined) return null;
  return Array.isArray(v) ? v.join(", ") : v;
}

function writeBig(res: ServerResponse, body: Uint8Array): void {
  let offset = 0;
  const step = (): void => {
    while (offset < body.length) {
      const end = Math.min(body.length, offset + WRITE_BATCH);
      const ok = res.write(body.subarray(offset, end));
      offset = end;
      if (!ok && offset < body.length) {
        res.once("drain", step);
        return;
      }
    }
    res.end();
  };
  res.once("close", () => res.off("drain", step));
  step();
}

/** The header sets of the replies, each with what the listener adds to every answer. */
interface ReplyHeaders {
  json: Readonly<Record<string, string>>;
  sse: Readonly<Record<string, string>>;
}

function replyHeaders(extra: Readonly<Record<string, string>>): ReplyHeaders {
  return { json: { "content-type": JSON_CONTENT_TYPE, ...extra }, sse: { ...SSE_HEADERS, ...extra } };
}

function writeReply(reply: OrsReply, res: ServerResponse, h: ReplyHeaders): void {
  if (res.destroyed) {
    if (reply.kind === "stream") reply.stream.cancel();
    return;
  }
  if (reply.kind === "json") {
    const headers: Record<string, string | number> = {
      ...h.json,
      "content-length": Buffer.byteLength(reply.body),
    };
    if (reply.headers) Object.assign(headers, reply.headers);
    res.writeHead(reply.status, headers);
    res.end(reply.body);
    return;
  }
  if (reply.kind === "sse") {
    if (reply.tail) {
      res.writeHead(200, { ...h.sse, "content-length": Buffer.byteLength(reply.body) + reply.tail.length });
      // One corked write of the framed result (a view of the kept buffer, not a copy; end()
      // uncorks): the socket takes it as fast as the client reads, no drain wait per 64 KiB here.
      res.cork();
      res.write(reply.body);
      res.end(reply.tail);
    } else if (reply.body.length <= WRITE_BATCH) {
      res.writeHead(200, { ...h.sse, "content-length": Buffer.byteLength(reply.body) });
      res.end(reply.body);
    } else {
      res.writeHead(200, h.sse);
      writeBig(res, Buffer.from(reply.body, "utf8"));
    }
    return;
  }
  const stream = reply.stream;
  res.writeHead(200, h.sse);
  res.flushHeaders();
  res.once("close", () => stream.cancel());
  stream.attach({
    write: (chunk) => res.write(chunk),
    end: () => res.end(),
    onDrain: (cb) => res.once("drain", cb),
  });
}

/**
 * A node:http request as the host reads it. A class, not an object of closures: the fast path makes
 * one per request, and under tsx every named closure costs a property definition.
 */
class NodeIncoming implements IncomingOrsRequest {
  readonly method: string;
  readonly path: string;
  constructor(readonly req: IncomingMessage) {
    this.method = req.method ?? "GET";
    this.path = pathOf(req.url ?? "/");
  }
  header(name: string): string | null {
    return header(this.req, name);
  }
  readBody(limit: number): Promise<string> {
    return readNodeBody(this.req, limit);
  }
}

function onUnexpected(host: OrsHandler["host"], res: ServerResponse, e: unknown): void {
  host.options.log("node adapter: unexpected error", e);
  if (!res.headersSent && !res.destroyed) {
    res.writeHead(500, { "content-type": JSON_CONTENT_TYPE });
    res.end(errorBody(INTERNAL_ERROR_DETAIL));
  } else res.destroy();
}

function onReply(host: OrsHandler["host"], res: ServerResponse, reply: OrsReply, h: ReplyHeaders): void {
  try {
    writeReply(reply, res, h);
  } catch (e) {
    host.options.log("node adapter: could not write a reply", e);
    if (reply.kind === "stream") reply.stream.cancel();
    res.destroy();
  }
}

/**
 * A `(req, res)` listener for `http.createServer` serving the handler's host; `headers` go on every
 * answer it writes (given here rather than set on each response: `setHeader` before `writeHead`
 * costs more per request).
 */
export function createNodeListener(
  handler: OrsHandler,
  headers: Readonly<Record<string, string>> = {},
): (req: IncomingMessage, res: ServerResponse) => void {
  const host = handler.host;
  const h = replyHeaders(headers);
  return (req, res) => {
    const out = host.answer(new NodeIncoming(req));
    if (out instanceof Promise)
      out.then(
        (reply) => onReply(host, res, reply, h),
        (e) => onUnexpected(host, res, e),
      );
    else onReply(host, res, out, h);
  };
}

export interface Listening {
  server: Server;
  /** `http://host:port` as clients on this machine reach it. */
  url: string;
  port: number;
  /** Stops accepting connections, closes idle ones and, after `graceMs`, any left. */
  close(graceMs?: number): Promise<void>;
}

/** Creates a node:http server for `listener` and listens on host:port (port 0: any free one). */
export async function listenHttp(
  listener: (req: IncomingMessage, res: ServerResponse) => void,
  { host, port, options }: { host: string; port: number; options?: ServerOptions },
): Promise<Listening> {
  const server = createServer({ noDelay: true, keepAliveTimeout: 60_000, ...options }, listener);
  server.headersTimeout = 65_000;
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const addr = server.address() as AddressInfo;
  const shown = addr.family === "IPv6" ? `[${addr.address}]` : addr.address;
  let closing: Promise<void> | null = null;
  const sockets = new Set<Socket>();
  server.on("connection", (s: Socket) => {
    sockets.add(s);
    s.once("close", () => sockets.delete(s));
  });
  return {
    server,
    url: `http://${shown}:${addr.port}`,
    port: addr.port,
    close(graceMs = 2000) {
      closing ??= new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
        // Upgraded sockets (dev's HMR) are no longer the server's: end them too.
        setTimeout(() => {
          server.closeAllConnections();
          for (const s of sockets) s.destroy();
        }, graceMs).unref();
      });
      return closing;
    },
  };
}

export interface NodeListenerOptions {
  port: number;
  host?: string;
}

/** Starts a node:http server for the handler; `close()` stops it and tears down the host. */
export async function serveNode(
  handler: OrsHandler,
  { port, host = "127.0.0.1" }: NodeListenerOptions,
): Promise<{ server: Server; url: string; close(): Promise<void> }> {
  const listening = await listenHttp(createNodeListener(handler), { host, port });
  let closing: Promise<void> | null = null;
  return {
    server: listening.server,
    url: listening.url,
    close() {
      closing ??= (async () => {
        const stopped = listening.close();
        // Open SSE streams end with the sessions; anything left is cut after the grace time.
        await handler.close();
        await stopped;
      })();
      return closing;
    },
  };
}
