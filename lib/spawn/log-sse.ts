// The answers of a spawned server's log routes (`/api/servers/<name>/log` and its SSE feed `/events`):
// a snapshot (state and last lines), then, on the feed, the new lines in batches (one event per
// 100 ms at most, however fast the process writes) and each change of state, a `: ping` every 15 s,
// cleanup when the client goes away. A reader that stops reading is dropped once a bounded amount is
// queued for it: the feed never buffers without bound.
import "server-only";
import { type SseWriter, sseResponse } from "@/lib/http";
import type { ManagedServer, ManagedServerEvent } from "./managed-server";
import type { LogLine, ServerLogSnapshot } from "./types";

/** Bytes queued for one reader before it is dropped as too slow. */
export const LOG_QUEUE_LIMIT_BYTES = 2 * 1024 * 1024;
const BATCH_MS = 100;

export function logSnapshot(server: ManagedServer): ServerLogSnapshot {
  const { lines, dropped } = server.log.snapshot();
  return { status: server.status(), lines, dropped };
}

/** Feeds `server`'s log to `w`: the snapshot, then batched lines and each state; returns the teardown. */
function followLog(server: ManagedServer, w: SseWriter, batchMs: number): () => void {
  let batch: LogLine[] = [];
  let timer: ReturnType<typeof setTimeout> | null = null;
  const flush = () => {
    timer = null;
    if (batch.length === 0) return;
    const lines = batch;
    batch = [];
    w.send("lines", { type: "lines", lines });
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
    w.send("status", { type: "status", status: e.status });
  };
  // Subscribed before the snapshot is taken, in the same turn: nothing falls between them.
  const unsubscribe = server.subscribe(onEvent);
  w.send("snapshot", { type: "snapshot", snapshot: logSnapshot(server) });
  return () => {
    unsubscribe();
    if (timer) clearTimeout(timer);
  };
}

export function logEventsResponse(
  req: Request,
  server: ManagedServer,
  o: { queueLimitBytes?: number; batchMs?: number } = {},
): Response {
  return sseResponse((w) => followLog(server, w, o.batchMs ?? BATCH_MS), {
    signal: req.signal,
    queueLimitBytes: o.queueLimitBytes ?? LOG_QUEUE_LIMIT_BYTES,
    slowReaderDetail: "this log's reader was too slow; reconnect",
  });
}
