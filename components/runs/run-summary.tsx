"use client";
// A run's results at a glance (docs/runs.md "Results"): success rate, mean reward with its 95%
// interval, pass@k for k = 1..repeats, tokens per episode (model policies), turns and duration
// percentiles; and the errored episodes grouped by message. Every figure is a term and its value
// (`getByRole("definition", { name: "Success rate" })`).
import { type ReactNode, useId } from "react";
import { SectionCard } from "@/components/ui/card";
import type { Percentiles } from "@/lib/store/types";
import { formatReward } from "@/lib/trajectory/reward";
import { cn } from "@/lib/ui/cn";
import {
  formatCount,
  formatDuration,
  formatInterval,
  formatPercent,
  passAtKEntries,
} from "@/lib/ui/run-format";
import type { RunSummaryResponse } from "@/lib/ui/run-queries";

function Figure({
  term,
  children,
  sub,
  big,
  wide,
}: {
  term: string;
  children: ReactNode;
  sub?: ReactNode;
  big?: boolean;
  /** Two columns (four values). */
  wide?: boolean;
}) {
  const id = useId();
  return (
    <div className={cn("min-w-0", wide && "col-span-2")}>
      <dt id={id} className="text-[11px] font-medium uppercase tracking-wide text-zinc-500">
        {term}
      </dt>
      <dd className={cn("font-mono tabular-nums", big ? "text-xl font-semibold" : "text-sm font-medium")}>
        {children}
      </dd>
      {sub && <p className="text-[11px] text-zinc-500">{sub}</p>}
    </div>
  );
}

function percentiles(p: Percentiles | null, fmt: (n: number) => string): string {
  if (!p) return "—";
  return `${fmt(p.p50)} · ${fmt(p.p90)} · ${fmt(p.p99)} · ${fmt(p.max)}`;
}

export function RunSummaryCard({ s }: { s: RunSummaryResponse }) {
  const passAtK = passAtKEntries(s.passAtK);
  const model = s.policy.kind === "model";
  return (
    <SectionCard
      title="Summary"
      titleId="summary-heading"
      aside={
        <span className="text-xs text-zinc-500">
          success = finished with a reward ≥ {formatReward(s.successAt)}
        </span>
      }
    >
      <dl aria-labelledby="summary-heading" className="grid grid-cols-2 gap-x-6 gap-y-3 sm:grid-cols-4">
        <Figure
          term="Success rate"
          big
          sub={`${formatCount(Math.round((s.successRate ?? 0) * s.completed))} of ${formatCount(s.completed)} completed`}
        >
          {formatPercent(s.successRate)}
        </Figure>
        <Figure
          term="Mean reward"
          big
          sub={s.ci95 ? `95% CI ${formatInterval(s.ci95)}` : "95% CI: needs 2 episodes"}
        >
          {formatReward(s.meanReward, { digits: 3 })}
        </Figure>
        <Figure
          term="Episodes"
          sub={`${s.running} running · ${s.pending + s.cancelled + s.interrupted} to play`}
        >
          {formatCount(s.completed)} done
          {s.errored > 0 && (
            <span className="text-red-600 dark:text-red-400"> · {formatCount(s.errored)} errored</span>
          )}
          <span className="text-zinc-500"> / {formatCount(s.episodes)}</span>
        </Figure>
        <Figure term="Tasks" sub={`${s.repeats} attempt${s.repeats === 1 ? "" : "s"} each`}>
          {formatCount(s.tasks.length)}
        </Figure>
        <div className="col-span-2 min-w-0">
          <dt className="text-[11px] font-medium uppercase tracking-wide text-zinc-500">pass@k</dt>
          <dd>
            <ul
              aria-label="pass@k"
              className="flex flex-wrap gap-x-3 gap-y-0.5 font-mono text-sm tabular-nums"
            >
              {passAtK.slice(0, 12).map(([k, v]) => (
                <li key={k}>
                  <span className="text-zinc-500">pass@{k}</span> {formatPercent(v)}
                </li>
              ))}
              {passAtK.length > 12 && (
                <li className="text-zinc-500">
                  … pass@{passAtK.at(-1)![0]} {formatPercent(passAtK.at(-1)![1])}
                </li>
              )}
            </ul>
          </dd>
        </div>
        {model && (
          <Figure
            term="Tokens per episode"
            sub={s.tokens.episodes ? `${formatCount(s.tokens.total)} in all` : "none reported yet"}
          >
            {s.tokens.episodes
              ? `${formatCount(s.tokens.promptPerEpisode)} in · ${formatCount(s.tokens.completionPerEpisode)} out`
              : "—"}
          </Figure>
        )}
        <Figure term="Turns" sub="p50 · p90 · p99 · max" wide>
          {percentiles(s.turns, (n) => String(n))}
        </Figure>
        <Figure term="Duration" sub="p50 · p90 · p99 · max" wide>
          {percentiles(s.durationMs, formatDuration)}
        </Figure>
      </dl>
    </SectionCard>
  );
}

export function RunErrors({ errors, errored }: { errors: RunSummaryResponse["errors"]; errored: number }) {
  return (
    <SectionCard
      title="Errors"
      titleId="errors-heading"
      aside={
        <span className="text-xs text-zinc-500">
          {errored} errored episode{errored === 1 ? "" : "s"}, by message
        </span>
      }
    >
      {errors.length === 0 ? (
        <p className="text-xs text-zinc-500">
          No episode errored. (A tool error the environment returns is a recorded step, not an error here.)
        </p>
      ) : (
        <ul aria-labelledby="errors-heading" className="space-y-1.5">
          {errors.map((e) => (
            <li key={e.message} className="flex items-start gap-2 text-xs">
              <span className="shrink-0 rounded bg-red-100 px-1.5 font-mono tabular-nums text-red-800 dark:bg-red-950 dark:text-red-200">
                ×{e.count}
              </span>
              <span className="break-words font-mono">{e.message}</span>
            </li>
          ))}
        </ul>
      )}
    </SectionCard>
  );
}
