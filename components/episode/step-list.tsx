"use client";
// The episode's steps in order. `?step=N` in the URL scrolls to and highlights step N; a new call
// scrolls into view as it starts.
import { useSearchParams } from "next/navigation";
import { useCallback, useEffect, useRef } from "react";
import { selectSteps, stepReward, useEpisodeStore } from "@/lib/ui/episode-store";
import { StepCard } from "./step-card";

/** Puts `?step=n` in the URL (no navigation) and scrolls that step into view. */
export function goToStep(n: number): void {
  const url = new URL(window.location.href);
  url.searchParams.set("step", String(n));
  window.history.replaceState(null, "", url);
  document.getElementById(`step-${n}`)?.scrollIntoView({ block: "start", behavior: "smooth" });
}

export function StepList({ onAbandon }: { onAbandon: () => void }) {
  const steps = useEpisodeStore(selectSteps);
  const params = useSearchParams();
  const stepParam = Number(params.get("step"));
  const highlighted = Number.isInteger(stepParam) && stepParam > 0 ? stepParam : null;
  const scrolledTo = useRef<number | null>(null);
  const lastCount = useRef(steps.length);

  // Deep link: scroll once to ?step=N when that step exists.
  useEffect(() => {
    if (highlighted === null || highlighted > steps.length || scrolledTo.current === highlighted) return;
    scrolledTo.current = highlighted;
    document.getElementById(`step-${highlighted}`)?.scrollIntoView({ block: "start" });
  }, [highlighted, steps.length]);

  // A new step: bring it into view.
  useEffect(() => {
    if (steps.length > lastCount.current) {
      document
        .getElementById(`step-${steps.length}`)
        ?.scrollIntoView({ block: "nearest", behavior: "smooth" });
    }
    lastCount.current = steps.length;
  }, [steps.length]);

  const onLink = useCallback((n: number) => {
    const url = new URL(window.location.href);
    url.searchParams.set("step", String(n));
    window.history.replaceState(null, "", url);
    scrolledTo.current = n;
    navigator.clipboard?.writeText(url.toString()).catch(() => {});
  }, []);

  if (steps.length === 0) {
    return (
      <p className="rounded-lg border border-dashed border-zinc-300 px-4 py-6 text-center text-sm text-zinc-500 dark:border-zinc-700 dark:text-zinc-400">
        No steps yet. Pick a tool on the right, fill its form and call it.
      </p>
    );
  }
  let cumulative = 0;
  return (
    <ol className="flex flex-col gap-3" aria-label="Steps">
      {steps.map((step, i) => {
        cumulative += stepReward(step) ?? 0;
        return (
          <li key={step.id}>
            <StepCard
              step={step}
              number={i + 1}
              cumulative={cumulative}
              highlighted={highlighted === i + 1}
              onLink={onLink}
              onAbandon={step.status === "running" ? onAbandon : undefined}
            />
          </li>
        );
      })}
    </ol>
  );
}
