"use client";
// A run's page (/runs/<id>): live progress while it plays (from its events: done, running,
// errored, total, rate, time left), cancel, resume when stopped with episodes left, then its
// results — summary, reward histogram, per-task table, errors — and its exports (chat JSONL,
// ATIF). The figures come from the API's aggregates; the table is virtualized.
import { Download, GitCompare, ListTree, RotateCcw, Square, Trash2 } from "lucide-react";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { useState } from "react";
import { PageContainer, PageHeader } from "@/components/layout/page-header";
import { Button, buttonClasses } from "@/components/ui/button";
import { SectionCard } from "@/components/ui/card";
import { ErrorPanel } from "@/components/ui/error-panel";
import { Form } from "@/components/ui/form";
import { inputClasses, Label } from "@/components/ui/input";
import { SkeletonBlock } from "@/components/ui/skeleton";
import { compareRunsHref, envHref, runsHref, trajectoriesHref } from "@/lib/routes";
import type { RunProgress } from "@/lib/runs/events";
import { cn } from "@/lib/ui/cn";
import {
  formatCount,
  formatDuration,
  formatEta,
  formatRate,
  formatWhen,
  progressFraction,
} from "@/lib/ui/run-format";
import {
  isRunActive,
  type RunSummaryResponse,
  runExportUrl,
  useDeleteRun,
  useRun,
  useRunAction,
  useRuns,
} from "@/lib/ui/run-queries";
import { useRunProgress } from "@/lib/ui/use-run-progress";
import { ProgressBar } from "./progress-bar";
import { RewardHistogram } from "./reward-histogram";
import { RunOutcomes, RunPlacement } from "./run-outcomes";
import { RunStatusBadge } from "./run-status-badge";
import { RunErrors, RunSummaryCard } from "./run-summary";
import { TaskTable } from "./task-table";

export function RunView({ id, task }: { id: string; task: number | null }) {
  const run = useRun(id);
  if (run.isPending)
    return (
      <PageContainer>
        <SkeletonBlock label="Loading the run" lines={8} />
      </PageContainer>
    );
  if (run.isError)
    return (
      <PageContainer>
        <PageHeader crumbs={[{ href: runsHref(), label: "Runs" }, { label: id }]} title="Run" />
        <ErrorPanel error={run.error} context={{ what: `Run ${id}` }} onRetry={() => void run.refetch()} />
      </PageContainer>
    );
  return <Loaded s={run.data} task={task} />;
}

function Loaded({ s, task }: { s: RunSummaryResponse; task: number | null }) {
  const live = useRunProgress(s.id, isRunActive(s.status), s.episodes);
  // The stream's figures while it plays; the summary's once it stopped.
  const p: RunProgress = live.progress ?? {
    status: s.status,
    total: s.episodes,
    done: s.completed,
    errored: s.errored,
    running: s.running,
    pending: s.pending,
    cancelled: s.cancelled,
    interrupted: s.interrupted,
    rate: s.rate,
    etaMs: s.etaMs,
  };
  const status = p.status;
  const envPage = envHref(s.server, s.env);
  return (
    <PageContainer>
      <PageHeader
        crumbs={[{ href: runsHref(), label: "Runs" }, { label: s.id }]}
        title={
          <span className="flex items-center gap-2">
            Run <span className="font-mono text-base font-normal text-zinc-500">{s.id.slice(0, 8)}</span>
            <RunStatusBadge status={status} />
          </span>
        }
        description={
          <>
            <Link href={envPage} className="font-mono hover:underline">
              {s.server} / {s.env}
            </Link>{" "}
            · split <span className="font-mono">{s.split}</span> · {s.policyLabel} · started{" "}
            {formatWhen(s.startedAt ?? s.createdAt)}
            {s.endedAt && s.startedAt && ` · ran ${formatDuration(s.endedAt - s.startedAt)}`}
          </>
        }
        actions={<RunActions s={s} status={status} />}
      />
      {s.error && (
        <p
          role="status"
          className="mb-3 rounded-md bg-amber-50 p-2 text-xs text-amber-900 dark:bg-amber-950 dark:text-amber-200"
        >
          {status === "failed" ? "The run failed" : "Why it stopped"}: {s.error}
        </p>
      )}
      <div className="space-y-4">
        <ProgressCard p={p} connected={live.connected} />
        <div className="grid gap-4 lg:grid-cols-[minmax(0,1fr)_22rem]">
          <RunSummaryCard s={s} />
          <RunOutcomes s={s} />
          <RunPlacement placement={s.placement} status={s.status} />
          <SectionCard
            title="Rewards"
            aside={<span className="text-xs text-zinc-500">completed episodes</span>}
          >
            <RewardHistogram bins={s.histogram} />
          </SectionCard>
        </div>
        <TaskTable tasks={s.tasks} repeats={s.repeats} successAt={s.successAt} highlight={task} />
        <RunErrors errors={s.errors} errored={s.errored} />
      </div>
    </PageContainer>
  );
}

function ProgressCard({ p, connected }: { p: RunProgress; connected: boolean }) {
  const active = isRunActive(p.status);
  const left = p.pending + p.cancelled + p.interrupted;
  const items: [string, string, string?][] = [
    ["Done", formatCount(p.done)],
    ["Running", formatCount(p.running)],
    ["Errored", formatCount(p.errored), p.errored ? "text-red-700 dark:text-red-400" : undefined],
    ["To play", formatCount(left)],
    ["Total", formatCount(p.total)],
    ["Rate", active ? `${formatRate(p.rate)}` : "—"],
    ["Time left", active ? formatEta(p.etaMs) : "—"],
  ];
  return (
    <SectionCard
      title="Progress"
      titleId="progress-heading"
      bodyClassName="space-y-2"
      aside={
        <span className="text-xs text-zinc-500" aria-live="polite">
          {active ? (connected ? "live" : "connecting…") : "stopped"}
        </span>
      }
    >
      <ProgressBar
        value={progressFraction(p)}
        label="Episodes ended"
        tone={
          p.status === "done"
            ? "green"
            : p.status === "interrupted" || p.status === "cancelled"
              ? "amber"
              : "indigo"
        }
      />
      <dl aria-labelledby="progress-heading" className="grid grid-cols-4 gap-2 text-xs sm:grid-cols-7">
        {items.map(([term, value, tone]) => (
          <ProgressItem key={term} term={term} value={value} tone={tone} />
        ))}
      </dl>
    </SectionCard>
  );
}

function ProgressItem({ term, value, tone }: { term: string; value: string; tone?: string }) {
  const id = `progress-${term.toLowerCase().replace(/\s+/g, "-")}`;
  return (
    <div>
      <dt id={id} className="text-zinc-500">
        {term}
      </dt>
      <dd className={cn("font-mono text-sm tabular-nums", tone)}>{value}</dd>
    </div>
  );
}

function RunActions({ s, status }: { s: RunSummaryResponse; status: RunSummaryResponse["status"] }) {
  const router = useRouter();
  const cancel = useRunAction(s.id, "cancel");
  const resume = useRunAction(s.id, "resume");
  const del = useDeleteRun();
  const others = useRuns({ env: s.env, limit: 100 });
  const [other, setOther] = useState("");
  const active = isRunActive(status);
  const resumable =
    (status === "cancelled" || status === "interrupted" || status === "failed") &&
    s.pending + s.cancelled + s.interrupted > 0;
  const error = cancel.error ?? resume.error ?? del.error;
  const choices = (others.data?.items ?? []).filter((r) => r.id !== s.id);
  return (
    <div className="flex max-w-3xl flex-col items-end gap-2">
      <div className="flex flex-wrap items-center justify-end gap-2">
        {active && (
          <Button size="sm" variant="danger" disabled={cancel.isPending} onClick={() => cancel.mutate()}>
            <Square aria-hidden="true" /> {cancel.isPending ? "Cancelling…" : "Cancel run"}
          </Button>
        )}
        {resumable && (
          <Button size="sm" variant="primary" disabled={resume.isPending} onClick={() => resume.mutate()}>
            <RotateCcw aria-hidden="true" /> {resume.isPending ? "Resuming…" : "Resume"}
          </Button>
        )}
        <Link className={buttonClasses("secondary", "sm")} href={trajectoriesHref({ run: s.id })}>
          <ListTree aria-hidden="true" /> Its trajectories
        </Link>
        <a className={buttonClasses("secondary", "sm")} href={runExportUrl(s.id, "chat-jsonl")} download>
          <Download aria-hidden="true" /> Export chat JSONL
        </a>
        <a className={buttonClasses("secondary", "sm")} href={runExportUrl(s.id, "atif")} download>
          <Download aria-hidden="true" /> Export ATIF
        </a>
        {!active && (
          <Button
            size="sm"
            variant="ghost"
            disabled={del.isPending}
            onClick={() => {
              if (window.confirm(`Delete run ${s.id} and its ${s.episodes} episodes' trajectories?`))
                del.mutate(s.id, { onSuccess: () => router.push(runsHref()) });
            }}
          >
            <Trash2 aria-hidden="true" /> Delete
          </Button>
        )}
      </div>
      <Form
        className="flex items-center gap-1.5"
        onSubmit={() => {
          if (other) router.push(compareRunsHref(s.id, other));
        }}
      >
        <Label htmlFor="compare-run">Compare with</Label>
        <select
          id="compare-run"
          className={cn(inputClasses, "h-7 w-64 text-xs")}
          value={other}
          onChange={(e) => setOther(e.target.value)}
        >
          <option value="">{choices.length ? "a run of this environment…" : "no other run of it"}</option>
          {choices.map((r) => (
            <option key={r.id} value={r.id}>
              {r.id.slice(0, 8)} · {r.split} · {r.policyLabel}
            </option>
          ))}
        </select>
        <Button size="sm" type="submit" disabled={!other}>
          <GitCompare aria-hidden="true" /> Compare
        </Button>
      </Form>
      {error && (
        <ErrorPanel compact error={error} context={{ what: `Run ${s.id}` }} className="w-full max-w-md" />
      )}
    </div>
  );
}
