"use client";
// One step of the episode, as recorded: the tool and its input, the live stream, then the output
// blocks, reward, finished flag, metadata and latency (or why the call failed). What only this tab
// knows (it stopped watching the call, its client reconnected) is shown beside the record.
import { Link2 } from "lucide-react";
import { memo, useState } from "react";
import { Badge, type BadgeTone } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { JsonView } from "@/components/ui/json-view";
import type { TrajectoryStep } from "@/lib/trajectory/schema";
import { stepReward } from "@/lib/trajectory/step";
import { cn } from "@/lib/ui/cn";
import type { LocalCall } from "@/lib/ui/episode-store";
import { BlocksView, formatBytes } from "./blocks-view";
import { MetadataView } from "./metadata-view";
import { ModelStepNote } from "./model-step-note";
import { ReplayedMark } from "./protocol-log-mark";
import { RewardValue } from "./reward-value";
import { formatSeconds, StreamLog } from "./stream-log";

/** How a step stands, for this view: its record, whether its call is still passing, this tab's part. */
export type StepView = "running" | "unwatched" | "interrupted" | "done" | "error";

export function stepView(step: TrajectoryStep, live: boolean, local?: LocalCall): StepView {
  if (step.ok === true) return "done";
  if (step.ok === false) return "error";
  if (!live) return "interrupted";
  return local?.abandoned ? "unwatched" : "running";
}

const STATUS: Record<StepView, { label: string; tone: BadgeTone }> = {
  running: { label: "running", tone: "indigo" },
  unwatched: { label: "running, not watched", tone: "amber" },
  interrupted: { label: "interrupted", tone: "amber" },
  done: { label: "ok", tone: "green" },
  error: { label: "error", tone: "red" },
};

/** A step cut to the stored size cap: what was kept of it (the caller itself got the whole result). */
export function TruncatedNote({ truncated }: { truncated: NonNullable<TrajectoryStep["truncated"]> }) {
  const cut = [
    truncated.blocks_cut
      ? `${truncated.blocks_cut} block${truncated.blocks_cut === 1 ? "" : "s"} shortened`
      : "",
    truncated.blocks_dropped ? `${truncated.blocks_dropped} left out` : "",
    truncated.frames_dropped ? `${truncated.frames_dropped} stream frames left out` : "",
    truncated.metadata_dropped ? "metadata left out" : "",
    truncated.error_cut ? "error shortened" : "",
  ].filter(Boolean);
  return (
    <p
      role="note"
      className="rounded-md border border-amber-300 bg-amber-50 px-3 py-2 text-xs text-amber-900 dark:border-amber-800 dark:bg-amber-950 dark:text-amber-200"
    >
      Stored truncated: {formatBytes(truncated.original_bytes)} → {formatBytes(truncated.kept_bytes)} (the
      step-size cap)
      {cut.length ? `: ${cut.join(", ")}` : ""}. The client of the call received it whole.
    </p>
  );
}

/** The step's header: number, tool, status and marks, reward, latency, and its buttons. */
function StepHeader({
  step,
  view,
  cumulative,
  local,
  onLink,
  onAbandon,
}: Pick<StepCardProps, "step" | "cumulative" | "local" | "onLink" | "onAbandon"> & { view: StepView }) {
  const status = STATUS[view];
  return (
    <header className="flex flex-wrap items-center gap-2 border-b border-zinc-200 px-3 py-2 dark:border-zinc-800">
      <span className="text-xs font-medium tabular-nums text-zinc-500 dark:text-zinc-400">
        Step {step.index}
      </span>
      <h3 className="font-mono text-sm font-semibold text-zinc-900 dark:text-zinc-100">{step.tool}</h3>
      <Badge tone={status.tone}>{status.label}</Badge>
      {step.after_end && <Badge tone="amber">after the end</Badge>}
      <ReplayedMark step={step} />
      {step.events.some((e) => e.kind === "comment" && e.comment === "relay: resumed") && (
        <Badge tone="sky">picked up by task_id</Badge>
      )}
      {step.ok && step.finished && <Badge tone="indigo">finished</Badge>}
      <span className="ml-auto flex items-center gap-3 text-xs tabular-nums text-zinc-500 dark:text-zinc-400">
        {step.ok && (
          <span>
            reward <RewardValue value={stepReward(step)} signed tone className="font-mono font-semibold" />
            {!step.after_end && (
              <span className="ml-1">
                (Σ <RewardValue value={cumulative} />)
              </span>
            )}
          </span>
        )}
        {step.latency_ms !== null && <span>{formatSeconds(step.latency_ms)}</span>}
        {view === "running" && local?.watching && onAbandon && (
          <Button size="xs" variant="danger" onClick={onAbandon}>
            Stop watching
          </Button>
        )}
        <Button
          size="xs"
          variant="ghost"
          aria-label={`Link to step ${step.index}`}
          title="Link to this step"
          onClick={() => onLink(step.index)}
        >
          <Link2 aria-hidden="true" />
        </Button>
      </span>
    </header>
  );
}

/** The step's input, one line when it is short. */
function StepInput({ input }: { input: TrajectoryStep["input"] }) {
  const text = JSON.stringify(input);
  return (
    <div className="flex items-baseline gap-2 text-xs">
      <span className="shrink-0 font-medium text-zinc-500 dark:text-zinc-400">input</span>
      {text.length <= 160 ? (
        <code className="break-all font-mono text-zinc-800 dark:text-zinc-200">{text}</code>
      ) : (
        <JsonView value={input} label="Input" expandDepth={1} maxHeight="16rem" className="w-full" />
      )}
    </div>
  );
}

/**
 * The call's stream: live while it runs, else folded away and drawn only once opened (a huge result
 * passes as thousands of frames: the closed log would be rebuilt on every update of the step).
 */
function StepStream({ step, running, local }: { step: TrajectoryStep; running: boolean; local?: LocalCall }) {
  const [open, setOpen] = useState(false);
  if (running) return <StreamLog step={step} running notes={local?.notes} />;
  if (step.events.length === 0) return null;
  return (
    <details className="group" onToggle={(e) => setOpen(e.currentTarget.open)}>
      <summary className="cursor-pointer select-none text-xs font-medium text-zinc-500 hover:text-zinc-800 dark:text-zinc-400 dark:hover:text-zinc-200">
        SSE stream · {step.events.length} events
        {step.task_id ? ` · task_id ${step.task_id}` : ""}
      </summary>
      {open && (
        <div className="mt-2">
          <StreamLog step={step} running={false} notes={local?.notes} />
        </div>
      )}
    </details>
  );
}

/** What this tab knows about the call beside its record: it stopped watching, or lost the stream. */
function CallNotes({
  step,
  view,
  onPickUp,
}: {
  step: TrajectoryStep;
  view: StepView;
  onPickUp?: (step: TrajectoryStep) => void;
}) {
  if (view === "unwatched")
    return (
      <p className="rounded-md border border-amber-300 bg-amber-50 px-3 py-2 text-sm text-amber-900 dark:border-amber-800 dark:bg-amber-950 dark:text-amber-200">
        You stopped watching this call. The server may still finish it: its result will appear here.
      </p>
    );
  if (view !== "interrupted") return null;
  return (
    <div className="flex flex-wrap items-center gap-2 rounded-md border border-amber-300 bg-amber-50 px-3 py-2 text-sm text-amber-900 dark:border-amber-800 dark:bg-amber-950 dark:text-amber-200">
      <span>
        The playground lost this call's stream before its result (it restarted while the call ran).
        {step.task_id ? " The server may still hold the result for a while." : ""}
      </span>
      {step.task_id && onPickUp && (
        <Button size="xs" onClick={() => onPickUp(step)}>
          Pick up by task_id
        </Button>
      )}
    </div>
  );
}

interface StepCardProps {
  /** Names the step's blocks (their Markdown/Raw choice is remembered by it), e.g. the session id. */
  blocksId: string;
  step: TrajectoryStep;
  /** The step's call is passing through the relay now. */
  live: boolean;
  /** This tab's part in the call, if it made it. */
  local?: LocalCall;
  cumulative: number;
  highlighted: boolean;
  onLink: (n: number) => void;
  onAbandon?: () => void;
  onPickUp?: (step: TrajectoryStep) => void;
}

export const StepCard = memo(function StepCard(props: StepCardProps) {
  const { step, live, local, highlighted, onPickUp, blocksId } = props;
  const number = step.index;
  const view = stepView(step, live, local);
  return (
    <article
      id={`step-${number}`}
      aria-label={`Step ${number}: ${step.tool}`}
      className={cn(
        "scroll-mt-20 rounded-lg border bg-white transition-shadow dark:bg-zinc-900/40",
        highlighted
          ? "border-indigo-400 ring-2 ring-indigo-300 dark:border-indigo-500 dark:ring-indigo-800"
          : step.after_end
            ? "border-dashed border-zinc-300 dark:border-zinc-700"
            : "border-zinc-200 dark:border-zinc-800",
      )}
    >
      <StepHeader {...props} view={view} />
      <div className="flex flex-col gap-3 p-3">
        {step.after_end && (
          <p className="text-xs text-amber-800 dark:text-amber-300">
            Called after the episode had finished: kept in the record, not counted in its total reward.
          </p>
        )}
        {step.agent && <ModelStepNote agent={step.agent} />}
        <StepInput input={step.input} />
        <StepStream step={step} running={view === "running" || view === "unwatched"} local={local} />
        <CallNotes step={step} view={view} onPickUp={onPickUp} />
        {step.ok === false && step.error && (
          <p
            role="alert"
            className="rounded-md border border-red-300 bg-red-50 px-3 py-2 text-sm text-red-800 dark:border-red-900 dark:bg-red-950 dark:text-red-200"
          >
            {step.error}
          </p>
        )}
        {step.truncated && <TruncatedNote truncated={step.truncated} />}
        {step.ok && (
          <section aria-label={`Output of step ${number}`} className="flex flex-col gap-2">
            <BlocksView
              id={`${blocksId}:${number}`}
              blocks={step.blocks}
              emptyText="The tool returned no blocks."
            />
            <MetadataView value={step.metadata} />
          </section>
        )}
      </div>
    </article>
  );
});
