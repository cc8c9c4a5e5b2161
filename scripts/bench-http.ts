// The benchmark's HTTP side: a lean node:http client on a keep-alive agent (fetch saturates a
// 2-core machine long before a lean server does) and a whole-body SSE parser for ORS tool calls.
import http from "node:http";

export interface HttpReply {
  status: number;
  contentType: string;
  body: string;
  /** Bytes of the body as received. */
  bytes: number;
}

export interface SseEvent {
  event: string;
  data: string;
}

const LOOPBACK = new Set(["127.0.0.1", "localhost", "::1", "[::1]"]);

/** Refuses anything but a loopback base URL: the benchmark must never load another machine. */
export function assertLoopback(url: URL): void {
  if (url.protocol !== "http:") throw new Error(`only http:// base URLs are supported, got ${url.protocol}`);
  if (!LOOPBACK.has(url.hostname))
    throw new Error(`refusing non-loopback host ${url.hostname} (loopback only)`);
}

export class BenchHttp {
  readonly agent: http.Agent;
  /** TCP connections opened so far. */
  connections = 0;
  private readonly hostname: string;
  private readonly port: number;
  private readonly prefix: string;
  private readonly baseHeaders: Record<string, string>;

  /** `headers`: sent with every request (e.g. the app's access token for the relay). */
  constructor(base: URL, maxSockets: number, apiKey?: string, headers: Record<string, string> = {}) {
    assertLoopback(base);
    this.agent = new http.Agent({ keepAlive: true, maxSockets, maxFreeSockets: maxSockets });
    // Count the TCP connections opened: with keep-alive it should stay at the number of clients; a
    // server that closes connections shows up here (and in its latency tail).
    const create = this.agent.createConnection.bind(this.agent) as (...a: unknown[]) => unknown;
    (this.agent as unknown as { createConnection: (...a: unknown[]) => unknown }).createConnection = (
      ...a
    ) => {
      this.connections++;
      return create(...a);
    };
    this.hostname = base.hostname.replace(/^\[|\]$/g, "");
    this.port = Number(base.port || 80);
    this.prefix = base.pathname.replace(/\/+$/, "");
    this.baseHeaders = { ...headers, ...(apiKey ? { "X-API-Key": apiKey } : {}) };
  }

  /** One request; resolves with the whole body as text (any status), rejects on network errors. */
  request(
    method: "GET" | "POST",
    path: string,
    options: { sid?: string; json?: unknown; accept?: string; timeoutMs?: number } = {},
  ): Promise<HttpReply> {
    const headers: Record<string, string> = {
      ...this.baseHeaders,
      Accept: options.accept ?? "application/json",
    };
    if (options.sid) headers["X-Session-ID"] = options.sid;
    let body: Buffer | undefined;
    if (options.json !== undefined) {
      body = Buffer.from(JSON.stringify(options.json));
      headers["Content-Type"] = "application/json";
      headers["Content-Length"] = String(body.length);
    } else if (method === "POST") {
      headers["Content-Length"] = "0";
    }
    return new Promise((resolve, reject) => {
      const req = http.request(
        {
          agent: this.agent,
          hostname: this.hostname,
          port: this.port,
          method,
          path: this.prefix + path,
          headers,
        },
        (res) => {
          const parts: Buffer[] = [];
          let bytes = 0;
          res.on("data", (c: Buffer) => {
            parts.push(c);
            bytes += c.length;
          });
          res.on("end", () =>
            resolve({
              status: res.statusCode ?? 0,
              contentType: String(res.headers["content-type"] ?? ""),
              body: (parts.length === 1 ? parts[0]! : Buffer.concat(parts, bytes)).toString("utf8"),
              bytes,
            }),
          );
          res.on("error", reject);
        },
      );
      req.on("error", reject);
      if (options.timeoutMs)
        req.setTimeout(options.timeoutMs, () => req.destroy(new Error("request timed out")));
      req.end(body);
    });
  }

  close(): void {
    this.agent.destroy();
  }
}

/**
 * Parses a complete SSE body into events (comments dropped). Handles LF, CRLF and CR line ends
 * (sse-starlette, as the reference server uses, writes CRLF), multi-line data, and strips the one
 * optional space after the colon, as the SSE specification says.
 */
export function parseSse(body: string): SseEvent[] {
  const events: SseEvent[] = [];
  let event = "";
  let data: string[] = [];
  const lines = body.includes("\r") ? body.split(/\r\n|\r|\n/) : body.split("\n");
  for (const line of lines) {
    if (line === "") {
      if (data.length)
        events.push({ event: event || "message", data: data.length === 1 ? data[0]! : data.join("\n") });
      event = "";
      data = [];
      continue;
    }
    if (line.charCodeAt(0) === 58) continue; // ":" comment, e.g. a ping
    const colon = line.indexOf(":");
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? "" : line.slice(colon + 1);
    if (value.charCodeAt(0) === 32) value = value.slice(1);
    if (field === "event") event = value;
    else if (field === "data") data.push(value);
  }
  // A stream cut without the final blank line still yields its last event.
  if (data.length) events.push({ event: event || "message", data: data.join("\n") });
  return events;
}

/** The reassembled result of an ORS `/call` SSE body: chunk data + end data, or the error event. */
export function reassembleCall(body: string): {
  taskId?: string;
  json?: string;
  error?: string;
  chunks: number;
} {
  let taskId: string | undefined;
  const parts: string[] = [];
  let chunks = 0;
  for (const e of parseSse(body)) {
    if (e.event === "task_id") taskId = e.data;
    else if (e.event === "chunk") {
      parts.push(e.data);
      chunks++;
    } else if (e.event === "end") {
      parts.push(e.data);
      return { taskId, json: parts.join(""), chunks: chunks + 1 };
    } else if (e.event === "error") return { taskId, error: e.data || "error event", chunks };
  }
  return { taskId, error: "stream ended without an end event", chunks };
}
