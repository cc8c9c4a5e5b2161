"use client";
// The live SSE log of one tool call: task_id, each chunk with its size, keep-alive pings with the
// time elapsed, reconnections, then end or error. While the call runs, a timer shows it is alive.
import { useEffect, useState } from "react";
import { cn } from "@/lib/ui/cn";
import type { Step, StreamEvent } from "@/lib/ui/episode-store";

export function formatSeconds(ms: number): string {
  if (ms < 1000) return `${Math.max(0, Math.round(ms))} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  const m = Math.floor(ms / 60_000);
  const s = Math.floor((ms % 60_000) / 1000);
  return `${m} min ${String(s).padStart(2, "0")} s`;
}

/** Re-renders every `ms` while `active` and returns the current time. */
export function useNow(active: boolean, ms = 250): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (!active) return;
    setNow(Date.now());
    const t = setInterval(() => setNow(Date.now()), ms);
    return () => clearInterval(t);
  }, [active, ms]);
  return now;
}

const TONE: Record<StreamEvent["type"], string> = {
  task_id: "text-sky-700 dark:text-sky-400",
  chunk: "text-zinc-700 dark:text-zinc-300",
  end: "text-emerald-700 dark:text-emerald-400",
  error: "text-red-700 dark:text-red-400",
  ping: "text-violet-700 dark:text-violet-400",
  reconnect: "text-amber-700 dark:text-amber-400",
  "give-up": "text-red-700 dark:text-red-400",
};

function describeEvent(ev: StreamEvent, startedAt: number): string {
  switch (ev.type) {
    case "task_id":
      return ev.data ?? "";
    case "chunk":
    case "end":
      return `${(ev.size ?? 0).toLocaleString()} chars${ev.preview ? `  ${ev.preview}${(ev.size ?? 0) > ev.preview.length ? "…" : ""}` : ""}`;
    case "ping":
      return `keep-alive, call running for ${formatSeconds(ev.at - startedAt)}`;
    case "reconnect":
      return `attempt ${ev.attempt ?? "?"}: ${ev.data ?? "stream dropped; re-posting with the task_id"}`;
    case "give-up":
      return `gave up${ev.data ? `: ${ev.data}` : ""}`;
    default:
      return ev.data ?? "";
  }
}

export function StreamLog({ step }: { step: Step }) {
  const running = step.status === "running";
  const now = useNow(running);
  const pings = step.events.filter((e) => e.type === "ping").length;
  const pieces = step.events.filter((e) => e.type === "chunk" || e.type === "end").length;
  const lastAt = step.events.length ? step.events[step.events.length - 1]!.at : step.startedAt;
  return (
    <div className="rounded-md border border-zinc-200 bg-zinc-50 dark:border-zinc-800 dark:bg-zinc-950">
      <div className="flex flex-wrap items-center gap-x-3 gap-y-1 border-b border-zinc-200 px-2 py-1 text-[11px] text-zinc-500 dark:border-zinc-800 dark:text-zinc-400">
        <span className="font-medium uppercase tracking-wide">SSE stream</span>
        <span className="tabular-nums">
          {pieces} piece{pieces === 1 ? "" : "s"} · {step.received.toLocaleString()} chars · {pings} ping
          {pings === 1 ? "" : "s"}
        </span>
        {running && (
          <span
            className="ml-auto inline-flex items-center gap-1.5 font-medium text-indigo-700 dark:text-indigo-300"
            role="timer"
            aria-live="off"
          >
            <span className="size-2 animate-pulse rounded-full bg-indigo-500" aria-hidden="true" />
            running {formatSeconds(now - step.startedAt)}
            <span className="font-normal text-zinc-500 dark:text-zinc-400">
              · last event {formatSeconds(now - lastAt)} ago
            </span>
          </span>
        )}
      </div>
      <ol
        aria-label={`Stream of step ${step.tool}`}
        className="max-h-64 overflow-auto px-2 py-1 font-mono text-xs leading-5"
      >
        {step.events.length === 0 && (
          <li className="text-zinc-500 dark:text-zinc-400">
            {running ? "waiting for the server…" : "no events"}
          </li>
        )}
        {step.events.map((ev, i) => (
          <li key={i} className="grid grid-cols-[4.5rem_5.5rem_minmax(0,1fr)] gap-2">
            <span className="tabular-nums text-zinc-400 dark:text-zinc-500">
              +{((ev.at - step.startedAt) / 1000).toFixed(3)}
            </span>
            <span className={cn("font-semibold", TONE[ev.type])}>{ev.type}</span>
            <span
              className={cn(
                "text-zinc-700 dark:text-zinc-300",
                ev.type === "chunk" || ev.type === "end" || ev.type === "ping" ? "truncate" : "break-words",
              )}
              title={ev.type === "chunk" || ev.type === "end" ? undefined : ev.data}
            >
              {describeEvent(ev, step.startedAt)}
            </span>
          </li>
        ))}
      </ol>
    </div>
  );
}
