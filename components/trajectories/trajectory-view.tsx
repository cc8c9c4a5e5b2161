"use client";
// The trajectory view (/trajectories/<id>?step=N): header with end reason and reward, actions
// (restart, mark golden, export as JSON or as a Playwright test, fork at the selected step, replay
// with diff, compare), the prompt, the reward chart, and the step timeline with j/k navigation.
// Live episodes update as they run. Its parts: trajectory-header.tsx, trajectory-operations.tsx,
// trajectory-steps.tsx.
import { useQuery } from "@tanstack/react-query";
import { useCallback, useMemo, useRef, useState } from "react";
import type { PrerenderedBlocks } from "@/components/episode/prerender";
import { RewardValue } from "@/components/episode/reward-value";
import { PageContainer, PageHeader } from "@/components/layout/page-header";
import { SectionCard } from "@/components/ui/card";
import { ErrorPanel } from "@/components/ui/error-panel";
import { SkeletonBlock } from "@/components/ui/skeleton";
import { trajectoriesHref } from "@/lib/routes";
import { cumulativeRewards } from "@/lib/trajectory/model";
import type { Trajectory } from "@/lib/trajectory/schema";
import { trajectoryQuery } from "@/lib/ui/trajectory-queries";
import { RewardChart } from "./reward-chart";
import { StepDetail } from "./step-detail";
import { TrajectoryHeader } from "./trajectory-header";
import { Operations } from "./trajectory-operations";
import { PromptSection, StepNav, useStepKeys } from "./trajectory-steps";
import { useLiveTrajectory } from "./use-live-trajectory";

function useStepParam(initial: number | null, count: number) {
  const [step, setStep] = useState<number | null>(initial);
  const select = useCallback((n: number) => {
    setStep(n);
    const url = new URL(window.location.href);
    url.searchParams.set("step", String(n));
    window.history.replaceState(null, "", url);
  }, []);
  // Follow the newest step of a live episode unless the user picked one.
  const picked = useRef(initial != null);
  const current = step ?? (count > 0 ? count : null);
  return {
    step: current != null && count > 0 ? Math.min(Math.max(current, 1), count) : null,
    select: (n: number) => {
      picked.current = true;
      select(n);
    },
  };
}

export function TrajectoryView({
  id,
  initialStep,
  initialPrompt = null,
}: {
  id: string;
  initialStep: number | null;
  /** The prompt as the server rendered it (its Markdown laid out), when it is open at once. */
  initialPrompt?: PrerenderedBlocks | null;
}) {
  const { data: t, error, isPending, refetch, feed } = useLiveTrajectory(id);
  if (isPending) {
    return (
      <PageContainer>
        <SkeletonBlock lines={6} />
      </PageContainer>
    );
  }
  if (error || !t) {
    return (
      <PageContainer>
        <PageHeader
          crumbs={[{ href: trajectoriesHref(), label: "Trajectories" }, { label: id }]}
          title="Trajectory"
        />
        <ErrorPanel error={error} context={{ what: `trajectory ${id}` }} onRetry={() => void refetch()} />
      </PageContainer>
    );
  }
  return <Loaded t={t} initialStep={initialStep} feed={feed} initialPrompt={initialPrompt} />;
}

function Loaded({
  t,
  initialStep,
  feed,
  initialPrompt,
}: {
  t: Trajectory;
  initialStep: number | null;
  feed: string;
  initialPrompt: PrerenderedBlocks | null;
}) {
  const { step, select } = useStepParam(initialStep, t.steps.length);
  const cum = useMemo(() => cumulativeRewards(t.steps), [t.steps]);
  const selected = step != null ? t.steps[step - 1] : undefined;
  useStepKeys(t.steps.length, step, select);
  // The golden mark as stored (a live view's copy of the trajectory does not follow it).
  const stored = useQuery({ ...trajectoryQuery(t.id), select: (d) => d.golden === true });
  const golden = stored.data ?? t.golden === true;
  return (
    <PageContainer>
      <TrajectoryHeader t={t} feed={feed} golden={golden} />
      <div className="mb-4 grid gap-4 lg:grid-cols-[1fr_20rem]">
        <SectionCard
          title="Reward"
          aside={
            <span className="text-xs text-zinc-500">
              total{" "}
              <RewardValue
                value={t.total_reward}
                className="font-mono font-semibold text-zinc-900 dark:text-zinc-100"
                data-testid="total-reward"
              />{" "}
              · {t.steps.length} steps
            </span>
          }
        >
          <RewardChart
            steps={t.steps}
            selected={step ?? undefined}
            onSelect={select}
            ended={t.end_reason != null}
          />
        </SectionCard>
        <Operations t={t} step={step} />
      </div>
      <PromptSection t={t} initial={initialPrompt} />
      <div className="grid gap-4 md:grid-cols-[20rem_1fr]">
        <StepNav t={t} cumulative={cum} step={step} select={select} />
        <div className="min-w-0">
          {selected ? <StepDetail step={selected} cumulative={cum[selected.index - 1] ?? 0} /> : null}
        </div>
      </div>
    </PageContainer>
  );
}
