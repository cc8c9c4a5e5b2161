// The server's side of a relayed request: one `Upstream` interface, two implementations — the
// built-in host called in process (through its adapter-neutral `dispatch` when it has one: no fetch
// Request, no web streams, the answer is the host's own reply; else as a fetch handler) and a remote
// server fetched at the addresses the policy checked. Either way the answer is an `UpstreamAnswer`:
// a status, headers, and a body that is whole text, an SSE stream pushed with backpressure (an
// `SseSource` the tap reads), or a web stream still to be read.
import "server-only";
import { type IncomingOrsRequest, type OrsReply, RELAY_ONLY_HEADER, type SseSink } from "@/lib/ors/host";
import { tooLarge } from "@/lib/ors/host/request";
import type { FetchHandler } from "@/lib/registry";
import type { PinnedFetch } from "@/lib/security/pinned-fetch";

/** Where an SSE answer's chunks go: a sink that also hears that the server's stream broke. */
export interface SourceSink extends SseSink {
  fail(err: unknown): void;
}

/** An SSE answer from the server, pushed chunk by chunk once attached. */
export interface SseSource {
  attach(sink: SourceSink): void;
  /** Stops reading (the client went away, a limit was hit): the server's answer is dropped. */
  cancel(): void;
}

/** What the relay sends: the upstream path (rebuilt from the route), the forwarded headers, the body. */
export interface UpstreamRequest {
  method: string;
  path: string;
  headers: Headers;
  body: Uint8Array | undefined;
  /** Aborted when the client goes away before the answer starts. */
  signal: AbortSignal;
}

export type UpstreamBody =
  | { text: string }
  | { sse: SseSource }
  | { stream: ReadableStream<Uint8Array> }
  | null;

export interface UpstreamAnswer {
  status: number;
  /** A header of the answer by lower-case name, or null. */
  header(name: string): string | null;
  body: UpstreamBody;
}

/** A server the relay forwards to. `send` rejects when it cannot be reached (or the host throws). */
export interface Upstream {
  /** `server "local"`, `server "py" (http://...)`: how error messages name it. */
  readonly described: string;
  readonly builtin: boolean;
  send(req: UpstreamRequest): Promise<UpstreamAnswer>;
}

/** The built-in host's own entry point, when the registry's local handler is the host's handler. */
type Dispatch = (req: IncomingOrsRequest) => Promise<OrsReply>;

function dispatchOf(handler: FetchHandler): Dispatch | null {
  const host = (handler as { host?: { dispatch?: unknown } }).host;
  if (!host || typeof host.dispatch !== "function") return null;
  const dispatch = host.dispatch as Dispatch;
  return (req) => dispatch.call(host, req);
}

const decoder = new TextDecoder();
const JSON_TYPE = "application/json";
const SSE_TYPE = "text/event-stream; charset=utf-8";

/** A request to the built-in host, made of what the relay forwards. */
function localRequest(r: UpstreamRequest): IncomingOrsRequest {
  const { body } = r;
  return {
    method: r.method,
    path: r.path,
    header: (name) => r.headers.get(name),
    readBody: async (limit) => {
      if (!body) return "";
      if (body.byteLength > limit) throw tooLarge(limit);
      return decoder.decode(body);
    },
  };
}

/** An SSE body that is already whole (a result kept for reconnection, `/create_session`'s). */
export function fixedSource(body: string | Uint8Array, tail?: Uint8Array): SseSource {
  let cancelled = false;
  return {
    attach(sink) {
      if (cancelled) return;
      sink.write(body);
      if (tail && !cancelled) sink.write(tail);
      if (!cancelled) sink.end();
    },
    cancel() {
      cancelled = true;
    },
  };
}

/** The built-in host's reply as an answer (no copy, no web stream). */
function replyAnswer(reply: OrsReply): UpstreamAnswer {
  if (reply.kind === "json") {
    const retryAfter = reply.headers?.["retry-after"] ?? null;
    return {
      status: reply.status,
      header: (name) => (name === "content-type" ? JSON_TYPE : name === "retry-after" ? retryAfter : null),
      body: { text: reply.body },
    };
  }
  const source: SseSource =
    reply.kind === "stream"
      ? { attach: (sink) => reply.stream.attach(sink), cancel: () => reply.stream.cancel() }
      : fixedSource(reply.body, reply.tail);
  return {
    status: 200,
    header: (name) => (name === "content-type" ? SSE_TYPE : null),
    body: { sse: source },
  };
}

/** A fetch `Response` as an answer: its body still to be read. */
function responseAnswer(res: Response): UpstreamAnswer {
  return {
    status: res.status,
    header: (name) => res.headers.get(name),
    body: res.body ? { stream: res.body } : null,
  };
}

/** The key the built-in host gives the relay (OrsHostOptions.relayKey), if it has one. */
function relayKeyOf(handler: FetchHandler): string | null {
  const key = (handler as { host?: { options?: { relayKey?: unknown } } }).host?.options?.relayKey;
  return typeof key === "string" ? key : null;
}

/**
 * The built-in host, in process: its `dispatch` when it has one, else its fetch handler. Every
 * request carries the host's relay key: the sessions it creates are reachable only through the relay.
 */
export function builtinUpstream(name: string, handler: FetchHandler): Upstream {
  const dispatch = dispatchOf(handler);
  const key = relayKeyOf(handler);
  const keyed = (r: UpstreamRequest) => {
    if (key !== null) r.headers.set(RELAY_ONLY_HEADER, key);
    return r;
  };
  return {
    described: `server "${name}"`,
    builtin: true,
    send: dispatch
      ? async (r) => replyAnswer(await dispatch(localRequest(keyed(r))))
      : async (r) =>
          responseAnswer(
            await handler(
              new Request(`http://local.invalid${keyed(r).path}`, {
                method: r.method,
                headers: r.headers,
                body: r.body as BodyInit | undefined,
                signal: r.signal,
              }),
            ),
          ),
  };
}

/** A remote server at `url`, connected to at `addresses` only (checked by the policy). */
export function remoteUpstream(
  name: string,
  url: string,
  remoteFetch: PinnedFetch,
  addresses: string[],
): Upstream {
  return {
    described: `server "${name}" (${url})`,
    builtin: false,
    send: async (r) =>
      responseAnswer(
        await remoteFetch(
          `${url}${r.path}`,
          {
            method: r.method,
            headers: r.headers,
            body: r.body as BodyInit | undefined,
            redirect: "manual",
            signal: r.signal,
          },
          addresses,
        ),
      ),
  };
}

/** The body of a fetch Response, read as the sink takes it. */
export function webSource(body: ReadableStream<Uint8Array>): SseSource {
  const reader = body.getReader();
  let cancelled = false;
  return {
    attach(sink) {
      const pump = async () => {
        try {
          for (;;) {
            const r = await reader.read();
            if (cancelled) return;
            if (r.done) return sink.end();
            if (!sink.write(r.value)) {
              await new Promise<void>((resolve) => sink.onDrain(resolve));
              if (cancelled) return;
            }
          }
        } catch (err) {
          if (!cancelled) sink.fail(err);
        }
      };
      void pump();
    },
    cancel() {
      if (cancelled) return;
      cancelled = true;
      reader.cancel().catch(() => {});
    },
  };
}
