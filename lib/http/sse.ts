// The one SSE answer of the playground's own feeds (live episodes, a spawned server's log, a run's
// progress): the one header set, a `: ping` comment every 15 s, cleanup when the client goes away,
// and a bounded queue: a reader that stops reading is told so and dropped, never buffered for.
import "server-only";
import { errorBody, formatSseComment, formatSseEvent, SSE_RESPONSE_HEADERS } from "@/lib/ors/protocol";

/** Bytes queued for one reader before it is dropped as too slow. */
export const SSE_QUEUE_LIMIT_BYTES = 4 * 1024 * 1024;
const PING_MS = 15_000;

/** Where a feed writes its events. */
export interface SseWriter {
  /** Sends `event` with `data` as JSON (nothing once the stream is closed). */
  send(event: string, data: unknown): void;
  /** Ends the stream (and runs the feed's teardown once). */
  close(): void;
  readonly closed: boolean;
}

export interface SseResponseOptions {
  /** The request's signal: the stream closes when its client goes away. */
  signal: AbortSignal;
  /** Bytes queued for a reader before it is dropped (default SSE_QUEUE_LIMIT_BYTES). */
  queueLimitBytes?: number;
  /** What the last event tells a reader dropped as too slow (default: this feed's reader). */
  slowReaderDetail?: string;
  pingMs?: number;
}

/**
 * An SSE answer fed by `open`, which subscribes to its source and returns the teardown to run when
 * the stream ends (the client gone, the reader too slow, or `close()`).
 */
export function sseResponse(
  open: (w: SseWriter) => (() => void) | undefined,
  o: SseResponseOptions,
): Response {
  const encoder = new TextEncoder();
  const limit = o.queueLimitBytes ?? SSE_QUEUE_LIMIT_BYTES;
  const slow = o.slowReaderDetail ?? "this feed's reader was too slow; reconnect";
  let close = () => {};
  const body = new ReadableStream<Uint8Array>(
    {
      start(controller) {
        let closed = false;
        let teardown: (() => void) | undefined;
        let ping: ReturnType<typeof setInterval> | undefined;
        const onAbort = () => close();
        const write = (text: string) => {
          if (closed) return;
          // desiredSize counts what is queued and unread: a reader that stopped reading is dropped.
          if ((controller.desiredSize ?? 0) < -limit) {
            controller.enqueue(encoder.encode(formatSseEvent("error", errorBody(slow))));
            close();
            return;
          }
          controller.enqueue(encoder.encode(text));
        };
        const writer: SseWriter = {
          send: (event, data) => write(formatSseEvent(event, JSON.stringify(data))),
          close: () => close(),
          get closed() {
            return closed;
          },
        };
        close = () => {
          if (closed) return;
          closed = true;
          clearInterval(ping);
          o.signal.removeEventListener("abort", onAbort);
          teardown?.();
          try {
            controller.close();
          } catch {
            // already closed by the client
          }
        };
        ping = setInterval(() => write(formatSseComment("ping")), o.pingMs ?? PING_MS);
        ping.unref?.();
        o.signal.addEventListener("abort", onAbort, { once: true });
        teardown = open(writer);
        // A feed that closed while opening has its teardown to run now.
        if (closed) teardown?.();
        if (o.signal.aborted) close();
      },
      cancel() {
        close();
      },
    },
    // Queued bytes, so the slow-reader limit is in bytes.
    { highWaterMark: 0, size: (chunk) => chunk.byteLength },
  );
  return new Response(body, { headers: SSE_RESPONSE_HEADERS });
}
