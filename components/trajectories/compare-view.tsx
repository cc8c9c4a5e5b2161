"use client";
// Two trajectories side by side (/trajectories/compare?a=&b=), aligned by step, differences
// highlighted: the fields that differ are named per step and text observations are word-diffed.
import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { Fragment, useMemo } from "react";
import { BlocksView } from "@/components/episode/blocks-view";
import { RewardValue } from "@/components/episode/reward-value";
import { PageContainer, PageHeader } from "@/components/layout/page-header";
import { Badge } from "@/components/ui/badge";
import { ErrorPanel } from "@/components/ui/error-panel";
import { SkeletonBlock } from "@/components/ui/skeleton";
import { trajectoriesHref, trajectoryHref } from "@/lib/routes";
import { diffText, diffTrajectories, type StepDiff, stableStringify } from "@/lib/trajectory/diff";
import { taskLabel } from "@/lib/trajectory/model";
import type { Trajectory, TrajectoryStep } from "@/lib/trajectory/schema";
import { cn } from "@/lib/ui/cn";
import { trajectoryQuery } from "@/lib/ui/trajectory-queries";
import { END_REASON_LABEL, endReasonTone, fmtMs } from "./format";

export function CompareView({ a, b }: { a: string; b: string }) {
  const qa = useQuery({ ...trajectoryQuery(a), enabled: !!a });
  const qb = useQuery({ ...trajectoryQuery(b), enabled: !!b });
  const crumbs = [{ href: trajectoriesHref(), label: "Trajectories" }, { label: "Compare" }];
  if (!a || !b) {
    return (
      <PageContainer>
        <PageHeader
          crumbs={crumbs}
          title="Compare"
          description="Pick two trajectories in the list (checkboxes), then Compare selected."
        />
      </PageContainer>
    );
  }
  if (qa.isPending || qb.isPending) {
    return (
      <PageContainer>
        <PageHeader crumbs={crumbs} title="Compare" />
        <SkeletonBlock lines={6} />
      </PageContainer>
    );
  }
  if (qa.error || qb.error || !qa.data || !qb.data) {
    return (
      <PageContainer>
        <PageHeader crumbs={crumbs} title="Compare" />
        <ErrorPanel error={qa.error ?? qb.error} context={{ what: "trajectory" }} />
      </PageContainer>
    );
  }
  return <Loaded a={qa.data} b={qb.data} />;
}

function Loaded({ a, b }: { a: Trajectory; b: Trajectory }) {
  const diff = useMemo(() => diffTrajectories(a, b), [a, b]);
  const isReplay = b.origin?.kind === "replay" && b.origin.from === a.id;
  return (
    <PageContainer className="max-w-none">
      <PageHeader
        crumbs={[{ href: trajectoriesHref(), label: "Trajectories" }, { label: "Compare" }]}
        title={isReplay ? "Replay diff" : "Compare trajectories"}
        description={
          <span role="status" aria-label="Diff summary">
            {diff.differing === 0
              ? "Identical step by step."
              : `${diff.differing} of ${diff.steps.length} steps differ; first difference at step ${diff.firstDifference}.`}
            {diff.header.length > 0 && ` Also differs: ${diff.header.join(", ")}.`}
          </span>
        }
      />
      <div className="grid grid-cols-[3rem_1fr_1fr] gap-x-3 gap-y-2 text-xs">
        <div />
        <Side t={a} label={isReplay ? "Original" : "A"} />
        <Side t={b} label={isReplay ? "Replay (current environment)" : "B"} />
        <div className="text-right font-semibold text-zinc-500">prompt</div>
        <Cell changed={diff.header.includes("prompt")}>
          <BlocksView blocks={a.prompt ?? []} emptyText="No prompt recorded." />
        </Cell>
        <Cell changed={diff.header.includes("prompt")}>
          <BlocksView blocks={b.prompt ?? []} emptyText="No prompt recorded." />
        </Cell>
        {diff.steps.map((d) => (
          <Row key={d.index} d={d} />
        ))}
      </div>
    </PageContainer>
  );
}

function Side({ t, label }: { t: Trajectory; label: string }) {
  return (
    <div className="rounded-md border border-zinc-200 p-2 dark:border-zinc-800">
      <p className="font-semibold">
        {label}:{" "}
        <Link className="text-indigo-700 underline dark:text-indigo-300" href={trajectoryHref(t.id)}>
          {t.id}
        </Link>
      </p>
      <p className="text-zinc-500">
        {t.server} · {t.env ?? "unknown"} · {taskLabel(t.task)} · {t.steps.length} steps · total{" "}
        <RewardValue value={t.total_reward} className="font-mono" />{" "}
        <Badge tone={endReasonTone(t.end_reason)}>{END_REASON_LABEL[t.end_reason ?? "running"]}</Badge>
      </p>
    </div>
  );
}

function Cell({ changed, children }: { changed: boolean; children: React.ReactNode }) {
  return (
    <div
      className={cn(
        "min-w-0 rounded-md border p-2",
        changed
          ? "border-amber-400 bg-amber-50/60 dark:border-amber-700 dark:bg-amber-950/30"
          : "border-zinc-200 dark:border-zinc-800",
      )}
    >
      {children}
    </div>
  );
}

function Row({ d }: { d: StepDiff }) {
  const changed = d.fields.length > 0;
  return (
    <Fragment>
      <div className="pt-2 text-right font-mono font-semibold">
        <span className="sr-only">Step </span>
        {d.index}
        {changed && (
          <span className="block text-amber-600" title={`step ${d.index} differs`}>
            ≠<span className="sr-only"> differs</span>
          </span>
        )}
      </div>
      <StepCell step={d.a} other={d.b} fields={d.fields} side="a" index={d.index} />
      <StepCell step={d.b} other={d.a} fields={d.fields} side="b" index={d.index} />
    </Fragment>
  );
}

function StepCell({
  step,
  other,
  fields,
  side,
  index,
}: {
  step: TrajectoryStep | null;
  other: TrajectoryStep | null;
  fields: string[];
  side: "a" | "b";
  index: number;
}) {
  const mark = (f: string) =>
    fields.includes(f) && other ? "rounded bg-amber-200/70 px-0.5 dark:bg-amber-800/60" : "";
  if (!step) {
    return (
      <Cell changed>
        <p className="italic text-zinc-500">no step {index}</p>
      </Cell>
    );
  }
  const textOnly =
    step.blocks.every((b) => b.type === "text") && other?.blocks.every((b) => b.type === "text");
  return (
    <Cell changed={fields.length > 0}>
      <section aria-label={`Step ${index} ${side === "a" ? "left" : "right"}`} className="space-y-1">
        <p>
          <span className={cn("font-mono font-semibold", mark("tool"))}>{step.tool}</span>{" "}
          <span className={cn("break-all font-mono text-zinc-600 dark:text-zinc-400", mark("input"))}>
            {stableStringify(step.input)}
          </span>
        </p>
        <p className="flex flex-wrap gap-3">
          <span className={mark("reward")}>
            reward <RewardValue value={step.reward} signed />
          </span>
          <span className={mark("finished")}>finished {step.finished ? "yes" : "no"}</span>
          <span className={mark("ok")}>{step.ok ? "ok" : step.ok == null ? "running" : "error"}</span>
          <span className="text-zinc-500">{fmtMs(step.latency_ms)}</span>
        </p>
        {fields.length > 0 && other && (
          <p className="text-amber-700 dark:text-amber-400">differs: {fields.join(", ")}</p>
        )}
        {step.error && (
          <p className={cn("font-mono text-red-700 dark:text-red-300", mark("error"))}>{step.error}</p>
        )}
        {fields.includes("observation") && other && textOnly ? (
          <TextDiff
            a={(side === "a" ? step : other).blocks
              .map((b) => (b.type === "text" ? b.text : ""))
              .join("\n\n")}
            b={(side === "a" ? other : step).blocks
              .map((b) => (b.type === "text" ? b.text : ""))
              .join("\n\n")}
            side={side}
          />
        ) : (
          <BlocksView blocks={step.blocks} />
        )}
      </section>
    </Cell>
  );
}

function TextDiff({ a, b, side }: { a: string; b: string; side: "a" | "b" }) {
  const ops = useMemo(() => diffText(a, b), [a, b]);
  return (
    <p className="whitespace-pre-wrap break-words">
      {ops.map((o, i) =>
        o.op === "same" ? (
          <span key={i}>{o.text}</span>
        ) : o.op === (side === "a" ? "del" : "add") ? (
          <mark
            key={i}
            className={
              side === "a"
                ? "bg-red-200 dark:bg-red-900/70 dark:text-red-100"
                : "bg-emerald-200 dark:bg-emerald-900/70 dark:text-emerald-100"
            }
          >
            {o.text}
          </mark>
        ) : null,
      )}
    </p>
  );
}
