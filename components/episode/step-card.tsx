"use client";
// One step of the episode: the tool and its input, the live stream, then the output blocks,
// reward, finished flag, metadata and latency (or why the call failed).
import { Link2 } from "lucide-react";
import { memo } from "react";
import { Badge, type BadgeTone } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { JsonView } from "@/components/ui/json-view";
import { cn } from "@/lib/ui/cn";
import { type Step, type StepStatus, stepReward } from "@/lib/ui/episode-store";
import { BlocksView } from "./blocks-view";
import { formatSeconds, StreamLog } from "./stream-log";

const STATUS: Record<StepStatus, { label: string; tone: BadgeTone }> = {
  running: { label: "running", tone: "indigo" },
  done: { label: "ok", tone: "green" },
  error: { label: "error", tone: "red" },
  abandoned: { label: "abandoned", tone: "amber" },
  interrupted: { label: "interrupted", tone: "amber" },
};

export function formatReward(r: number | null | undefined): string {
  if (r === null || r === undefined) return "—";
  const s = Number.isInteger(r) ? String(r) : r.toFixed(3).replace(/0+$/, "");
  return r > 0 ? `+${s}` : s;
}

function Metadata({ value }: { value: Record<string, unknown> }) {
  const text = JSON.stringify(value);
  if (text.length > 160) return <JsonView value={value} label="Metadata" expandDepth={1} maxHeight="16rem" />;
  return (
    <div className="flex items-baseline gap-2 text-xs">
      <span className="shrink-0 font-medium text-zinc-500 dark:text-zinc-400">metadata</span>
      <code className="break-all font-mono text-zinc-700 dark:text-zinc-300">{text}</code>
    </div>
  );
}

export const StepCard = memo(function StepCard({
  step,
  number,
  cumulative,
  highlighted,
  onLink,
  onAbandon,
}: {
  step: Step;
  number: number;
  cumulative: number;
  highlighted: boolean;
  onLink: (n: number) => void;
  onAbandon?: () => void;
}) {
  const status = STATUS[step.status];
  const output = step.result?.ok ? step.result.output : null;
  const reward = stepReward(step);
  const inputText = JSON.stringify(step.input);
  return (
    <article
      id={`step-${number}`}
      aria-label={`Step ${number}: ${step.tool}`}
      className={cn(
        "scroll-mt-20 rounded-lg border bg-white transition-shadow dark:bg-zinc-900/40",
        highlighted
          ? "border-indigo-400 ring-2 ring-indigo-300 dark:border-indigo-500 dark:ring-indigo-800"
          : "border-zinc-200 dark:border-zinc-800",
      )}
    >
      <header className="flex flex-wrap items-center gap-2 border-b border-zinc-200 px-3 py-2 dark:border-zinc-800">
        <span className="text-xs font-medium tabular-nums text-zinc-500 dark:text-zinc-400">
          Step {number}
        </span>
        <h3 className="font-mono text-sm font-semibold text-zinc-900 dark:text-zinc-100">{step.tool}</h3>
        <Badge tone={status.tone}>{status.label}</Badge>
        {step.resumed && <Badge tone="sky">picked up after reload</Badge>}
        {output?.finished && <Badge tone="indigo">finished</Badge>}
        <span className="ml-auto flex items-center gap-3 text-xs tabular-nums text-zinc-500 dark:text-zinc-400">
          {output && (
            <span>
              reward{" "}
              <span
                className={cn(
                  "font-mono font-semibold",
                  reward === null
                    ? ""
                    : reward > 0
                      ? "text-emerald-700 dark:text-emerald-400"
                      : reward < 0
                        ? "text-red-700 dark:text-red-400"
                        : "text-zinc-700 dark:text-zinc-300",
                )}
              >
                {formatReward(reward)}
              </span>
              <span className="ml-1">(Σ {formatReward(cumulative).replace(/^\+/, "")})</span>
            </span>
          )}
          {step.latencyMs !== undefined && <span>{formatSeconds(step.latencyMs)}</span>}
          {step.status === "running" && onAbandon && (
            <Button size="xs" variant="danger" onClick={onAbandon}>
              Abandon call
            </Button>
          )}
          <Button
            size="xs"
            variant="ghost"
            aria-label={`Link to step ${number}`}
            title="Link to this step"
            onClick={() => onLink(number)}
          >
            <Link2 aria-hidden="true" />
          </Button>
        </span>
      </header>
      <div className="flex flex-col gap-3 p-3">
        <div className="flex items-baseline gap-2 text-xs">
          <span className="shrink-0 font-medium text-zinc-500 dark:text-zinc-400">input</span>
          {inputText.length <= 160 ? (
            <code className="break-all font-mono text-zinc-800 dark:text-zinc-200">{inputText}</code>
          ) : (
            <JsonView value={step.input} label="Input" expandDepth={1} maxHeight="16rem" className="w-full" />
          )}
        </div>
        {step.events.length > 0 || step.status === "running" ? (
          step.status === "running" ? (
            <StreamLog step={step} />
          ) : (
            <details className="group">
              <summary className="cursor-pointer select-none text-xs font-medium text-zinc-500 hover:text-zinc-800 dark:text-zinc-400 dark:hover:text-zinc-200">
                SSE stream · {step.events.length} events · {step.received.toLocaleString()} chars
                {step.events.some((e) => e.type === "reconnect") ? " · reconnected" : ""}
                {step.taskId ? ` · task_id ${step.taskId}` : ""}
              </summary>
              <div className="mt-2">
                <StreamLog step={step} />
              </div>
            </details>
          )
        ) : null}
        {step.error && (
          <p
            role={step.status === "error" ? "alert" : undefined}
            className={cn(
              "rounded-md border px-3 py-2 text-sm",
              step.status === "error"
                ? "border-red-300 bg-red-50 text-red-800 dark:border-red-900 dark:bg-red-950 dark:text-red-200"
                : "border-amber-300 bg-amber-50 text-amber-900 dark:border-amber-800 dark:bg-amber-950 dark:text-amber-200",
            )}
          >
            {step.result && !step.result.ok ? "Tool error: " : ""}
            {step.error}
          </p>
        )}
        {output && (
          <section aria-label={`Output of step ${number}`} className="flex flex-col gap-2">
            <BlocksView blocks={output.blocks} emptyText="The tool returned no blocks." />
            {output.metadata && Object.keys(output.metadata).length > 0 && (
              <Metadata value={output.metadata} />
            )}
          </section>
        )}
      </div>
    </article>
  );
});
