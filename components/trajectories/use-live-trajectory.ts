"use client";
// One trajectory, kept current: fetched once, then (while it runs) followed over the SSE feed
// `/api/trajectories/<id>/events` — new steps and frames appear as they happen, from any tab or
// any outside client driving the episode through the relay. Stream state stays out of the query cache.
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect, useState } from "react";
import type { EndReason, StepEvent, Trajectory, TrajectoryStep } from "@/lib/episodes/schema";
import { trajectoryKeys, trajectoryQuery } from "@/lib/ui/trajectory-queries";

type FeedEvent =
  | { type: "snapshot"; trajectory: Trajectory }
  | { type: "prompt"; blocks: Trajectory["prompt"] }
  | { type: "step"; step: TrajectoryStep }
  | { type: "frame"; index: number; event: StepEvent }
  | { type: "ended"; end_reason: EndReason; error: string | null; ended_at: number };

export function applyFeedEvent(t: Trajectory, e: FeedEvent): Trajectory {
  switch (e.type) {
    case "snapshot":
      return e.trajectory;
    case "prompt":
      return { ...t, prompt: e.blocks };
    case "step": {
      const steps = t.steps.filter((s) => s.index !== e.step.index);
      steps.push(e.step);
      steps.sort((a, b) => a.index - b.index);
      return { ...t, steps, total_reward: steps.reduce((s, x) => s + (x.reward ?? 0), 0) };
    }
    case "frame":
      return {
        ...t,
        steps: t.steps.map((s) => (s.index === e.index ? { ...s, events: [...s.events, e.event] } : s)),
      };
    case "ended":
      return { ...t, end_reason: e.end_reason, error: e.error, ended_at: e.ended_at };
  }
}

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
        if (type === "snapshot") return (e as { trajectory: Trajectory }).trajectory;
        return base ? applyFeedEvent(base, e) : base;
      });
      if (type === "ended") {
        es.close();
        setFeed("closed");
        void qc.invalidateQueries({ queryKey: trajectoryKeys.all });
      }
    };
    for (const t of ["snapshot", "prompt", "step", "frame", "ended"] as const) es.addEventListener(t, on(t));
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
