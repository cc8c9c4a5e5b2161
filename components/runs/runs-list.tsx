"use client";
// The runs list (/runs): every run, newest first, with its status, where it ran, its policy, its
// progress and success rate, kept current while any plays; pick two to compare; the model
// endpoints beside it. Filter by status; pages of PAGE runs.
import { GitCompare, Play } from "lucide-react";
import Link from "next/link";
import { usePathname, useRouter, useSearchParams } from "next/navigation";
import { useState } from "react";
import { PageContainer, PageHeader } from "@/components/layout/page-header";
import { ModelsPanel } from "@/components/models/models-panel";
import { Button, buttonClasses } from "@/components/ui/button";
import { ErrorPanel } from "@/components/ui/error-panel";
import { SkeletonBlock } from "@/components/ui/skeleton";
import { compareRunsHref, newRunHref, runHref } from "@/lib/routes";
import type { RunStatus } from "@/lib/store/types";
import { cn } from "@/lib/ui/cn";
import {
  formatPercent,
  formatWhen,
  progressFraction,
  RUN_STATUS_LABEL,
  RUN_STATUS_ORDER,
} from "@/lib/ui/run-format";
import { type RunListItem, useRuns } from "@/lib/ui/run-queries";
import { ProgressBar } from "./progress-bar";
import { RunStatusBadge } from "./run-status-badge";
import { ListFilter, RUN_TAGS, RunTags } from "./run-tags";

const PAGE = 50;

/** The table's columns after the compare checkbox. */
const COLUMNS = ["Run", "Status", "Server / environment / split", "Policy", "Progress", "Success", "Started"];

export function RunsList() {
  const params = useSearchParams();
  const router = useRouter();
  const pathname = usePathname();
  const statusParam = params.get("status");
  const status = (RUN_STATUS_ORDER as readonly string[]).includes(statusParam ?? "")
    ? (statusParam as RunStatus)
    : undefined;
  const tag = params.get("tag") || undefined;
  const page = Math.max(0, Math.floor(Number(params.get("page")) || 0));
  const runs = useRuns({ status, tag, limit: PAGE, offset: page * PAGE });
  // Picked for comparison: the first becomes A (the baseline), the second B.
  const [picked, setPicked] = useState<string[]>([]);
  const toggle = (id: string) =>
    setPicked((p) => (p.includes(id) ? p.filter((x) => x !== id) : [...p, id].slice(-2)));
  const go = (patch: Record<string, string | undefined>) => {
    const p = new URLSearchParams(params.toString());
    for (const [k, v] of Object.entries(patch)) {
      if (v === undefined || v === "") p.delete(k);
      else p.set(k, v);
    }
    router.replace(`${pathname}${p.size ? `?${p}` : ""}`, { scroll: false });
  };
  const total = runs.data?.total ?? 0;
  return (
    <PageContainer>
      <PageHeader
        title="Runs"
        description="A policy — a model, random inputs, a replay or your own script — playing a whole split. Every episode is a recorded trajectory."
        actions={
          <>
            {picked.length === 2 ? (
              <Link className={buttonClasses("primary", "sm")} href={compareRunsHref(picked[0]!, picked[1]!)}>
                <GitCompare aria-hidden="true" /> Compare selected
              </Link>
            ) : (
              <Button size="sm" disabled title="Select two runs in the list to compare them">
                <GitCompare aria-hidden="true" /> Compare selected
              </Button>
            )}
            <Link className={buttonClasses("secondary", "sm")} href={newRunHref()}>
              <Play aria-hidden="true" /> Start a run
            </Link>
          </>
        }
      />
      <div className="grid gap-5 xl:grid-cols-[minmax(0,1fr)_22rem]">
        <section aria-label="Run list" className="min-w-0 space-y-2">
          <div className="flex flex-wrap items-end gap-3">
            <ListFilter
              id="runs-status"
              label="Status"
              width="w-40"
              value={status}
              options={RUN_STATUS_ORDER.map((x) => ({ value: x, label: RUN_STATUS_LABEL[x] }))}
              onChange={(v) => go({ status: v, page: undefined })}
            />
            <ListFilter
              id="runs-tag"
              label="Tag"
              value={tag}
              options={RUN_TAGS.map((t) => ({ value: t, label: t }))}
              onChange={(v) => go({ tag: v, page: undefined })}
            />
            <p className="pb-1.5 text-xs text-zinc-500" role="status">
              {runs.data
                ? `${total} run${total === 1 ? "" : "s"}${picked.length ? ` · ${picked.length} of 2 selected to compare` : ""}`
                : ""}
            </p>
          </div>
          {runs.isPending ? (
            <SkeletonBlock label="Loading runs" lines={6} />
          ) : runs.isError ? (
            <ErrorPanel
              error={runs.error}
              context={{ what: "Run list" }}
              onRetry={() => void runs.refetch()}
            />
          ) : runs.data.items.length === 0 ? (
            <p className="rounded-lg border border-zinc-200 p-6 text-center text-zinc-500 dark:border-zinc-800">
              {status || tag
                ? `No ${status ? `${RUN_STATUS_LABEL[status].toLowerCase()} ` : ""}runs${tag ? ` tagged ${tag}` : ""}.`
                : "No runs yet. Open an environment and press “Start a run”, or use ors-playground run."}
            </p>
          ) : (
            <RunsTable items={runs.data.items} picked={picked} toggle={toggle} />
          )}
          {total > PAGE && (
            <nav aria-label="Pages" className="flex items-center gap-2 text-xs">
              <Button size="xs" disabled={page === 0} onClick={() => go({ page: String(page - 1) })}>
                Newer
              </Button>
              <span>
                {page * PAGE + 1}–{Math.min(total, (page + 1) * PAGE)} of {total}
              </span>
              <Button
                size="xs"
                disabled={(page + 1) * PAGE >= total}
                onClick={() => go({ page: String(page + 1) })}
              >
                Older
              </Button>
            </nav>
          )}
        </section>
        <aside className="space-y-4">
          <ModelsPanel />
        </aside>
      </div>
    </PageContainer>
  );
}

function RunsTable({
  items,
  picked,
  toggle,
}: {
  items: RunListItem[];
  picked: string[];
  toggle: (id: string) => void;
}) {
  return (
    <div className="overflow-x-auto rounded-lg border border-zinc-200 dark:border-zinc-800">
      <table className="w-full text-left text-xs">
        <caption className="sr-only">Runs, newest first</caption>
        <thead className="border-b border-zinc-200 text-zinc-500 dark:border-zinc-800">
          <tr>
            <th scope="col" className="w-8 px-2 py-1.5">
              <span className="sr-only">Compare</span>
            </th>
            {COLUMNS.map((c) => (
              <th
                key={c}
                scope="col"
                className={cn("px-2 py-1.5 font-semibold", c === "Success" && "text-right")}
              >
                {c}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {items.map((r) => {
            const ended = r.completed + r.errored;
            return (
              <tr
                key={r.id}
                className={cn(
                  "border-b border-zinc-100 last:border-0 hover:bg-zinc-50 dark:border-zinc-900 dark:hover:bg-zinc-900",
                  picked.includes(r.id) && "bg-indigo-50 dark:bg-indigo-950",
                )}
              >
                <td className="px-2 py-1.5">
                  <input
                    type="checkbox"
                    aria-label={`Select run ${r.id} to compare`}
                    checked={picked.includes(r.id)}
                    onChange={() => toggle(r.id)}
                  />
                </td>
                <td className="px-2 py-1.5">
                  <Link
                    href={runHref(r.id)}
                    aria-label={`Run ${r.id}`}
                    className="font-mono font-medium text-indigo-700 hover:underline dark:text-indigo-300"
                  >
                    {r.id.slice(0, 8)}
                  </Link>
                  <RunTags tags={r.tags} />
                </td>
                <td className="px-2 py-1.5">
                  <RunStatusBadge status={r.status} />
                </td>
                <td className="px-2 py-1.5 font-mono">
                  {r.server} / {r.env} / {r.split}
                </td>
                <td className="max-w-[14rem] truncate px-2 py-1.5" title={r.policyLabel}>
                  {r.policyLabel}
                </td>
                <td className="px-2 py-1.5">
                  <div className="flex items-center gap-2">
                    <ProgressBar
                      value={progressFraction({ total: r.episodes, done: r.completed, errored: r.errored })}
                      label={`Progress of run ${r.id}`}
                      className="w-20"
                    />
                    <span className="tabular-nums">
                      {ended}/{r.episodes}
                      {r.errored > 0 && (
                        <span className="text-red-600 dark:text-red-400"> ({r.errored} errored)</span>
                      )}
                    </span>
                  </div>
                </td>
                <td className="px-2 py-1.5 text-right font-mono tabular-nums">
                  {formatPercent(r.successRate)}
                </td>
                <td className="px-2 py-1.5 text-zinc-500">{formatWhen(r.startedAt ?? r.createdAt)}</td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}
