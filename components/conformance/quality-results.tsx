"use client";

// The environment quality checks' results on the check page: what was sampled and played (tasks,
// runs, calls per tool), then each check — finding, passed or not exercised — with the tasks and
// calls that show a finding and links to their recorded episodes (and to both episodes side by side
// when a replay differed).
import { CheckCircle2, GitCompare, MinusCircle, PlayCircle, XCircle } from "lucide-react";
import Link from "next/link";
import { Badge, type BadgeTone } from "@/components/ui/badge";
import {
  callsLine,
  PLAY_ROLE_TITLES,
  QUALITY_OUTCOME_TITLES,
  sampleLine,
} from "@/lib/conformance/quality/labels";
import type { QualityOutcome, QualityReport, QualityResult } from "@/lib/conformance/quality/types";
import { cn } from "@/lib/ui/cn";
import { ResultRow } from "./result-row";

const TONES: Record<QualityOutcome, BadgeTone> = {
  finding: "red",
  "not-exercised": "neutral",
  pass: "green",
};
const ICONS: Record<QualityOutcome, typeof XCircle> = {
  finding: XCircle,
  "not-exercised": MinusCircle,
  pass: CheckCircle2,
};
const LINK = "text-indigo-700 underline-offset-2 hover:underline dark:text-indigo-300";

function Evidence({ result }: { result: QualityResult }) {
  if (!result.evidence.length) return null;
  return (
    <ul aria-label={`Evidence of ${result.id}`} className="mt-1 space-y-1">
      {result.evidence.map((e, i) => (
        <li
          key={`${e.task}-${e.trajectory?.id ?? ""}-${e.trajectory?.step ?? ""}-${i}`}
          className="flex flex-wrap items-baseline gap-x-2 gap-y-0.5 text-xs text-zinc-700 dark:text-zinc-300"
        >
          <Badge className="font-mono">task {e.task}</Badge>
          {e.call && (
            <code className="font-mono text-zinc-600 dark:text-zinc-400">
              {e.call.tool} {JSON.stringify(e.call.input)}
            </code>
          )}
          <span className="break-words">{e.what}</span>
          {e.trajectory && (
            <Link className={cn(LINK, "inline-flex items-center gap-0.5")} href={e.trajectory.href}>
              <PlayCircle aria-hidden="true" className="size-3.5" />
              Open episode<span className="sr-only"> of task {e.task}</span>
            </Link>
          )}
          {e.compareHref && (
            <Link className={cn(LINK, "inline-flex items-center gap-0.5")} href={e.compareHref}>
              <GitCompare aria-hidden="true" className="size-3.5" />
              Compare with its replay<span className="sr-only"> (task {e.task})</span>
            </Link>
          )}
        </li>
      ))}
      {result.evidenceTotal > result.evidence.length && (
        <li className="text-xs text-zinc-500 dark:text-zinc-400">
          … and {result.evidenceTotal - result.evidence.length} more
        </li>
      )}
    </ul>
  );
}

function Result({ result }: { result: QualityResult }) {
  return (
    <ResultRow
      result={result}
      icon={ICONS[result.outcome]}
      tone={TONES[result.outcome]}
      label={
        <Badge tone={result.waived ? "neutral" : TONES[result.outcome]}>
          {QUALITY_OUTCOME_TITLES[result.outcome]}
          {result.waived && result.outcome === "finding" ? " (waived)" : ""}
        </Badge>
      }
    >
      <p className="break-words text-xs text-zinc-700 dark:text-zinc-300">{result.observed}</p>
      <Evidence result={result} />
    </ResultRow>
  );
}

/** The quality part of a check's report. */
export function QualityResults({ quality }: { quality: QualityReport }) {
  const s = quality.sample;
  const findings = quality.results.filter((r) => r.outcome === "finding").length;
  return (
    <section
      aria-labelledby="quality-heading"
      className="rounded-lg border border-zinc-200 bg-white dark:border-zinc-800 dark:bg-zinc-900/40"
    >
      <div className="space-y-1 px-3 pt-2 pb-2">
        <h2
          id="quality-heading"
          className="inline-flex items-center gap-2 text-sm font-semibold text-zinc-900 dark:text-zinc-100"
        >
          Environment quality{s ? ` of ${sampleLine(s)}` : ""}
          <Badge tone={findings ? "red" : "green"}>
            {findings} finding{findings === 1 ? "" : "s"}
          </Badge>
        </h2>
        {quality.error && (
          <p role="alert" className="text-xs text-red-700 dark:text-red-400">
            {quality.error}
          </p>
        )}
        {s && (
          <dl
            aria-label="What was sampled"
            className="grid gap-x-3 gap-y-0.5 text-xs sm:grid-cols-[auto_1fr]"
          >
            <dt className="text-zinc-500 dark:text-zinc-400">Tasks</dt>
            <dd className="font-mono text-zinc-700 dark:text-zinc-300">{s.tasks.join(", ")}</dd>
            <dt className="text-zinc-500 dark:text-zinc-400">Played</dt>
            <dd className="text-zinc-700 dark:text-zinc-300">
              {s.plays.map((p, i) => (
                <span key={p.runId}>
                  {i > 0 && "; "}
                  {PLAY_ROLE_TITLES[p.role]}
                  {p.role === "oracle" ? ` (${p.label})` : ""}: {p.episodes} episodes
                  {p.errored ? ` (${p.errored} errored)` : ""}, run{" "}
                  <code className="font-mono">{p.runId}</code>
                </span>
              ))}
            </dd>
            <dt className="text-zinc-500 dark:text-zinc-400">Calls</dt>
            <dd className="text-zinc-700 dark:text-zinc-300">
              {callsLine(s)}; best episode reward {quality.bestReward ?? "none"}
            </dd>
          </dl>
        )}
      </div>
      <ul
        aria-label="Quality checks"
        className="divide-y divide-zinc-200 border-t border-zinc-200 dark:divide-zinc-800 dark:border-zinc-800"
      >
        {quality.results.map((r) => (
          <Result key={r.id} result={r} />
        ))}
      </ul>
    </section>
  );
}
