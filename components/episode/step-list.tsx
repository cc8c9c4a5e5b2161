"use client";
// The episode's steps in order, as recorded (the same in every tab), then the calls this tab has
// just made that the record does not show yet. `?step=N` in the URL scrolls to and highlights
// step N; a new call scrolls into view as it starts.
import { useSearchParams } from "next/navigation";
import { Suspense, useCallback, useEffect, useRef } from "react";
import { useShallow } from "zustand/react/shallow";
import { Badge } from "@/components/ui/badge";
import { SkeletonBlock } from "@/components/ui/skeleton";
import type { TrajectoryStep } from "@/lib/trajectory/schema";
import { cumulativeOf, selectPendingCalls, selectSteps, useEpisodeStore } from "@/lib/ui/episode-store";
import { StepCard } from "./step-card";

/** Puts `?step=n` in the URL (no navigation) and scrolls that step into view. */
export function goToStep(n: number): void {
  const url = new URL(window.location.href);
  url.searchParams.set("step", String(n));
  window.history.replaceState(null, "", url);
  document.getElementById(`step-${n}`)?.scrollIntoView({ block: "start", behavior: "smooth" });
}

export function StepList({
  onAbandon,
  onPickUp,
}: {
  onAbandon: () => void;
  onPickUp: (s: TrajectoryStep) => void;
}) {
  const steps = useEpisodeStore(selectSteps);
  const inflight = useEpisodeStore((s) => s.inflight);
  const calls = useEpisodeStore((s) => s.calls);
  const pending = useEpisodeStore(useShallow(selectPendingCalls));
  const sid = useEpisodeStore((s) => s.sid);
  const params = useSearchParams();
  const stepParam = Number(params.get("step"));
  const highlighted = Number.isInteger(stepParam) && stepParam > 0 ? stepParam : null;
  const scrolledTo = useRef<number | null>(null);
  const lastCount = useRef(steps.length + pending.length);
  const count = steps.length + pending.length;

  // Deep link: scroll once to ?step=N when that step exists.
  useEffect(() => {
    if (highlighted === null || highlighted > steps.length || scrolledTo.current === highlighted) return;
    scrolledTo.current = highlighted;
    document.getElementById(`step-${highlighted}`)?.scrollIntoView({ block: "start" });
  }, [highlighted, steps.length]);

  // A new step or call: bring it into view.
  useEffect(() => {
    if (count > lastCount.current) {
      const last = document.querySelector("[data-step-list] > li:last-child");
      last?.scrollIntoView({ block: "nearest", behavior: "smooth" });
    }
    lastCount.current = count;
  }, [count]);

  const onLink = useCallback((n: number) => {
    const url = new URL(window.location.href);
    url.searchParams.set("step", String(n));
    window.history.replaceState(null, "", url);
    scrolledTo.current = n;
    navigator.clipboard?.writeText(url.toString()).catch(() => {});
  }, []);

  if (count === 0) {
    return (
      <p className="rounded-lg border border-dashed border-zinc-300 px-4 py-6 text-center text-sm text-zinc-500 dark:border-zinc-700 dark:text-zinc-400">
        No steps yet. Pick a tool on the right, fill its form and call it.
      </p>
    );
  }
  const cumulative = cumulativeOf(steps);
  return (
    <ol className="flex flex-col gap-3" aria-label="Steps" data-step-list>
      {steps.map((step, i) => (
        <li key={step.index}>
          <StepCard
            blocksId={sid}
            step={step}
            live={inflight.has(step.index)}
            local={calls.find((c) => c.index === step.index)}
            cumulative={cumulative[i] ?? 0}
            highlighted={highlighted === step.index}
            onLink={onLink}
            onAbandon={onAbandon}
            onPickUp={onPickUp}
          />
        </li>
      ))}
      {pending.map((c) => (
        <li key={c.callId}>
          <article
            aria-label={`Call of ${c.tool}${c.error ? " (refused)" : " (starting)"}`}
            className="rounded-lg border border-dashed border-zinc-300 bg-white px-3 py-2 dark:border-zinc-700 dark:bg-zinc-900/40"
          >
            <div className="flex flex-wrap items-center gap-2">
              <h3 className="font-mono text-sm font-semibold">{c.tool}</h3>
              {c.error ? <Badge tone="red">not run</Badge> : <Badge tone="indigo">calling…</Badge>}
              <code className="truncate font-mono text-xs text-zinc-500 dark:text-zinc-400">
                {JSON.stringify(c.input)}
              </code>
            </div>
            {c.error && (
              <p role="alert" className="mt-2 text-sm text-red-700 dark:text-red-400">
                The call did not reach the environment: {c.error}
              </p>
            )}
          </article>
        </li>
      ))}
    </ol>
  );
}

/** An episode page's "Steps" section: the list once the record is read, a placeholder before. */
export function StepsSection({
  caller,
  loading = "Opening the episode",
}: {
  caller: { abandon: () => void; pickUp: (s: TrajectoryStep) => void };
  /** What the placeholder says while the record is read. */
  loading?: string;
}) {
  const ready = useEpisodeStore((s) => s.status === "ready");
  return (
    <section aria-labelledby="steps-heading" className="flex flex-col gap-2">
      <h2 id="steps-heading" className="text-sm font-semibold">
        Steps
      </h2>
      {ready ? (
        <Suspense>
          <StepList onAbandon={caller.abandon} onPickUp={caller.pickUp} />
        </Suspense>
      ) : (
        <SkeletonBlock label={loading} lines={2} />
      )}
    </section>
  );
}
