"use client";
// A trajectory page's steps: the timeline beside the selected step (j / k move through it), each
// row its index, tool, marks, reward and latency; and the prompt above them.
import { useEffect, useRef } from "react";
import { BlocksView } from "@/components/episode/blocks-view";
import type { PrerenderedBlocks } from "@/components/episode/prerender";
import { RewardValue } from "@/components/episode/reward-value";
import { Kbd } from "@/components/ui/kbd";
import { markDiffers } from "@/lib/trajectory/diff";
import type { Trajectory, TrajectoryStep } from "@/lib/trajectory/schema";
import { cn } from "@/lib/ui/cn";
import { fmtMs } from "./format";
import { StepStatus } from "./step-detail";

/** j / k select the next / previous step (not while typing in a field). */
export function useStepKeys(count: number, step: number | null, select: (n: number) => void): void {
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      const el = e.target as HTMLElement | null;
      if (el && (el.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(el.tagName))) return;
      if (e.metaKey || e.ctrlKey || e.altKey || !count) return;
      if (e.key === "j") select(Math.min((step ?? 0) + 1, count));
      else if (e.key === "k") select(Math.max((step ?? 2) - 1, 1));
      else return;
      e.preventDefault();
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [step, count, select]);
}

function StepRow({
  s,
  cumulative,
  current,
  onSelect,
}: {
  s: TrajectoryStep;
  cumulative: number | undefined;
  current: boolean;
  onSelect: () => void;
}) {
  return (
    <button
      type="button"
      aria-current={current ? "step" : undefined}
      onClick={onSelect}
      className={cn(
        // The row wraps rather than squeeze the tool's name: the marks and figures go below it.
        "flex w-full flex-wrap items-center gap-x-2 gap-y-0.5 rounded px-2 py-1 text-left text-xs hover:bg-zinc-100 dark:hover:bg-zinc-800",
        current && "bg-indigo-50 ring-1 ring-indigo-300 dark:bg-indigo-950 dark:ring-indigo-800",
      )}
    >
      <span className="w-6 shrink-0 text-right font-mono text-zinc-500">{s.index}</span>
      <span className="min-w-[6rem] flex-1 truncate font-mono" data-testid="step-tool">
        {s.tool}
        {s.after_end && (
          <span className="ml-1 font-sans text-amber-700 dark:text-amber-400">(after end)</span>
        )}
      </span>
      {markDiffers(s.replay) && (
        <span className="text-amber-600" title="differs from the original">
          ≠
        </span>
      )}
      <StepStatus step={s} />
      <span className="font-mono" title="reward / cumulative">
        <RewardValue value={s.reward} signed />
        <span className="text-zinc-400">
          {" / "}
          <RewardValue value={cumulative} />
        </span>
      </span>
      <span className="w-14 shrink-0 text-right text-zinc-500">{fmtMs(s.latency_ms)}</span>
    </button>
  );
}

export function StepNav({
  t,
  cumulative,
  step,
  select,
}: {
  t: Trajectory;
  cumulative: number[];
  step: number | null;
  select: (n: number) => void;
}) {
  const listRef = useRef<HTMLOListElement>(null);
  useEffect(() => {
    if (step == null) return;
    listRef.current?.querySelector(`[data-step="${step}"]`)?.scrollIntoView({ block: "nearest" });
  }, [step]);
  return (
    <nav aria-label="Steps" className="md:sticky md:top-14 md:self-start">
      <p className="mb-1 text-xs text-zinc-500">
        <Kbd>j</Kbd> / <Kbd>k</Kbd> next / previous step
      </p>
      <ol ref={listRef} className="max-h-[70vh] space-y-0.5 overflow-auto">
        {t.steps.map((s, i) => (
          <li key={s.index} data-step={s.index}>
            <StepRow
              s={s}
              cumulative={cumulative[i]}
              current={s.index === step}
              onSelect={() => select(s.index)}
            />
          </li>
        ))}
      </ol>
      {t.steps.length === 0 && (
        <p className="text-xs text-zinc-500">
          {t.end_reason == null ? "No steps yet." : "No steps: the episode ended without a call."}
        </p>
      )}
    </nav>
  );
}

/** The prompt, open at once when there is no step to look at; its Markdown as the server laid it out. */
export function PromptSection({ t, initial }: { t: Trajectory; initial: PrerenderedBlocks | null }) {
  if (!t.prompt) return null;
  return (
    <details
      className="mb-4 rounded-lg border border-zinc-200 p-3 dark:border-zinc-800"
      open={t.steps.length === 0}
    >
      <summary className="cursor-pointer text-sm font-semibold">Prompt</summary>
      <div className="mt-2">
        <BlocksView
          id={`${t.id}:prompt`}
          blocks={t.prompt}
          rendered={t.prompt.map((b, i) => {
            const was = initial?.blocks[i];
            return b.type === "text" && was?.type === "text" && was.text === b.text
              ? (initial?.rendered[i] ?? null)
              : null;
          })}
        />
      </div>
    </details>
  );
}
