"use client";
// The SSE log of one tool call as the relay recorded it: task_id, each result piece with its size,
// keep-alive pings with the time elapsed, resumes, then end or error — plus what only this tab's
// client saw (its reconnections). While the call runs, a timer shows it is alive. A huge result
// passes as thousands of pieces: the log shows the latest rows (LIVE_ROWS while it runs, redrawn a
// few times a second; MAX_ROWS after) and says how many came before (all of them on request).
import { useEffect, useMemo, useRef, useState } from "react";
import type { CallEvent } from "@/lib/ors/client/call-tool";
import type { StepEvent, TrajectoryStep } from "@/lib/trajectory/schema";
import { receivedChars } from "@/lib/trajectory/step";
import { cn } from "@/lib/ui/cn";

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

type Row = { t: number; kind: string; text: string; tone: string; full?: string };

/** 12345678 → "12,345,678", without toLocaleString (slow when called for thousands of frames). */
function grouped(n: number): string {
  return String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ",");
}

const TONE: Record<string, string> = {
  task_id: "text-sky-700 dark:text-sky-400",
  chunk: "text-zinc-700 dark:text-zinc-300",
  end: "text-emerald-700 dark:text-emerald-400",
  error: "text-red-700 dark:text-red-400",
  ping: "text-violet-700 dark:text-violet-400",
  note: "text-amber-700 dark:text-amber-400",
  reconnect: "text-amber-700 dark:text-amber-400",
  "give-up": "text-red-700 dark:text-red-400",
};

function rowOf(e: StepEvent): Row {
  if (e.kind === "comment") {
    const isPing = e.comment === "ping";
    return {
      t: e.t,
      kind: isPing ? "ping" : "note",
      text: isPing ? `keep-alive, call running for ${formatSeconds(e.t)}` : e.comment,
      tone: TONE[isPing ? "ping" : "note"]!,
    };
  }
  if (e.event === "chunk" || e.event === "end") {
    const size = e.size ?? e.data.length;
    return {
      t: e.t,
      kind: e.event,
      text: `${grouped(size)} chars  ${e.data}${size > e.data.length ? "…" : ""}`,
      tone: TONE[e.event]!,
    };
  }
  return { t: e.t, kind: e.event, text: e.data, tone: TONE[e.event] ?? TONE.chunk!, full: e.data };
}

function noteRow(n: CallEvent, startedAt: number): Row {
  return {
    t: n.at - startedAt,
    kind: n.type,
    text:
      n.type === "reconnect"
        ? `this tab: attempt ${n.attempt ?? "?"}: ${n.data ?? "stream dropped; re-posting with the task_id"}`
        : `this tab gave up${n.data ? `: ${n.data}` : ""}`,
    tone: TONE[n.type] ?? TONE.note!,
    full: n.data,
  };
}

/** The log shows at most this many of the latest rows until asked for all. */
export const MAX_ROWS = 200;
/**
 * While the call runs, the latest this many (the box shows about 12): a huge result brings dozens
 * of frames per feed batch, and every row made is laid out, shaped and painted in that frame.
 */
export const LIVE_ROWS = 50;
/** While the call runs, the log is redrawn at most this often (its timer ticks at the same pace). */
const LIVE_REDRAW_MS = 250;

/**
 * `value` as it was at most `ms` ago while `active` (then at once): a stream of updates is drawn
 * a few times a second, not on every feed batch.
 */
function useThrottled<T>(value: T, ms: number, active: boolean): T {
  const [shown, setShown] = useState(value);
  const last = useRef(0);
  useEffect(() => {
    if (!active) return;
    const show = () => {
      last.current = Date.now();
      setShown(value);
    };
    const wait = last.current + ms - Date.now();
    if (wait <= 0) return show();
    const t = setTimeout(show, wait);
    return () => clearTimeout(t);
  }, [value, ms, active]);
  return active ? shown : value;
}

const NO_NOTES: CallEvent[] = [];

export function StreamLog({
  step,
  running,
  notes = NO_NOTES,
}: {
  step: TrajectoryStep;
  running: boolean;
  notes?: CallEvent[];
}) {
  const now = useNow(running);
  const [everything, setEverything] = useState(false);
  const events = useThrottled(step.events, LIVE_REDRAW_MS, running);
  const limit = running ? LIVE_ROWS : MAX_ROWS;
  // Rows are made only for what is shown (the latest `limit`): a huge result has thousands of frames.
  const { rows, total, pings, pieces, chars } = useMemo(() => {
    let pings = 0;
    let pieces = 0;
    for (const e of events) {
      if (e.kind === "comment" && e.comment === "ping") pings++;
      else if (e.kind === "event" && (e.event === "chunk" || e.event === "end")) pieces++;
    }
    const total = events.length + notes.length;
    const from = everything ? 0 : Math.max(0, events.length - limit);
    const rows = [...events.slice(from).map(rowOf), ...notes.map((n) => noteRow(n, step.started_at))]
      .sort((a, b) => a.t - b.t)
      .slice(everything ? 0 : -limit);
    return { rows, total, pings, pieces, chars: receivedChars({ events }) };
  }, [events, step.started_at, notes, everything, limit]);
  const hidden = total - rows.length;
  const shownRows = rows;
  const lastT = events.length ? events[events.length - 1]!.t : 0;
  return (
    <div className="rounded-md border border-zinc-200 bg-zinc-50 dark:border-zinc-800 dark:bg-zinc-950">
      <div className="flex flex-wrap items-center gap-x-3 gap-y-1 border-b border-zinc-200 px-2 py-1 text-[11px] text-zinc-500 dark:border-zinc-800 dark:text-zinc-400">
        <span className="font-medium uppercase tracking-wide">SSE stream</span>
        <span className="tabular-nums">
          {pieces} piece{pieces === 1 ? "" : "s"} · {grouped(chars)} chars · {pings} ping
          {pings === 1 ? "" : "s"}
        </span>
        {running && (
          <span
            className="ml-auto inline-flex items-center gap-1.5 font-medium text-indigo-700 dark:text-indigo-300"
            role="timer"
            aria-live="off"
          >
            <span className="size-2 animate-pulse rounded-full bg-indigo-500" aria-hidden="true" />
            running {formatSeconds(now - step.started_at)}
            <span className="font-normal text-zinc-500 dark:text-zinc-400">
              · last event {formatSeconds(now - step.started_at - lastT)} ago
            </span>
          </span>
        )}
      </div>
      <ol
        aria-label={`Stream of step ${step.index}`}
        className="max-h-64 overflow-auto px-2 py-1 font-mono text-xs leading-5 [contain:content]"
      >
        {hidden > 0 && (
          <li className="text-zinc-500 dark:text-zinc-400">
            {grouped(hidden)} earlier events not shown.{" "}
            <button
              type="button"
              onClick={() => setEverything(true)}
              className="font-medium text-sky-700 underline-offset-2 hover:underline dark:text-sky-400"
            >
              Show all {grouped(total)}
            </button>
          </li>
        )}
        {rows.length === 0 && (
          <li className="text-zinc-500 dark:text-zinc-400">
            {running ? "waiting for the server…" : "no events"}
          </li>
        )}
        {shownRows.map((r, i) => (
          // Only the rows scrolled into view are laid out and painted (the box shows about 12 of
          // 200): while a huge result streams, each batch otherwise re-shaped and re-painted every
          // row's 240-character preview, a frame of 30–60 ms of CPU that a busy machine stretched
          // past 200 ms.
          <li
            key={hidden + i}
            className="grid grid-cols-[4.5rem_5.5rem_minmax(0,1fr)] gap-2 [contain-intrinsic-size:auto_1.25rem] [content-visibility:auto]"
          >
            <span className="tabular-nums text-zinc-400 dark:text-zinc-500">+{(r.t / 1000).toFixed(3)}</span>
            <span className={cn("font-semibold", r.tone)}>{r.kind}</span>
            <span
              className={cn(
                "text-zinc-700 dark:text-zinc-300",
                r.kind === "chunk" || r.kind === "end" || r.kind === "ping" ? "truncate" : "break-words",
              )}
              title={r.full}
            >
              {r.text}
            </span>
          </li>
        ))}
      </ol>
    </div>
  );
}
