// The server's side of a relayed request: the built-in host called in process — through its
// adapter-neutral `dispatch` when it has one (no fetch Request, no web streams: the answer is the
// host's own reply, a JSON text or an SSE stream pushed with backpressure) — or any server answering
// a fetch `Response`. SSE answers of both become an `SseSource` the tap (./tap.ts) reads.
import "server-only";
import type { IncomingOrsRequest, OrsReply, SseSink } from "@/lib/ors/host";
import { tooLarge } from "@/lib/ors/host/request";
import type { FetchHandler } from "@/lib/registry";

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

/** The built-in host's own entry point, when the registry's local handler is the host's handler. */
export type Dispatch = (req: IncomingOrsRequest) => Promise<OrsReply>;

export function dispatchOf(handler: FetchHandler): Dispatch | null {
  const host = (handler as { host?: { dispatch?: unknown } }).host;
  if (!host || typeof host.dispatch !== "function") return null;
  const dispatch = host.dispatch as Dispatch;
  return (req) => dispatch.call(host, req);
}

const decoder = new TextDecoder();

/** A request to the built-in host, made of what the relay forwards. */
export function localRequest(
  method: string,
  path: string,
  headers: Headers,
  body: Uint8Array | undefined,
): IncomingOrsRequest {
  return {
    method,
    path,
    header: (name) => headers.get(name),
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

/** The SSE answer of the built-in host: its reply as it is (no copy, no web stream). */
export function replySource(reply: Exclude<OrsReply, { kind: "json" }>): SseSource {
  if (reply.kind === "sse") return fixedSource(reply.body, reply.tail);
  const stream = reply.stream;
  return {
    attach: (sink) => stream.attach(sink),
    cancel: () => stream.cancel(),
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
