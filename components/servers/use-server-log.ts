"use client";
// The log of a server the playground runs (`start --spawn`), kept current over its SSE feed
// `/api/servers/<name>/log/events`: the state of its process and its last lines. When it becomes
// ready again (restarted, its code changed), what the UI cached about that server is fetched again.
// Stream state stays out of the query cache; the lines kept are bounded like the server's.
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useEffect, useRef, useState } from "react";
import type { LogLine, ProcessStatus, ServerLogEvent } from "@/lib/spawn/types";
import { apiError } from "@/lib/ui/api-error";
import { orsKeys, serverKeys } from "@/lib/ui/query-keys";

/** Lines kept in the page (the server keeps as many). */
const MAX_LINES = 2000;

export type LogFeedState = "connecting" | "live" | "error";

export interface ServerLogState {
  status: ProcessStatus | null;
  lines: LogLine[];
  /** Lines no longer kept (by the server, and here). */
  dropped: number;
  feed: LogFeedState;
}

export function useServerLog(server: string): ServerLogState {
  const qc = useQueryClient();
  const [state, setState] = useState<ServerLogState>({
    status: null,
    lines: [],
    dropped: 0,
    feed: "connecting",
  });
  const lastState = useRef<ProcessStatus["state"] | null>(null);

  useEffect(() => {
    const es = new EventSource(`/api/servers/${encodeURIComponent(server)}/log/events`);
    const onStatus = (status: ProcessStatus) => {
      const before = lastState.current;
      lastState.current = status.state;
      // Ready again: its environments, tools and health may have changed with its code.
      if (status.state === "ready" && before !== null && before !== "ready") {
        void qc.invalidateQueries({ queryKey: orsKeys.server(server) });
        void qc.invalidateQueries({ queryKey: serverKeys.all });
      }
    };
    es.addEventListener("snapshot", (msg: MessageEvent<string>) => {
      const e = JSON.parse(msg.data) as Extract<ServerLogEvent, { type: "snapshot" }>;
      onStatus(e.snapshot.status);
      setState({ ...e.snapshot, feed: "live" });
    });
    es.addEventListener("lines", (msg: MessageEvent<string>) => {
      const e = JSON.parse(msg.data) as Extract<ServerLogEvent, { type: "lines" }>;
      setState((s) => {
        const all = s.lines.concat(e.lines);
        const cut = Math.max(0, all.length - MAX_LINES);
        return { ...s, lines: cut ? all.slice(cut) : all, dropped: s.dropped + cut };
      });
    });
    es.addEventListener("status", (msg: MessageEvent<string>) => {
      const e = JSON.parse(msg.data) as Extract<ServerLogEvent, { type: "status" }>;
      onStatus(e.status);
      setState((s) => ({ ...s, status: e.status }));
    });
    es.onerror = () => {
      // The browser reconnects by itself (and the next snapshot replaces what is shown).
      setState((s) => ({ ...s, feed: es.readyState === EventSource.CLOSED ? "error" : "connecting" }));
    };
    return () => es.close();
  }, [server, qc]);

  return state;
}

/** Starts the server again (POST /api/servers/<name>/restart); the log feed shows how it goes. */
export function useRestartServer(server: string) {
  return useMutation({
    mutationFn: async () => {
      const res = await fetch(`/api/servers/${encodeURIComponent(server)}/restart`, { method: "POST" });
      if (!res.ok) throw await apiError(res);
    },
  });
}
