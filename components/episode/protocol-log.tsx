"use client";
// The episode's protocol log: every request of its session through the relay (create_session,
// create, prompt, tools, each call, ping, delete), live, as a keyboard-navigable list (arrows, Home,
// End; Enter to the detail) beside the chosen request's detail — raw request and response bodies
// as text, secrets masked by the relay — from which a call can be sent again, as it was or edited
// (protocol-log-detail.tsx). Collapsed until opened: the log is read only then.
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { ChevronRight } from "lucide-react";
import { type KeyboardEvent, useEffect, useId, useRef, useState } from "react";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { ErrorPanel } from "@/components/ui/error-panel";
import { SkeletonBlock } from "@/components/ui/skeleton";
import { cn } from "@/lib/ui/cn";
import { selectEndReason, useEpisodeStore } from "@/lib/ui/episode-store";
import {
  fillExchanges,
  formatClock,
  formatMs,
  isWhole,
  type LogEntry,
  protocolLogKeys,
  protocolLogQuery,
  statusTone,
} from "@/lib/ui/protocol-log";
import type { ToolCaller } from "@/lib/ui/use-tool-call";
import { ExchangeDetail } from "./protocol-log-detail";

/** What a request was, in words (its option's accessible name). */
function entryLabel(e: LogEntry): string {
  return `Request ${e.seq}: ${e.method} ${e.path}, ${e.status || "no answer"}, ${formatMs(e.ms)}`;
}

function EntryList({
  items,
  selected,
  onSelect,
  onOpen,
}: {
  items: readonly LogEntry[];
  selected: number | null;
  onSelect: (seq: number) => void;
  /** Enter: to the chosen request's detail. */
  onOpen: () => void;
}) {
  const base = useId().replace(/:/g, "");
  const box = useRef<HTMLDivElement>(null);
  const at = items.findIndex((e) => e.seq === selected);
  useEffect(() => {
    if (selected == null) return;
    box.current?.querySelector(`#${base}-${selected}`)?.scrollIntoView({ block: "nearest" });
  }, [selected, base]);
  const onKey = (ev: KeyboardEvent) => {
    if (items.length === 0) return;
    const go = (i: number) => onSelect(items[Math.max(0, Math.min(items.length - 1, i))]!.seq);
    if (ev.key === "ArrowDown") go(at < 0 ? 0 : at + 1);
    else if (ev.key === "ArrowUp") go(at < 0 ? items.length - 1 : at - 1);
    else if (ev.key === "Home") go(0);
    else if (ev.key === "End") go(items.length - 1);
    else if (ev.key === "PageDown") go(at + 10);
    else if (ev.key === "PageUp") go(at - 10);
    else if (ev.key === "Enter" && at >= 0) onOpen();
    else return;
    ev.preventDefault();
  };
  return (
    <div
      ref={box}
      role="listbox"
      aria-label="Requests"
      tabIndex={0}
      aria-activedescendant={selected != null && at >= 0 ? `${base}-${selected}` : undefined}
      onKeyDown={onKey}
      className="max-h-96 self-start overflow-auto rounded-md border border-zinc-200 font-mono text-xs outline-none focus-visible:ring-2 focus-visible:ring-indigo-500 dark:border-zinc-800"
    >
      {items.map((e) => (
        // biome-ignore lint/a11y/useFocusableInteractive: the listbox holds the focus (aria-activedescendant)
        <div
          key={e.seq}
          id={`${base}-${e.seq}`}
          role="option"
          aria-selected={e.seq === selected}
          aria-label={entryLabel(e)}
          onClick={() => onSelect(e.seq)}
          onKeyDown={() => {}}
          className={cn(
            "grid cursor-pointer grid-cols-[2.5rem_2.75rem_minmax(0,1fr)_2.75rem_4rem] items-center gap-2 border-b border-zinc-100 px-2 py-1 last:border-b-0 hover:bg-zinc-50 dark:border-zinc-900 dark:hover:bg-zinc-900",
            e.seq === selected && "bg-indigo-50 dark:bg-indigo-950",
          )}
        >
          <span className="text-zinc-500">#{e.seq}</span>
          <span className="font-semibold">{e.method}</span>
          <span className="truncate" title={`${e.path} at ${formatClock(e.at)}`}>
            {e.path}
          </span>
          <Badge tone={statusTone(e.status)} className="justify-center font-mono">
            {e.status || "—"}
          </Badge>
          <span className="text-right tabular-nums text-zinc-500">{formatMs(e.ms)}</span>
        </div>
      ))}
    </div>
  );
}

function LogBody({ id, caller }: { id: string; caller: ToolCaller }) {
  const qc = useQueryClient();
  const log = useQuery(protocolLogQuery(id));
  const ended = useEpisodeStore((s) => selectEndReason(s) !== null);
  const [selected, setSelected] = useState<number | null>(null);
  const detailId = useId();
  const items = log.data?.items ?? [];
  const entry = items.find((e) => e.seq === selected) ?? null;

  // The session's last requests (its /delete) may be logged after the feed said it ended.
  useEffect(() => {
    if (ended) void qc.invalidateQueries({ queryKey: protocolLogKeys.of(id) });
  }, [ended, id, qc]);
  // A request known only from the live feed: its bodies are read when it is opened.
  const [fillError, setFillError] = useState<unknown>(null);
  useEffect(() => {
    if (!entry || isWhole(entry)) return;
    setFillError(null);
    fillExchanges(qc, id).catch(setFillError);
  }, [entry, id, qc]);

  if (log.isPending) return <SkeletonBlock label="Loading the protocol log" lines={4} />;
  if (log.error)
    return (
      <ErrorPanel
        compact
        error={log.error}
        context={{ what: "the protocol log" }}
        onRetry={() => void log.refetch()}
      />
    );
  return (
    <div className="flex flex-col gap-3">
      <p className="text-xs text-zinc-500 dark:text-zinc-400" role="status">
        {items.length === 0
          ? "No requests logged yet."
          : `${items.length} request${items.length === 1 ? "" : "s"} of this session through the relay.`}
        {log.data.dropped > 0 &&
          ` The log is full: ${log.data.dropped} later request${log.data.dropped === 1 ? " was" : "s were"} not kept.`}
      </p>
      {items.length > 0 && (
        <div className="grid gap-3 xl:grid-cols-[minmax(0,24rem)_minmax(0,1fr)]">
          <EntryList
            items={items}
            selected={selected}
            onSelect={setSelected}
            onOpen={() => document.getElementById(detailId)?.focus()}
          />
          {entry ? (
            <ExchangeDetail
              key={entry.seq}
              id={detailId}
              entry={entry}
              caller={caller}
              error={fillError}
              onRetry={() => {
                setFillError(null);
                fillExchanges(qc, id).catch(setFillError);
              }}
            />
          ) : (
            <p className="text-xs text-zinc-500 dark:text-zinc-400">
              Pick a request (arrow keys move through them) to see its headers and bodies.
            </p>
          )}
        </div>
      )}
    </div>
  );
}

/** The collapsible "Protocol log" region of the episode page. */
export function ProtocolLogPanel({ caller }: { caller: ToolCaller }) {
  const id = useEpisodeStore((s) => s.trajectory?.id ?? null);
  const [open, setOpen] = useState(false);
  const headingId = useId();
  const bodyId = useId();
  if (!id) return null;
  return (
    <section
      aria-labelledby={headingId}
      className="rounded-lg border border-zinc-200 bg-white dark:border-zinc-800 dark:bg-zinc-900/40"
    >
      <h2 id={headingId} className="text-sm font-semibold">
        <Button
          variant="ghost"
          size="sm"
          aria-expanded={open}
          aria-controls={bodyId}
          onClick={() => setOpen((o) => !o)}
          className="w-full justify-start"
        >
          <ChevronRight aria-hidden="true" className={cn("transition-transform", open && "rotate-90")} />
          Protocol log
        </Button>
      </h2>
      {open && (
        <div id={bodyId} className="border-t border-zinc-200 p-3 dark:border-zinc-800">
          <LogBody id={id} caller={caller} />
        </div>
      )}
    </section>
  );
}
