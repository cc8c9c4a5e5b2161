"use client";
// One trajectory, kept current: fetched once, then (while it runs) followed over the SSE feed
// `/api/trajectories/<id>/events` — new steps and frames appear as they happen, from any tab or
// any outside client driving the episode through the relay. Stream state stays out of the query cache.
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect, useState } from "react";
import { applyFeedEvent, type FeedEvent, type LiveEvent } from "@/lib/episodes/feed";
import type { Trajectory } from "@/lib/episodes/schema";
import { trajectoryKeys, trajectoryQuery } from "@/lib/ui/trajectory-queries";

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
    const es = new EventSource(`/api/trajectories/${encodeURIComponent(id)}/events`);
    const on = (type: FeedEvent["type"]) => (msg: MessageEvent<string>) => {
      const e = JSON.parse(msg.data) as FeedEvent;
      if (type === "snapshot") setFeed("live");
      setLive((prev) => {
        const base =
          prev ?? (type === "snapshot" ? null : (qc.getQueryData(trajectoryKeys.one(id)) as Trajectory));
        if (e.type === "snapshot") return e.trajectory;
        return base ? applyFeedEvent(base, e as LiveEvent) : base;
      });
      if (type === "ended") {
        es.close();
        setFeed("closed");
        void qc.invalidateQueries({ queryKey: trajectoryKeys.all });
      }
    };
    for (const t of ["snapshot", "prompt", "reprompt", "step", "frame", "ended"] as const)
      es.addEventListener(t, on(t));
    es.onerror = () => {
      if (es.readyState === EventSource.CLOSED) setFeed("error");
      else setFeed("connecting");
    };
    return () => es.close();
  }, [id, running, qc]);

  const data =
    live && (!query.data || live.steps.length >= query.data.steps.length || live.end_reason)
      ? live
      : query.data;
  return { ...query, data: data ?? undefined, feed };
}
