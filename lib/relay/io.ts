// What the relay reads and answers, apart from how a request arrived: a fetch `Request` (Next's
// route, the app's own ORS clients in process) or a node:http request (the server entry's fast
// path, lib/app-server). Answers are a status, headers and a body that is bytes, or a stream pushed
// into a sink with backpressure (`write` returns false: wait for `onDrain`), so the node:http path
// never builds web streams.
import "server-only";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { SseSink } from "@/lib/ors/host";
import { pushedStream } from "@/lib/ors/host/reply";
import { readWithin } from "@/lib/ors/protocol/body";

export interface RelayRequest {
  readonly method: string;
  /** The URL's query string (`?...`), or "". */
  readonly search: string;
  /** A header by lower-case name, or null. */
  header(name: string): string | null;
  /** The body within `limit` bytes, or null when it is larger (the rest is not kept). */
  readBody(limit: number): Promise<Uint8Array | null>;
  /** Whether the client has gone away. */
  readonly gone: boolean;
  /** Calls `cb` once when the client goes away; returns the function that stops listening. */
  onGone(cb: () => void): () => void;
}

/** Where a streamed answer goes, chunk by chunk: the host's sink (`write` false: wait for `onDrain`). */
export type RelaySink = SseSink;

/** A streamed answer body: `start` begins pushing into the client's sink. */
export interface RelayStream {
  start(sink: RelaySink): void;
  /** The client went away: nothing more is written to its sink. */
  clientGone(): void;
}

export interface RelayAnswer {
  status: number;
  headers: Record<string, string>;
  body: string | Uint8Array | null | RelayStream;
}

export function isStream(body: RelayAnswer["body"]): body is RelayStream {
  return body !== null && typeof body === "object" && "start" in body;
}

// ---- fetch Request / Response ----

/** A fetch `Request` as the relay reads it. */
export function webRequest(req: Request): RelayRequest {
  const url = req.url;
  const q = url.indexOf("?");
  const h = url.indexOf("#");
  return {
    method: req.method,
    search: q < 0 ? "" : url.slice(q, h > q ? h : url.length),
    header: (name) => req.headers.get(name),
    readBody: (limit) => readWithin(req.body, limit, { declaredLength: req.headers.get("content-length") }),
    get gone() {
      return req.signal.aborted;
    },
    onGone(cb) {
      const signal = req.signal;
      if (signal.aborted) {
        cb();
        return () => {};
      }
      signal.addEventListener("abort", cb, { once: true });
      return () => signal.removeEventListener("abort", cb);
    },
  };
}

/** An answer as a fetch `Response`; a stream becomes a `ReadableStream` read as the client pulls. */
export function toResponse(a: RelayAnswer): Response {
  const body = a.body;
  if (!isStream(body)) return new Response(body as BodyInit | null, { status: a.status, headers: a.headers });
  const stream = pushedStream(
    (sink) => body.start(sink),
    () => body.clientGone(),
  );
  return new Response(stream, { status: a.status, headers: a.headers });
}

// ---- node:http ----

/** A node:http request as the relay reads it (a class: the fast path makes one per request). */
class NodeRelayRequest implements RelayRequest {
  readonly method: string;
  readonly search: string;
  private closed = false;
  private listeners: (() => void)[] | null = null;

  constructor(
    private readonly req: IncomingMessage,
    res: ServerResponse,
  ) {
    this.method = req.method ?? "GET";
    const url = req.url ?? "/";
    const q = url.indexOf("?");
    this.search = q < 0 ? "" : url.slice(q);
    // The connection closing before the answer was written whole: the client went away.
    res.once("close", () => {
      if (res.writableFinished) return;
      this.closed = true;
      const ls = this.listeners;
      this.listeners = null;
      if (ls) for (const l of ls) l();
    });
  }

  header(name: string): string | null {
    const v = this.req.headers[name];
    if (v === undefined) return null;
    return Array.isArray(v) ? v.join(", ") : v;
  }

  get gone(): boolean {
    return this.closed;
  }

  onGone(cb: () => void): () => void {
    if (this.closed) {
      cb();
      return () => {};
    }
    if (!this.listeners) this.listeners = [];
    this.listeners.push(cb);
    return () => {
      const ls = this.listeners;
      if (!ls) return;
      const i = ls.indexOf(cb);
      if (i >= 0) ls.splice(i, 1);
    };
  }

  readBody(limit: number): Promise<Uint8Array | null> {
    const req = this.req;
    const declared = req.headers["content-length"];
    if (declared !== undefined && Number(declared) > limit) {
      req.resume();
      return Promise.resolve(null);
    }
    return new Promise((resolve) => {
      const parts: Buffer[] = [];
      let total = 0;
      let done = false;
      const finish = (v: Uint8Array | null) => {
        if (done) return;
        done = true;
        resolve(v);
      };
      req.on("data", (chunk: Buffer) => {
        if (done) return;
        total += chunk.length;
        if (total > limit) {
          parts.length = 0;
          req.resume();
          return finish(null);
        }
        parts.push(chunk);
      });
      req.on("end", () => finish(parts.length === 1 ? parts[0]! : Buffer.concat(parts, total)));
      // A body cut short reads as what arrived; the client is gone and its answer is not seen.
      req.on("error", () => finish(Buffer.concat(parts, total)));
    });
  }
}

export function nodeRequest(req: IncomingMessage, res: ServerResponse): RelayRequest {
  return new NodeRelayRequest(req, res);
}

/** Writes an answer to a node:http response; a stream is written as it comes, waiting for `drain`. */
export function writeNode(a: RelayAnswer, res: ServerResponse, extraHeaders?: Record<string, string>): void {
  const headers = extraHeaders ? { ...a.headers, ...extraHeaders } : a.headers;
  const body = a.body;
  if (!isStream(body)) {
    if (res.destroyed) return;
    res.writeHead(a.status, {
      ...headers,
      "content-length":
        body === null ? 0 : typeof body === "string" ? Buffer.byteLength(body) : body.byteLength,
    });
    res.end(body ?? undefined);
    return;
  }
  if (res.destroyed) {
    body.clientGone();
    return;
  }
  res.writeHead(a.status, headers);
  res.flushHeaders();
  let ended = false;
  res.once("close", () => {
    if (!ended) body.clientGone();
  });
  body.start({
    write: (chunk) => (ended || res.destroyed ? true : res.write(chunk)),
    end: () => {
      if (ended) return;
      ended = true;
      res.end();
    },
    onDrain: (cb) => res.once("drain", cb),
  });
}
