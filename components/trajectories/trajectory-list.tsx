"use client";
// The trajectories list (/trajectories): filters (golden ones only, too), sort and search kept in
// the URL, a virtualized table of summaries, two-row selection for compare, export (JSONL, current
// filters; every golden one) and import.
import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { useVirtualizer } from "@tanstack/react-virtual";
import { Download, GitCompare, Star } from "lucide-react";
import Link from "next/link";
import { useRef, useState } from "react";
import { RewardValue } from "@/components/episode/reward-value";
import { PageContainer, PageHeader } from "@/components/layout/page-header";
import { Badge } from "@/components/ui/badge";
import { buttonClasses } from "@/components/ui/button";
import { ErrorPanel } from "@/components/ui/error-panel";
import { SkeletonBlock } from "@/components/ui/skeleton";
import { compareTrajectoriesHref, episodeHref, runHref, trajectoryHref } from "@/lib/routes";
import type { TrajectorySummary } from "@/lib/trajectory/schema";
import { cn } from "@/lib/ui/cn";
import {
  exportGoldenUrl,
  exportUrl,
  htmlListExportUrl,
  trajectoryListQuery,
} from "@/lib/ui/trajectory-queries";
import { END_REASON_LABEL, endReasonTone, fmtTime } from "./format";
import { HtmlExportLink } from "./html-export-button";
import { ImportPanel } from "./import-panel";
import { FilterForm, useListParams } from "./trajectory-filters";

const LIMIT = 5000;
const ROW = 40;
/** Select, id, environment, task, server, session, end, steps, reward, started. */
const COLUMNS =
  "grid-cols-[2rem_7rem_minmax(0,1fr)_minmax(0,1fr)_minmax(0,0.7fr)_6rem_6rem_3.5rem_5rem_9rem]";

export function TrajectoryList() {
  const { filter, setParam } = useListParams();
  const query = useQuery({
    ...trajectoryListQuery({ ...filter, limit: LIMIT }),
    placeholderData: keepPreviousData,
  });
  const [picked, setPicked] = useState<string[]>([]);
  const toggle = (id: string) =>
    setPicked((p) => (p.includes(id) ? p.filter((x) => x !== id) : [...p, id].slice(-2)));

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
      <FilterForm filter={filter} setParam={setParam} items={query.data?.items} />
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
