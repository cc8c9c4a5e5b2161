// A run's live progress, read from `GET /api/runs/{id}/events` (SSE: progress, episode, status)
// while it plays: the counters, rate and time left as they change, kept in the hook's state (a
// stream, not a cached resource). Ended episodes and status changes refresh the run's summary in
// the query cache — ended episodes at most every summaryRefreshMs (longer for bigger runs), a
// status change at once — so the results fill in as episodes end.
"use client";

import { useQueryClient } from "@tanstack/react-query";
import { useEffect, useRef, useState } from "react";
import type { RunEvent, RunProgress } from "@/lib/runs/events";
import type { RunStatus } from "@/lib/store/types";
import { FINAL_RUN_STATUSES, runKeys, summaryRefreshMs } from "./run-queries";

export interface LiveRunProgress {
  /** The newest progress the stream sent (null before the first). */
  progress: RunProgress | null;
  /** The stream is open. */
  connected: boolean;
}

/**
 * Follows a run's events while `active` (queued or running). The stream closes when the run
 * stops (the server ends it; the browser is kept from reconnecting) or when `active` turns false.
 */
export function useRunProgress(id: string, active: boolean, episodes: number): LiveRunProgress {
  const qc = useQueryClient();
  const [progress, setProgress] = useState<RunProgress | null>(null);
  const [connected, setConnected] = useState(false);
  const lastRefresh = useRef(0);

  useEffect(() => {
    if (!active) return;
    // A resumed run starts over: what the last stream said is no longer true.
    setProgress(null);
    let refreshTimer: ReturnType<typeof setTimeout> | undefined;
    const refresh = (now: boolean) => {
      if (refreshTimer) return;
      const wait = now ? 0 : Math.max(0, lastRefresh.current + summaryRefreshMs(episodes) - Date.now());
      refreshTimer = setTimeout(() => {
        refreshTimer = undefined;
        lastRefresh.current = Date.now();
        void qc.invalidateQueries({ queryKey: runKeys.one(id) });
        void qc.invalidateQueries({ queryKey: runKeys.lists() });
      }, wait);
    };
    const es = new EventSource(`/api/runs/${encodeURIComponent(id)}/events`);
    const stop = () => {
      es.close();
      setConnected(false);
    };
    const final = (s: RunStatus) => FINAL_RUN_STATUSES.includes(s);
    const on = (msg: MessageEvent<string>) => {
      let e: RunEvent;
      try {
        e = JSON.parse(msg.data) as RunEvent;
      } catch {
        return;
      }
      if (e.type === "progress") {
        const { type: _t, runId: _r, at: _a, ...p } = e;
        setProgress(p);
        if (final(p.status)) {
          refresh(true);
          stop();
        }
      } else if (e.type === "status") {
        setProgress((p) => (p ? { ...p, status: e.status } : p));
        refresh(true);
      } else if (e.status !== "running") refresh(false);
    };
    for (const t of ["progress", "episode", "status"]) es.addEventListener(t, on as EventListener);
    es.onopen = () => setConnected(true);
    es.onerror = () => {
      // The server ends the stream when the run stops; anything else the browser retries.
      setConnected(es.readyState === EventSource.OPEN);
    };
    return () => {
      if (refreshTimer) clearTimeout(refreshTimer);
      stop();
    };
  }, [id, active, episodes, qc]);

  return { progress, connected };
}
