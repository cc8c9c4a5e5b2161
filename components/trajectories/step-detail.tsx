"use client";
import { useState } from "react";
// One step of a trajectory: the action, the observation blocks, reward, finished, metadata,
// latency, whether a replay found it different, and its raw SSE frames with timings.
import { BlocksView } from "@/components/episode/blocks-view";
import { MetadataView } from "@/components/episode/metadata-view";
import { ModelStepNote } from "@/components/episode/model-step-note";
import { RewardValue } from "@/components/episode/reward-value";
import { TruncatedNote } from "@/components/episode/step-card";
import { Badge } from "@/components/ui/badge";
import { JsonView } from "@/components/ui/json-view";
import { markDiffers } from "@/lib/trajectory/diff";
import type { TrajectoryStep } from "@/lib/trajectory/schema";
import { fmtMs } from "./format";

/** The frames list shows at most this many (the latest) until asked for all. */
export const MAX_FRAMES = 200;

export function StepStatus({ step }: { step: TrajectoryStep }) {
  if (step.ok == null) return <Badge tone="sky">running</Badge>;
  if (!step.ok) return <Badge tone="red">error</Badge>;
  return step.finished ? <Badge tone="green">finished</Badge> : null;
}

export function ReplayBadge({ step }: { step: TrajectoryStep }) {
  if (!step.replay) return null;
  return markDiffers(step.replay) ? (
    <Badge tone="amber" title={`Replayed step ${step.replay.step} of ${step.replay.of}`}>
      differs from original: {step.replay.differs.join(", ")}
    </Badge>
  ) : (
    <Badge tone="neutral" title={`Replayed step ${step.replay.step} of ${step.replay.of}`}>
      replayed, same
    </Badge>
  );
}

export function StepDetail({ step, cumulative }: { step: TrajectoryStep; cumulative: number }) {
  const elapsed = step.ok == null ? (step.events.at(-1)?.t ?? 0) : step.latency_ms;
  return (
    <article aria-label={`Step ${step.index}`} className="space-y-3">
      <header className="flex flex-wrap items-center gap-2">
        <h2 className="text-base font-semibold">
          Step {step.index}: <span className="font-mono">{step.tool}</span>
        </h2>
        <StepStatus step={step} />
        <ReplayBadge step={step} />
      </header>
      <dl className="grid grid-cols-2 gap-x-4 gap-y-1 text-xs sm:grid-cols-4">
        <div>
          <dt className="text-zinc-500">Reward</dt>
          <dd className="font-mono" data-testid="step-reward">
            <RewardValue value={step.reward} signed tone />
          </dd>
        </div>
        <div>
          <dt className="text-zinc-500">Cumulative</dt>
          <dd className="font-mono">
            <RewardValue value={cumulative} />
          </dd>
        </div>
        <div>
          <dt className="text-zinc-500">Finished</dt>
          <dd>{step.finished ? "yes" : "no"}</dd>
        </div>
        <div>
          <dt className="text-zinc-500">{step.ok == null ? "Elapsed" : "Latency"}</dt>
          <dd className="font-mono">{fmtMs(elapsed)}</dd>
        </div>
      </dl>
      {step.agent && <ModelStepNote agent={step.agent} />}
      <section aria-label="Action">
        <h3 className="mb-1 text-xs font-semibold uppercase tracking-wide text-zinc-500">Action</h3>
        <JsonView value={step.input} label={`${step.tool} input`} maxHeight="16rem" />
      </section>
      <section aria-label="Observation">
        <h3 className="mb-1 text-xs font-semibold uppercase tracking-wide text-zinc-500">Observation</h3>
        {step.error && (
          <p
            role="alert"
            className="mb-2 rounded bg-red-50 p-2 font-mono text-xs text-red-800 dark:bg-red-950 dark:text-red-200"
          >
            {step.error}
          </p>
        )}
        {step.truncated && <TruncatedNote truncated={step.truncated} />}
        {step.after_end && (
          <p className="mb-2 text-xs text-amber-800 dark:text-amber-300">
            Called after the episode had finished: kept in the record, not counted in its total reward.
          </p>
        )}
        <BlocksView
          id={`step:${step.started_at}:${step.index}`}
          blocks={step.blocks}
          emptyText={step.ok == null ? "Waiting for the result…" : "No blocks."}
        />
      </section>
      <MetadataView value={step.metadata} />
      <SseFrames step={step} />
    </article>
  );
}

/**
 * The step's raw SSE frames, drawn only while open and then the latest MAX_FRAMES: a 50 MiB result
 * passes as thousands of frames, and a live step gets new ones every few milliseconds.
 */
function SseFrames({ step }: { step: TrajectoryStep }) {
  const [open, setOpen] = useState(false);
  const [all, setAll] = useState(false);
  const from = all ? 0 : Math.max(0, step.events.length - MAX_FRAMES);
  return (
    <details className="text-xs" onToggle={(e) => setOpen(e.currentTarget.open)}>
      <summary className="cursor-pointer text-zinc-600 dark:text-zinc-400">
        SSE frames ({step.events.length})
      </summary>
      {open && (
        <ol aria-label="SSE frames" className="mt-1 max-h-64 overflow-auto font-mono">
          {from > 0 && (
            <li className="py-0.5 text-zinc-500">
              {from.toLocaleString()} earlier frames not shown.{" "}
              <button
                type="button"
                onClick={() => setAll(true)}
                className="font-medium text-sky-700 underline-offset-2 hover:underline dark:text-sky-400"
              >
                Show all {step.events.length.toLocaleString()}
              </button>
            </li>
          )}
          {step.events.slice(from).map((e, i) => (
            <li key={from + i} className="flex gap-2 border-b border-zinc-100 py-0.5 dark:border-zinc-800">
              <span className="w-16 shrink-0 text-right text-zinc-500">+{fmtMs(e.t)}</span>
              {e.kind === "comment" ? (
                <span className="text-zinc-500">: {e.comment}</span>
              ) : (
                <span className="min-w-0 break-all">
                  <span className="font-semibold">{e.event}</span>{" "}
                  {e.event === "chunk" || e.event === "end" ? `${e.data.length} chars` : e.data.slice(0, 200)}
                </span>
              )}
            </li>
          ))}
        </ol>
      )}
    </details>
  );
}
