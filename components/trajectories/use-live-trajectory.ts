"use client";
// One trajectory, kept current: fetched once, then (while it runs) followed over the SSE feed
// `/api/trajectories/<id>/events` — new steps and frames appear as they happen, from any tab or
// any outside client driving the episode through the relay. Stream state stays out of the query cache.
// The feed is read off the main thread and applied in batches (lib/ui/off-thread.ts).
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect, useState } from "react";
import type { FeedEvent, LiveEvent } from "@/lib/trajectory/feed";
import type { Trajectory } from "@/lib/trajectory/schema";
import { applyFeedEvents } from "@/lib/ui/feed-batch";
import { openFeed } from "@/lib/ui/off-thread";
import { trajectoryKeys, trajectoryQuery } from "@/lib/ui/trajectory-queries";

const FEED_EVENTS = ["snapshot", "prompt", "reprompt", "step", "frame", "ended"] as const;

export type FeedState = "idle" | "connecting" | "live" | "closed" | "error";

export function useLiveTrajectory(id: string) {
  const query = useQuery(trajectoryQuery(id));
  const qc = useQueryClient();
  const [live, setLive] = useState<Trajectory | null>(null);
  const [feed, setFeed] = useState<FeedState>("idle");
  const running = query.data ? query.data.end_reason == null : false;

  useEffect(() => {
    if (!running) return;
    setFeed("connecting");
    // Read and parsed off the main thread, applied in batches (a burst of frames re-renders once).
    const close = openFeed(`/api/trajectories/${encodeURIComponent(id)}/events`, FEED_EVENTS, {
      events: (batch) => {
        const events = batch.map((b) => b.data as FeedEvent);
        if (events.some((e) => e.type === "snapshot")) setFeed("live");
        setLive((prev) => {
          let t = prev ?? (qc.getQueryData(trajectoryKeys.one(id)) as Trajectory | undefined) ?? null;
          let pending: LiveEvent[] = [];
          for (const e of events) {
            if (e.type === "snapshot") {
              t = e.trajectory;
              pending = [];
            } else if (t) pending.push(e);
          }
          return t ? applyFeedEvents(t, pending) : t;
        });
        if (events.some((e) => e.type === "ended")) {
          close();
          setFeed("closed");
          void qc.invalidateQueries({ queryKey: trajectoryKeys.all });
        }
      },
      state: (s) => {
        if (s === "closed") setFeed("error");
        else if (s === "connecting") setFeed("connecting");
      },
    });
    return close;
  }, [id, running, qc]);

  const data =
    live && (!query.data || live.steps.length >= query.data.steps.length || live.end_reason)
      ? live
      : query.data;
  return { ...query, data: data ?? undefined, feed };
}
