// The SSE answer of the live feeds (`/api/trajectories/<id>/events`, `/api/trajectories/live/events`):
// `event: <type>` with a JSON payload per live event, a `: ping` comment every 15 s, cleanup when
// the client goes away. The first events (a snapshot) are read after subscribing, and what happens
// meanwhile follows them, so a watcher misses nothing. A subscriber that does not read is dropped
// once a bounded amount is queued for it: the feed never buffers without bound.
import "server-only";
import { SSE_QUEUE_LIMIT_BYTES, type SseWriter, sseResponse } from "@/lib/http";
import type { LiveEvent, LiveFeeds } from "./live";

/** Bytes queued for one subscriber before it is dropped as too slow. */
export const LIVE_QUEUE_LIMIT_BYTES = SSE_QUEUE_LIMIT_BYTES;

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
  const open = (w: SseWriter) => {
    let started = false;
    const early: LiveEvent[] = [];
    const deliver = (e: LiveEvent) => {
      w.send(e.type, e);
      if (o.closeOn?.(e)) w.close();
    };
    const unsubscribe = live.subscribe(id, (e) => {
      if (o.skip?.(e)) return;
      if (started) deliver(e);
      else early.push(e);
    });
    o.first().then(
      (events) => {
        for (const f of events) w.send(f.event, f.data);
        started = true;
        if (o.closeAfterFirst) return w.close();
        for (const e of early.splice(0)) deliver(e);
      },
      (err: unknown) => {
        w.send("error", {
          detail: `could not read the episode: ${err instanceof Error ? err.message : String(err)}`,
        });
        w.close();
      },
    );
    return unsubscribe;
  };
  return sseResponse(open, {
    signal: req.signal,
    queueLimitBytes: o.queueLimitBytes ?? LIVE_QUEUE_LIMIT_BYTES,
  });
}
