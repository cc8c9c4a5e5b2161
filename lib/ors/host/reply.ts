// What the host answers, before it becomes a fetch `Response` or a node:http response: a JSON body,
// a complete SSE body, or a live SSE stream of a running tool call (spec: ors-sse.txt, pings and
// backpressure included). Keeping this adapter-neutral lets the node:http server skip web streams.
import { formatSseComment } from "../protocol/sse";
import type { ToolRun } from "./tool-runs";

export const JSON_CONTENT_TYPE = "application/json";
export const SSE_HEADERS: Readonly<Record<string, string>> = {
  "content-type": "text/event-stream; charset=utf-8",
  // no-transform: proxies and Next.js's gzip must neither buffer nor re-encode the stream.
  "cache-control": "no-cache, no-transform",
  "x-accel-buffering": "no",
};

/** JSON bodies below this size are marked no-transform: gzip costs more CPU than it saves here. */
const SMALL_JSON = 8 * 1024;

export type OrsReply =
  | { kind: "json"; status: number; body: string; headers?: Record<string, string> }
  | { kind: "sse"; body: string; tail?: Uint8Array }
  | { kind: "stream"; stream: CallStream };

/** Where a live SSE stream writes: `write` returns false when the consumer wants it to wait. */
export interface SseSink {
  write(chunk: string | Uint8Array): boolean;
  end(): void;
  /** Calls `cb` once when the consumer can take more after `write` returned false. */
  onDrain(cb: () => void): void;
}

export function jsonReply(status: number, body: string, headers?: Record<string, string>): OrsReply {
  return headers ? { kind: "json", status, body, headers } : { kind: "json", status, body };
}

const PING = formatSseComment("ping");
const encoder = new TextEncoder();
/** Pieces larger than this are written separately, each waiting for the consumer to drain. */
const WRITE_BATCH = 64 * 1024;

/**
 * A live SSE stream of one tool run: the `task_id` event at once, a `: ping` comment every
 * `pingMs` while the run goes on, then the run's frames. `cancel()` (client gone) stops the stream
 * and its timer without touching the run, which goes on and stays available for reconnection.
 */
export class CallStream {
  private sink: SseSink | null = null;
  private timer: ReturnType<typeof setInterval> | null = null;
  private closed = false;

  constructor(
    private readonly run: ToolRun,
    private readonly head: string,
    private readonly pingMs: number,
  ) {}

  attach(sink: SseSink): void {
    if (this.closed) return;
    this.sink = sink;
    sink.write(this.head);
    if (this.run.done) {
      this.flush();
      return;
    }
    this.timer = setInterval(this.ping, this.pingMs);
    this.timer.unref?.();
    this.run.onDone(this.onDone);
  }

  cancel(): void {
    if (this.closed) return;
    this.closed = true;
    this.stopTimer();
    this.run.offDone(this.onDone);
    this.sink = null;
  }

  private readonly ping = (): void => {
    if (!this.closed && this.sink) this.sink.write(PING);
  };

  private readonly onDone = (): void => {
    this.stopTimer();
    this.flush();
  };

  private stopTimer(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  /** Writes the run's frames in batches, waiting for drain between them, then ends. */
  private flush(): void {
    // A large result is encoded once; its batches are then views of one buffer.
    const raw = this.run.frames;
    const frames: string | Uint8Array =
      typeof raw === "string" && raw.length > WRITE_BATCH ? encoder.encode(raw) : raw;
    let offset = 0;
    const step = (): void => {
      const sink = this.sink;
      if (this.closed || !sink) return;
      while (offset < frames.length) {
        const end = Math.min(frames.length, offset + WRITE_BATCH);
        const ok = sink.write(
          typeof frames === "string" ? frames.slice(offset, end) : frames.subarray(offset, end),
        );
        offset = end;
        if (!ok && offset < frames.length) {
          sink.onDrain(step);
          return;
        }
      }
      this.closed = true;
      this.sink = null;
      sink.end();
    };
    step();
  }
}

/**
 * A pushed stream — something that writes into an SseSink and waits for `onDrain` when `write` says
 * so (a tool run's CallStream, the relay's tapped answer) — as a web `ReadableStream` read as its
 * consumer pulls: the one adapter the host and the relay share. `cancel` runs once when the consumer
 * goes away first (the stream cancelled, or `signal` aborted); writes after that are dropped.
 */
export function pushedStream(
  attach: (sink: SseSink) => void,
  cancel: () => void,
  o: { signal?: AbortSignal; highWaterMark?: number } = {},
): ReadableStream<Uint8Array> {
  const { signal } = o;
  let drain: (() => void) | null = null;
  let done = false;
  let onAbort: (() => void) | null = null;
  const gone = () => {
    if (onAbort) signal?.removeEventListener("abort", onAbort);
    if (done) return;
    done = true;
    drain = null;
    cancel();
  };
  return new ReadableStream<Uint8Array>(
    {
      start(controller) {
        if (signal) {
          onAbort = () => {
            const was = done;
            gone();
            if (!was)
              try {
                controller.close();
              } catch {}
          };
          if (signal.aborted) {
            onAbort();
            return;
          }
          signal.addEventListener("abort", onAbort, { once: true });
        }
        attach({
          write(chunk) {
            if (done) return true;
            controller.enqueue(typeof chunk === "string" ? encoder.encode(chunk) : chunk);
            return (controller.desiredSize ?? 1) > 0;
          },
          end() {
            if (done) return;
            done = true;
            if (onAbort) signal?.removeEventListener("abort", onAbort);
            controller.close();
          },
          onDrain(cb) {
            drain = cb;
          },
        });
      },
      pull() {
        const cb = drain;
        drain = null;
        cb?.();
      },
      cancel: gone,
    },
    { highWaterMark: o.highWaterMark ?? 0 },
  );
}

/** Turns a reply into a fetch `Response`; a live stream becomes a pull-driven `ReadableStream`. */
export function replyToResponse(reply: OrsReply, signal?: AbortSignal): Response {
  if (reply.kind === "json") {
    const headers: Record<string, string> = { "content-type": JSON_CONTENT_TYPE, ...reply.headers };
    if (reply.body.length < SMALL_JSON) headers["cache-control"] = "no-transform";
    return new Response(reply.body, { status: reply.status, headers });
  }
  if (reply.kind === "sse") {
    const body = reply.tail ? Buffer.concat([Buffer.from(reply.body), reply.tail]) : reply.body;
    return new Response(body, { status: 200, headers: SSE_HEADERS });
  }
  const stream = reply.stream;
  const body = pushedStream(
    (sink) => stream.attach(sink),
    () => stream.cancel(),
    { signal, highWaterMark: 4 },
  );
  return new Response(body, { status: 200, headers: SSE_HEADERS });
}
