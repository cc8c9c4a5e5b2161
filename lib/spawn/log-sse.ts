// The answers of a spawned server's log routes (`/api/servers/<name>/log` and its SSE feed `/events`):
// a snapshot (state and last lines), then, on the feed, the new lines in batches (one event per
// 100 ms at most, however fast the process writes) and each change of state, a `: ping` every 15 s,
// cleanup when the client goes away. A reader that stops reading is dropped once a bounded amount is
// queued for it: the feed never buffers without bound.
import "server-only";
import { errorBody, formatSseComment, formatSseEvent } from "@/lib/ors/protocol";
import type { ManagedServer, ManagedServerEvent } from "./managed-server";
import type { LogLine, ServerLogSnapshot } from "./types";

/** Bytes queued for one reader before it is dropped as too slow. */
export const LOG_QUEUE_LIMIT_BYTES = 2 * 1024 * 1024;
const BATCH_MS = 100;
const PING_MS = 15_000;

export function logSnapshot(server: ManagedServer): ServerLogSnapshot {
  const { lines, dropped } = server.log.snapshot();
  return { status: server.status(), lines, dropped };
}

export function logEventsResponse(
  req: Request,
  server: ManagedServer,
  o: { queueLimitBytes?: number; batchMs?: number } = {},
): Response {
  const encoder = new TextEncoder();
  const limit = o.queueLimitBytes ?? LOG_QUEUE_LIMIT_BYTES;
  const batchMs = o.batchMs ?? BATCH_MS;
  let cleanup = () => {};
  const body = new ReadableStream<Uint8Array>(
    {
      start(controller) {
        let closed = false;
        let batch: LogLine[] = [];
        let timer: ReturnType<typeof setTimeout> | null = null;
        const write = (text: string) => {
          if (closed) return;
          // desiredSize counts what is queued and unread: a reader that stopped reading is dropped.
          if ((controller.desiredSize ?? 0) < -limit) {
            controller.enqueue(
              encoder.encode(formatSseEvent("error", errorBody("this log's reader was too slow; reconnect"))),
            );
            cleanup();
            return;
          }
          controller.enqueue(encoder.encode(text));
        };
        const flush = () => {
          timer = null;
          if (batch.length === 0) return;
          const lines = batch;
          batch = [];
          write(formatSseEvent("lines", JSON.stringify({ type: "lines", lines })));
        };
        const onEvent = (e: ManagedServerEvent) => {
          if (e.type === "line") {
            batch.push(e.line);
            timer ??= setTimeout(flush, batchMs);
            return;
          }
          // A state follows the lines written before it.
          if (timer) clearTimeout(timer);
          flush();
          write(formatSseEvent("status", JSON.stringify({ type: "status", status: e.status })));
        };
        // Subscribed before the snapshot is taken, in the same turn: nothing falls between them.
        const unsubscribe = server.subscribe(onEvent);
        write(
          formatSseEvent("snapshot", JSON.stringify({ type: "snapshot", snapshot: logSnapshot(server) })),
        );
        const ping = setInterval(() => write(formatSseComment("ping")), PING_MS);
        ping.unref?.();
        cleanup = () => {
          if (closed) return;
          closed = true;
          unsubscribe();
          clearInterval(ping);
          if (timer) clearTimeout(timer);
          try {
            controller.close();
          } catch {
            // already closed by the client
          }
        };
        req.signal.addEventListener("abort", () => cleanup(), { once: true });
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
