// The SSE answer of the live feeds (`/api/trajectories/<id>/events`, `/api/trajectories/live/events`):
// `event: <type>` with a JSON payload per live event, a `: ping` comment every 15 s, cleanup when
// the client goes away. The first events (a snapshot) are read after subscribing, and what happens
// meanwhile follows them, so a watcher misses nothing. A subscriber that does not read is dropped
// once a bounded amount is queued for it: the feed never buffers without bound.
import "server-only";
import { errorBody, formatSseComment, formatSseEvent } from "@/lib/ors/protocol";
import type { LiveEvent, LiveFeeds } from "./live";

/** Bytes queued for one subscriber before it is dropped as too slow. */
export const LIVE_QUEUE_LIMIT_BYTES = 4 * 1024 * 1024;
const PING_MS = 15_000;

export interface LiveSseOptions {
  /** The events sent first (e.g. a snapshot); read after subscribing. */
  first: () => Promise<{ event: string; data: unknown }[]>;
  /** Ends the stream after this event (e.g. `ended`). */
  closeOn?: (e: LiveEvent) => boolean;
  /** Ends the stream right after the first events (an episode that has already ended). */
  closeAfterFirst?: boolean;
  /** Leaves out events the feed does not carry (the all-episodes feed carries no frames). */
  skip?: (e: LiveEvent) => boolean;
  queueLimitBytes?: number;
}

export function liveSseResponse(
  req: Request,
  live: LiveFeeds,
  id: string | null,
  o: LiveSseOptions,
): Response {
  const encoder = new TextEncoder();
  const limit = o.queueLimitBytes ?? LIVE_QUEUE_LIMIT_BYTES;
  let cleanup = () => {};
  const body = new ReadableStream<Uint8Array>(
    {
      start(controller) {
        let closed = false;
        let started = false;
        const early: LiveEvent[] = [];
        const write = (bytes: Uint8Array) => {
          if (closed) return;
          // desiredSize counts what is queued and unread: a subscriber that stopped reading is dropped.
          if ((controller.desiredSize ?? 0) < -limit) {
            controller.enqueue(
              encoder.encode(
                formatSseEvent("error", errorBody("this feed's reader was too slow; reconnect")),
              ),
            );
            cleanup();
            return;
          }
          controller.enqueue(bytes);
        };
        const send = (event: string, data: unknown) =>
          write(encoder.encode(formatSseEvent(event, JSON.stringify(data))));
        const deliver = (e: LiveEvent) => {
          send(e.type, e);
          if (o.closeOn?.(e)) cleanup();
        };
        const unsubscribe = live.subscribe(id, (e) => {
          if (o.skip?.(e)) return;
          if (started) deliver(e);
          else early.push(e);
        });
        const timer = setInterval(() => write(encoder.encode(formatSseComment("ping"))), PING_MS);
        timer.unref?.();
        cleanup = () => {
          if (closed) return;
          closed = true;
          unsubscribe();
          clearInterval(timer);
          try {
            controller.close();
          } catch {
            // already closed by the client
          }
        };
        req.signal.addEventListener("abort", () => cleanup(), { once: true });
        o.first().then(
          (events) => {
            for (const f of events) send(f.event, f.data);
            started = true;
            if (o.closeAfterFirst) return cleanup();
            for (const e of early.splice(0)) deliver(e);
          },
          (err: unknown) => {
            send("error", {
              detail: `could not read the episode: ${err instanceof Error ? err.message : String(err)}`,
            });
            cleanup();
          },
        );
      },
      cancel() {
        cleanup();
      },
    },
    // Queued bytes, so the slow-reader limit is in bytes.
    { highWaterMark: 0, size: (chunk) => chunk.byteLength },
  );
  return new Response(body, {
    headers: {
      "Content-Type": "text/event-stream; charset=utf-8",
      "Cache-Control": "no-cache, no-transform",
      "X-Accel-Buffering": "no",
    },
  });
}
