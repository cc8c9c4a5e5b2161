"use client";
// A conformance check's progress: how many checks are done (a bar), what is running or how it
// ended, what it was checked on, and the quality checks' episodes while they play.
import { Badge } from "@/components/ui/badge";
import { formatMs, summaryLine, verdictOf } from "@/lib/conformance/labels";
import { cn } from "@/lib/ui/cn";
import type { CheckRunState } from "./use-conformance-check";

/** `clean` → `Clean.` */
function sentence(text: string): string {
  return `${text.charAt(0).toUpperCase()}${text.slice(1)}.`;
}

export function CheckProgress({ state }: { state: CheckRunState }) {
  const total = state.checks.length;
  const done = state.results.length;
  const report = state.report;
  return (
    <>
      {state.status !== "idle" && (
        <div className="space-y-2">
          <div
            role="progressbar"
            aria-label="Checks done"
            aria-valuemin={0}
            aria-valuemax={total || 1}
            aria-valuenow={done}
            aria-valuetext={total ? `${done} of ${total} checks` : "starting"}
            className="h-1.5 overflow-hidden rounded-full bg-zinc-200 dark:bg-zinc-800"
          >
            <div
              className={cn(
                "h-full rounded-full transition-[width]",
                state.status === "failed" ? "bg-red-500" : "bg-indigo-500",
              )}
              style={{ width: `${total ? Math.round((done / total) * 100) : 0}%` }}
            />
          </div>
          <p role="status" className="text-sm text-zinc-700 dark:text-zinc-300">
            {state.status === "running" &&
              (state.quality
                ? `Checking the environment's quality: ${state.quality.phase}${state.quality.total ? ` (${state.quality.done} of ${state.quality.total} episodes)` : ""}…`
                : total
                  ? `Running: ${done} of ${total} checks done…`
                  : "Starting…")}
            {state.status === "stopped" && `Stopped after ${done} of ${total} checks.`}
            {state.status === "failed" && (
              <span className="text-red-700 dark:text-red-400">The check could not run: {state.error}</span>
            )}
            {state.status === "done" && report && (
              <>
                <span className="font-medium">{sentence(verdictOf(report).text)}</span>{" "}
                {summaryLine(report.summary.counts)} ({report.summary.total} checks in{" "}
                {formatMs(report.durationMs)}).
              </>
            )}
          </p>
          {report?.target.environment && (
            <p className="flex flex-wrap gap-1.5 text-xs text-zinc-500 dark:text-zinc-400">
              Checked on <Badge className="font-mono">{report.target.environment}</Badge>
              {report.target.task && (
                <Badge className="font-mono">
                  {report.target.task.split}:{report.target.task.index}
                </Badge>
              )}
              {report.target.tool && (
                <Badge className="font-mono">
                  {report.target.tool.name} {JSON.stringify(report.target.tool.input)}
                </Badge>
              )}
            </p>
          )}
        </div>
      )}

      {state.status === "running" && state.quality && state.quality.total > 0 && (
        <div
          role="progressbar"
          aria-label="Quality episodes played"
          aria-valuemin={0}
          aria-valuemax={state.quality.total}
          aria-valuenow={state.quality.done}
          aria-valuetext={`${state.quality.phase}: ${state.quality.done} of ${state.quality.total} episodes`}
          className="h-1.5 overflow-hidden rounded-full bg-zinc-200 dark:bg-zinc-800"
        >
          <div
            className="h-full rounded-full bg-emerald-500 transition-[width]"
            style={{ width: `${Math.round((state.quality.done / state.quality.total) * 100)}%` }}
          />
        </div>
      )}
    </>
  );
}
