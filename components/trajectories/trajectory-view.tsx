"use client";
// The trajectory view (/trajectories/<id>?step=N): header with end reason and reward, actions
// (restart, mark golden, export as JSON or as a Playwright test, fork at the selected step, replay
// with diff, compare), the prompt, the reward chart, and the step timeline with j/k navigation.
// Live episodes update as they run.
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { FileCode, GitBranch, GitCompare, Play, Radio, RotateCcw, Star } from "lucide-react";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { useCallback, useEffect, useMemo, useRef, useState } from "react";
import { BlocksView } from "@/components/episode/blocks-view";
import { AgentEndNote } from "@/components/episode/model-step-note";
import type { PrerenderedBlocks } from "@/components/episode/prerender";
import { RewardValue } from "@/components/episode/reward-value";
import { PageContainer, PageHeader } from "@/components/layout/page-header";
import { RunTagLink } from "@/components/runs/run-tag-link";
import { Badge } from "@/components/ui/badge";
import { Button, buttonClasses } from "@/components/ui/button";
import { Card, CardBody, CardHeader, CardTitle } from "@/components/ui/card";
import { ErrorPanel } from "@/components/ui/error-panel";
import { Input, Label } from "@/components/ui/input";
import { Kbd } from "@/components/ui/kbd";
import { SkeletonBlock } from "@/components/ui/skeleton";
import {
  compareTrajectoriesHref,
  episodeHref,
  liveHref,
  trajectoriesHref,
  trajectoryHref,
} from "@/lib/routes";
import { markDiffers } from "@/lib/trajectory/diff";
import { cumulativeRewards, taskLabel } from "@/lib/trajectory/model";
import type { Trajectory } from "@/lib/trajectory/schema";
import { cn } from "@/lib/ui/cn";
import {
  downloadUrl,
  type ForkResponse,
  forkability,
  forkTrajectoryRequest,
  htmlExportUrl,
  playwrightUrl,
  replayTrajectoryRequest,
  restartHref,
  setGoldenRequest,
  trajectoryKeys,
  trajectoryQuery,
} from "@/lib/ui/trajectory-queries";
import { END_REASON_LABEL, endReasonTone, fmtMs, fmtTime } from "./format";
import { HtmlExportLink } from "./html-export-button";
import { RewardChart } from "./reward-chart";
import { StepDetail, StepStatus } from "./step-detail";
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
  const listRef = useRef<HTMLOListElement>(null);

  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      const el = e.target as HTMLElement | null;
      if (el && (el.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(el.tagName))) return;
      if (e.metaKey || e.ctrlKey || e.altKey || !t.steps.length) return;
      if (e.key === "j") select(Math.min((step ?? 0) + 1, t.steps.length));
      else if (e.key === "k") select(Math.max((step ?? 2) - 1, 1));
      else return;
      e.preventDefault();
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [step, t.steps.length, select]);

  useEffect(() => {
    if (step == null) return;
    listRef.current?.querySelector(`[data-step="${step}"]`)?.scrollIntoView({ block: "nearest" });
  }, [step]);

  const running = t.end_reason == null;
  const restart = restartHref(t);
  // The golden mark as stored (a live view's copy of the trajectory does not follow it).
  const stored = useQuery({ ...trajectoryQuery(t.id), select: (d) => d.golden === true });
  const golden = stored.data ?? t.golden === true;
  const testable = t.env != null && t.task != null;
  return (
    <PageContainer>
      <PageHeader
        crumbs={[
          { href: running ? liveHref() : trajectoriesHref(), label: running ? "Live" : "Trajectories" },
          { label: t.id },
        ]}
        title={
          <span className="flex items-center gap-2">
            {t.env ?? "unknown environment"} · {taskLabel(t.task)}
            <Badge
              tone={endReasonTone(t.end_reason)}
              aria-label={`End reason: ${END_REASON_LABEL[t.end_reason ?? "running"]}`}
            >
              {running && <Radio aria-hidden="true" className="size-3 animate-pulse" />}
              {END_REASON_LABEL[t.end_reason ?? "running"]}
            </Badge>
            {golden && (
              <Badge tone="amber">
                <Star aria-hidden="true" className="size-3 fill-current" />
                Golden
              </Badge>
            )}
          </span>
        }
        description={
          <>
            server <span className="font-mono">{t.server}</span> · session{" "}
            <span className="font-mono">{t.sid ?? "—"}</span> · started {fmtTime(t.started_at)}
            {t.ended_at != null && ` · ran ${fmtMs(t.ended_at - t.started_at)}`}
            {running && feed === "live" && " · watching live"}
            {t.client && ` · played by ${t.client.name} ${t.client.version}`}
            {t.run && (
              <>
                {" "}
                · <RunTagLink run={t.run} />
              </>
            )}
            {t.origin?.from && (
              <>
                {" "}
                · {t.origin.kind} of{" "}
                <Link className="underline" href={trajectoryHref(t.origin.from)}>
                  {t.origin.from}
                </Link>
                {t.origin.step != null && ` at step ${t.origin.step}`}
              </>
            )}
          </>
        }
        actions={
          <>
            {running && t.env && t.sid && (
              <Link className={buttonClasses("primary", "sm")} href={episodeHref(t.server, t.env, t.sid)}>
                <Play aria-hidden="true" /> Open episode
              </Link>
            )}
            {restart && (
              <Link className={buttonClasses("secondary", "sm")} href={restart}>
                <RotateCcw aria-hidden="true" /> Restart on the same task
              </Link>
            )}
            <GoldenToggle t={t} golden={golden} />
            <a className={buttonClasses("secondary", "sm")} href={downloadUrl(t.id)} download>
              Export JSON
            </a>
            <HtmlExportLink href={htmlExportUrl(t.id)} what="This episode" />
            {testable ? (
              <a
                className={buttonClasses("secondary", "sm")}
                href={playwrightUrl(t.id)}
                download
                title="A Playwright spec that drives the playground through the same steps and checks the recorded rewards"
              >
                <FileCode aria-hidden="true" /> Export as Playwright test
              </a>
            ) : (
              <Button size="sm" disabled title="Needs a known environment and task">
                <FileCode aria-hidden="true" /> Export as Playwright test
              </Button>
            )}
          </>
        }
      />
      {t.error && (
        <p
          role="status"
          className="mb-3 rounded-md bg-amber-50 p-2 text-xs text-amber-900 dark:bg-amber-950 dark:text-amber-200"
        >
          {END_REASON_LABEL[t.end_reason ?? "running"]}: {t.error}
        </p>
      )}
      {t.agent_end && (
        <div className="mb-3">
          <AgentEndNote end={t.agent_end} />
        </div>
      )}
      <div className="mb-4 grid gap-4 lg:grid-cols-[1fr_20rem]">
        <Card>
          <CardHeader>
            <CardTitle>Reward</CardTitle>
            <span className="text-xs text-zinc-500">
              total{" "}
              <RewardValue
                value={t.total_reward}
                className="font-mono font-semibold text-zinc-900 dark:text-zinc-100"
                data-testid="total-reward"
              />{" "}
              · {t.steps.length} steps
            </span>
          </CardHeader>
          <CardBody>
            <RewardChart steps={t.steps} selected={step ?? undefined} onSelect={select} />
          </CardBody>
        </Card>
        <Operations t={t} step={step} />
      </div>
      {t.prompt && (
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
                const was = initialPrompt?.blocks[i];
                return b.type === "text" && was?.type === "text" && was.text === b.text
                  ? (initialPrompt?.rendered[i] ?? null)
                  : null;
              })}
            />
          </div>
        </details>
      )}
      <div className="grid gap-4 md:grid-cols-[20rem_1fr]">
        <nav aria-label="Steps" className="md:sticky md:top-14 md:self-start">
          <p className="mb-1 text-xs text-zinc-500">
            <Kbd>j</Kbd> / <Kbd>k</Kbd> next / previous step
          </p>
          <ol ref={listRef} className="max-h-[70vh] space-y-0.5 overflow-auto">
            {t.steps.map((s, i) => (
              <li key={s.index} data-step={s.index}>
                <button
                  type="button"
                  aria-current={s.index === step ? "step" : undefined}
                  onClick={() => select(s.index)}
                  className={cn(
                    "flex w-full items-center gap-2 rounded px-2 py-1 text-left text-xs hover:bg-zinc-100 dark:hover:bg-zinc-800",
                    s.index === step &&
                      "bg-indigo-50 ring-1 ring-indigo-300 dark:bg-indigo-950 dark:ring-indigo-800",
                  )}
                >
                  <span className="w-6 shrink-0 text-right font-mono text-zinc-500">{s.index}</span>
                  <span className="min-w-0 flex-1 truncate font-mono">
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
                      <RewardValue value={cum[i]} />
                    </span>
                  </span>
                  <span className="w-14 shrink-0 text-right text-zinc-500">{fmtMs(s.latency_ms)}</span>
                </button>
              </li>
            ))}
          </ol>
          {t.steps.length === 0 && <p className="text-xs text-zinc-500">No steps {running ? "yet" : ""}.</p>}
        </nav>
        <div className="min-w-0">
          {selected ? <StepDetail step={selected} cumulative={cum[selected.index - 1] ?? 0} /> : null}
        </div>
      </div>
    </PageContainer>
  );
}

/**
 * Marks the trajectory golden (a reference that `npx ors-playground test` replays as a regression test)
 * or unmarks it: a toggle button (aria-pressed), so its name stays the same either way.
 */
function GoldenToggle({ t, golden }: { t: Trajectory; golden: boolean }) {
  const qc = useQueryClient();
  const key = trajectoryKeys.one(t.id);
  const m = useMutation({
    mutationFn: (next: boolean) => setGoldenRequest(t.id, next),
    onMutate: async (next) => {
      await qc.cancelQueries({ queryKey: key });
      const before = qc.getQueryData<Trajectory>(key);
      if (before) qc.setQueryData<Trajectory>(key, { ...before, golden: next });
      return { before };
    },
    onError: (_err, _next, ctx) => {
      if (ctx?.before) qc.setQueryData(key, ctx.before);
    },
    onSettled: () => qc.invalidateQueries({ queryKey: trajectoryKeys.all }),
  });
  const running = t.end_reason == null;
  return (
    <>
      <Button
        size="sm"
        aria-pressed={golden}
        disabled={running || m.isPending}
        onClick={() => m.mutate(!golden)}
        title={
          running
            ? "An episode can be marked golden once it has ended"
            : golden
              ? "Golden: replayed as a regression test by npx ors-playground test. Press to unmark."
              : "Mark golden: npx ors-playground test replays golden episodes as regression tests"
        }
        className={cn(golden && "border-amber-400 bg-amber-50 dark:border-amber-700 dark:bg-amber-950")}
      >
        <Star aria-hidden="true" className={cn(golden && "fill-amber-400 text-amber-500")} />
        Golden
      </Button>
      {m.error && (
        <span role="alert" className="text-xs text-red-700 dark:text-red-400">
          Could not {m.variables ? "mark" : "unmark"} it: {m.error.message}
        </span>
      )}
    </>
  );
}

function Operations({ t, step }: { t: Trajectory; step: number | null }) {
  const router = useRouter();
  const qc = useQueryClient();
  const [other, setOther] = useState("");
  const [forked, setForked] = useState<ForkResponse | null>(null);
  const forkM = useMutation({
    mutationFn: (n: number) => forkTrajectoryRequest(t.id, n),
    onSuccess: (r) => {
      setForked(r);
      void qc.invalidateQueries({ queryKey: trajectoryKeys.all });
    },
  });
  const replayM = useMutation({
    mutationFn: () => replayTrajectoryRequest(t.id),
    onSuccess: (r) => {
      void qc.invalidateQueries({ queryKey: trajectoryKeys.all });
      router.push(compareTrajectoriesHref(t.id, r.trajectory_id));
    },
  });
  const canRerun = t.task != null && t.steps.length > 0;
  const fork = forkability(t, step);
  return (
    <Card>
      <CardHeader>
        <CardTitle>Operations</CardTitle>
      </CardHeader>
      <CardBody className="space-y-3 text-xs">
        <div className="flex flex-wrap gap-2">
          <Button
            size="sm"
            disabled={!fork.ok || forkM.isPending}
            aria-describedby={fork.ok || !canRerun ? undefined : "fork-unavailable"}
            onClick={() => step != null && fork.ok && forkM.mutate(step)}
          >
            <GitBranch aria-hidden="true" />
            {forkM.isPending ? "Forking…" : `Fork at step ${step ?? "—"}`}
          </Button>
          <Button size="sm" disabled={!canRerun || replayM.isPending} onClick={() => replayM.mutate()}>
            <RotateCcw aria-hidden="true" />
            {replayM.isPending ? "Replaying…" : "Replay and diff"}
          </Button>
        </div>
        {!canRerun ? (
          <p className="text-zinc-500">Fork and replay need a known task and at least one step.</p>
        ) : (
          !fork.ok && (
            <p id="fork-unavailable" className="text-amber-800 dark:text-amber-300">
              {fork.reason}
            </p>
          )
        )}
        {forkM.error && <ErrorPanel compact error={forkM.error} context={{ what: "fork" }} />}
        {replayM.error && <ErrorPanel compact error={replayM.error} context={{ what: "replay" }} />}
        {forked && (
          <div
            role="status"
            aria-label="Fork result"
            className="space-y-1 rounded-md bg-zinc-50 p-2 dark:bg-zinc-900"
          >
            <p>
              Forked at step {forked.step}: new session <span className="font-mono">{forked.sid}</span>.
            </p>
            <p>
              {forked.differing.length === 0
                ? "Every replayed step matched the original."
                : `Replayed steps that differ from the original: ${forked.differing.join(", ")}.`}
            </p>
            <div className="flex flex-wrap gap-2">
              <Link
                className={buttonClasses("primary", "xs")}
                href={episodeHref(forked.server, forked.env, forked.sid)}
              >
                Continue in the episode view
              </Link>
              <Link className={buttonClasses("secondary", "xs")} href={trajectoryHref(forked.trajectory_id)}>
                View the fork
              </Link>
            </div>
          </div>
        )}
        <form
          className="flex items-end gap-2"
          onSubmit={(e) => {
            e.preventDefault();
            if (other.trim()) router.push(compareTrajectoriesHref(t.id, other.trim()));
          }}
        >
          <div className="flex-1 space-y-1">
            <Label htmlFor="compare-with">Compare with trajectory id</Label>
            <Input
              id="compare-with"
              value={other}
              onChange={(e) => setOther(e.target.value)}
              placeholder="id"
            />
          </div>
          <Button size="md" type="submit" disabled={!other.trim()}>
            <GitCompare aria-hidden="true" /> Compare
          </Button>
        </form>
      </CardBody>
    </Card>
  );
}
