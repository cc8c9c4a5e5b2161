"use client";
// The trajectories list (/trajectories): filters (golden ones only, too), sort and search kept in
// the URL, a virtualized table of summaries, two-row selection for compare, export (JSONL, current
// filters; every golden one) and import.
import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { useVirtualizer } from "@tanstack/react-virtual";
import { Download, GitCompare, Star } from "lucide-react";
import Link from "next/link";
import { usePathname, useRouter, useSearchParams } from "next/navigation";
import { useEffect, useRef, useState } from "react";
import { RewardValue } from "@/components/episode/reward-value";
import { PageContainer, PageHeader } from "@/components/layout/page-header";
import { Badge } from "@/components/ui/badge";
import { buttonClasses } from "@/components/ui/button";
import { ErrorPanel } from "@/components/ui/error-panel";
import { Input, inputClasses, Label } from "@/components/ui/input";
import { SkeletonBlock } from "@/components/ui/skeleton";
import { compareTrajectoriesHref, episodeHref, runHref, trajectoryHref } from "@/lib/routes";
import { END_REASONS, SORT_KEYS } from "@/lib/trajectory/model";
import type { TrajectoryFilter, TrajectorySummary } from "@/lib/trajectory/schema";
import { cn } from "@/lib/ui/cn";
import { filterFromParams } from "@/lib/ui/trajectory-filter";
import {
  exportGoldenUrl,
  exportUrl,
  htmlListExportUrl,
  trajectoryListQuery,
} from "@/lib/ui/trajectory-queries";
import { END_REASON_LABEL, endReasonTone, fmtTime } from "./format";
import { HtmlExportLink } from "./html-export-button";
import { ImportPanel } from "./import-panel";

const LIMIT = 5000;
const ROW = 40;
/** Select, id, environment, task, server, session, end, steps, reward, started. */
const COLUMNS =
  "grid-cols-[2rem_7rem_minmax(0,1fr)_minmax(0,1fr)_minmax(0,0.7fr)_6rem_6rem_3.5rem_5rem_9rem]";

/** Distinct non-empty values of a field among the loaded rows (suggestions for the filters). */
function distinct(
  items: TrajectorySummary[] | undefined,
  pick: (t: TrajectorySummary) => string | null,
): string[] {
  return [...new Set((items ?? []).map(pick).filter((v): v is string => !!v))].sort();
}

export function TrajectoryList() {
  const params = useSearchParams();
  const router = useRouter();
  const pathname = usePathname();
  const filter = filterFromParams(new URLSearchParams(params.toString()));
  const [q, setQ] = useState(filter.q ?? "");
  const setParam = (patch: Record<string, string | undefined>) => {
    const p = new URLSearchParams(params.toString());
    for (const [k, v] of Object.entries(patch)) {
      if (v === undefined || v === "") p.delete(k);
      else p.set(k, v);
    }
    router.replace(`${pathname}?${p}`, { scroll: false });
  };
  // Debounced search box.
  useEffect(() => {
    if ((filter.q ?? "") === q) return;
    const t = setTimeout(() => setParam({ q }), 250);
    return () => clearTimeout(t);
  });
  const query = useQuery({
    ...trajectoryListQuery({ ...filter, limit: LIMIT }),
    placeholderData: keepPreviousData,
  });
  const [picked, setPicked] = useState<string[]>([]);
  const toggle = (id: string) =>
    setPicked((p) => (p.includes(id) ? p.filter((x) => x !== id) : [...p, id].slice(-2)));

  const field = (name: keyof TrajectoryFilter, label: string, props: Record<string, unknown> = {}) => (
    <div className="space-y-1">
      <Label htmlFor={`f-${name}`}>{label}</Label>
      <Input
        id={`f-${name}`}
        defaultValue={String(filter[name] ?? "")}
        key={`${name}-${filter[name] ?? ""}`}
        onBlur={(e) => setParam({ [name]: e.target.value.trim() })}
        onKeyDown={(e) => {
          if (e.key === "Enter") setParam({ [name]: (e.target as HTMLInputElement).value.trim() });
        }}
        {...props}
      />
    </div>
  );

  return (
    <PageContainer>
      <PageHeader
        title="Trajectories"
        description={
          filter.run ? (
            <>
              The episodes of run{" "}
              <Link className="font-mono underline" href={runHref(filter.run)}>
                {filter.run.slice(0, 8)}
              </Link>{" "}
              ·{" "}
              <button type="button" className="underline" onClick={() => setParam({ run: undefined })}>
                Show every episode
              </button>
            </>
          ) : (
            "Every episode that passed through the relay, step by step."
          )
        }
        actions={
          <>
            {picked.length === 2 && (
              <Link
                className={buttonClasses("primary", "sm")}
                href={compareTrajectoriesHref(picked[0], picked[1])}
              >
                <GitCompare aria-hidden="true" /> Compare selected
              </Link>
            )}
            <a className={buttonClasses("secondary", "sm")} href={exportUrl(filter)} download>
              <Download aria-hidden="true" /> Export JSONL
            </a>
            <HtmlExportLink href={htmlListExportUrl(filter)} what="The trajectories matching the filters" />
            <a
              className={buttonClasses("secondary", "sm")}
              href={exportGoldenUrl()}
              download
              title="Every golden trajectory as JSONL, for npx ors-playground test"
            >
              <Star aria-hidden="true" /> Export golden
            </a>
          </>
        }
      />
      <form
        aria-label="Filters"
        className="mb-3 grid grid-cols-2 gap-2 sm:grid-cols-4 lg:grid-cols-10"
        onSubmit={(e) => e.preventDefault()}
      >
        <div className="col-span-2 space-y-1">
          <Label htmlFor="f-q">Search</Label>
          <Input
            id="f-q"
            type="search"
            value={q}
            onChange={(e) => setQ(e.target.value)}
            placeholder="text, tool, id…"
          />
        </div>
        {field("server", "Server", { list: "f-server-options" })}
        {field("env", "Environment", { list: "f-env-options" })}
        <datalist id="f-server-options">
          {distinct(query.data?.items, (t) => t.server).map((v) => (
            <option key={v} value={v} />
          ))}
        </datalist>
        <datalist id="f-env-options">
          {distinct(query.data?.items, (t) => t.env).map((v) => (
            <option key={v} value={v} />
          ))}
        </datalist>
        {field("task", "Task", { placeholder: "train/12" })}
        <div className="space-y-1">
          <Label htmlFor="f-end">End reason</Label>
          <select
            id="f-end"
            className={inputClasses}
            value={filter.end_reason ?? ""}
            onChange={(e) => setParam({ end_reason: e.target.value })}
          >
            <option value="">any</option>
            <option value="running">running</option>
            {END_REASONS.map((r) => (
              <option key={r} value={r}>
                {r}
              </option>
            ))}
          </select>
        </div>
        {field("min_reward", "Min reward", { type: "number", step: "any" })}
        {field("max_reward", "Max reward", { type: "number", step: "any" })}
        <div className="space-y-1">
          <Label htmlFor="f-sort">Sort by</Label>
          <select
            id="f-sort"
            className={inputClasses}
            value={`${filter.sort ?? "started_at"}:${filter.order ?? "desc"}`}
            onChange={(e) => {
              const [sort, order] = e.target.value.split(":");
              setParam({ sort, order });
            }}
          >
            {SORT_KEYS.flatMap((k) =>
              (["desc", "asc"] as const).map((o) => (
                <option key={`${k}:${o}`} value={`${k}:${o}`}>
                  {k.replace("_", " ")} {o === "desc" ? "↓" : "↑"}
                </option>
              )),
            )}
          </select>
        </div>
        <div className="flex items-end pb-1.5">
          <label className="flex items-center gap-1.5 text-xs font-medium text-zinc-700 dark:text-zinc-300">
            {/* Uncontrolled (the URL follows a moment later), re-keyed when the URL changes it. */}
            <input
              type="checkbox"
              key={`golden-${filter.golden === true}`}
              defaultChecked={filter.golden === true}
              onChange={(e) => setParam({ golden: e.target.checked ? "1" : undefined })}
            />
            Golden only
          </label>
        </div>
      </form>
      <div className="mb-3">
        <ImportPanel />
      </div>
      {query.isPending ? (
        <SkeletonBlock lines={8} />
      ) : query.error ? (
        <ErrorPanel error={query.error} onRetry={() => void query.refetch()} />
      ) : (
        <Rows items={query.data.items} total={query.data.total} picked={picked} toggle={toggle} />
      )}
    </PageContainer>
  );
}

function Rows({
  items,
  total,
  picked,
  toggle,
}: {
  items: TrajectorySummary[];
  total: number;
  picked: string[];
  toggle: (id: string) => void;
}) {
  const parentRef = useRef<HTMLDivElement>(null);
  const v = useVirtualizer({
    count: items.length,
    getScrollElement: () => parentRef.current,
    estimateSize: () => ROW,
    overscan: 10,
  });
  if (items.length === 0) {
    return (
      <p className="rounded-lg border border-zinc-200 p-6 text-center text-zinc-500 dark:border-zinc-800">
        No trajectories match. Run an episode, or import a file.
      </p>
    );
  }
  return (
    <div>
      <p className="mb-1 text-xs text-zinc-500" role="status">
        {total} trajector{total === 1 ? "y" : "ies"}
        {total > items.length && ` (showing the first ${items.length})`}
      </p>
      <div className="rounded-lg border border-zinc-200 dark:border-zinc-800">
        <div
          aria-hidden="true"
          className={cn(
            "grid gap-2 border-b border-zinc-200 px-2 py-1.5 text-xs font-semibold text-zinc-500 dark:border-zinc-800",
            COLUMNS,
          )}
        >
          <span>
            <span className="sr-only">Select</span>
          </span>
          <span>Id</span>
          <span>Environment</span>
          <span>Task</span>
          <span>Server</span>
          <span>Session</span>
          <span>End</span>
          <span>Steps</span>
          <span>Reward</span>
          <span>Started</span>
        </div>
        <div ref={parentRef} className="max-h-[65vh] overflow-auto" data-testid="trajectory-scroller">
          <ul aria-label="Trajectories" style={{ height: v.getTotalSize(), position: "relative" }}>
            {v.getVirtualItems().map((vi) => {
              const t = items[vi.index];
              return (
                <li
                  key={t.id}
                  aria-label={`${t.env ?? "unknown"} ${t.task_label} ${t.end_reason ?? "running"}`}
                  className={cn(
                    "absolute left-0 grid w-full items-center gap-2 border-b border-zinc-100 px-2 text-xs hover:bg-zinc-50 dark:border-zinc-900 dark:hover:bg-zinc-900",
                    COLUMNS,
                    picked.includes(t.id) && "bg-indigo-50 dark:bg-indigo-950",
                  )}
                  style={{ top: vi.start, height: ROW }}
                >
                  <span>
                    <input
                      type="checkbox"
                      aria-label={`Select ${t.id} for compare`}
                      checked={picked.includes(t.id)}
                      onChange={() => toggle(t.id)}
                    />
                  </span>
                  <span
                    className="truncate font-mono text-zinc-600 dark:text-zinc-400"
                    title={`Trajectory ${t.id}`}
                  >
                    {t.id}
                  </span>
                  <span className="truncate">
                    <Link
                      className="font-medium text-indigo-700 hover:underline dark:text-indigo-300"
                      href={trajectoryHref(t.id)}
                    >
                      {t.env ?? "unknown"}
                    </Link>
                    {t.origin && <span className="ml-1 text-zinc-500">({t.origin.kind})</span>}
                    {t.golden && (
                      <span className="ml-1 text-amber-500" title="Golden">
                        <Star aria-hidden="true" className="inline size-3 fill-current" />
                        <span className="sr-only"> (golden)</span>
                      </span>
                    )}
                  </span>
                  <span className="truncate font-mono" title={t.task_label}>
                    {t.task_label}
                  </span>
                  <span className="truncate font-mono">{t.server}</span>
                  <SessionCell t={t} />
                  <span>
                    <Badge tone={endReasonTone(t.end_reason)}>
                      {END_REASON_LABEL[t.end_reason ?? "running"]}
                    </Badge>
                  </span>
                  <span className="font-mono">{t.num_steps}</span>
                  <RewardValue value={t.total_reward} className="font-mono" />
                  <span className="text-zinc-500">{fmtTime(t.started_at)}</span>
                </li>
              );
            })}
          </ul>
        </div>
      </div>
    </div>
  );
}

/** The episode's ORS session id: a link to its live episode page while it runs. */
function SessionCell({ t }: { t: TrajectorySummary }) {
  if (!t.sid) return <span className="text-zinc-400">—</span>;
  const short = t.sid.length > 12 ? `${t.sid.slice(0, 8)}…` : t.sid;
  if (t.end_reason === null && t.env)
    return (
      <Link
        className="truncate font-mono text-indigo-700 hover:underline dark:text-indigo-300"
        href={episodeHref(t.server, t.env, t.sid)}
        title={`Session ${t.sid}: open the live episode`}
        aria-label={`Open the live episode of session ${t.sid}`}
      >
        {short}
      </Link>
    );
  return (
    <span className="truncate font-mono" title={`Session ${t.sid}`}>
      {short}
    </span>
  );
}
