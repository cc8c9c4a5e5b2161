"use client";
// A review queue as one reviewer works through it (/review/<id>?reviewer=&at=): one episode at a
// time with the label form beside it, driven from the keyboard — n/p the next or previous episode,
// j/k through the steps, 1-9 a choice, Enter save and go to the next episode to label. Each episode
// is a URL of its own, so a reload or a link reopens it.
import { useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { useCallback, useEffect, useState } from "react";
import { PageContainer, PageHeader } from "@/components/layout/page-header";
import { Button, buttonClasses } from "@/components/ui/button";
import { ErrorPanel } from "@/components/ui/error-panel";
import { Kbd } from "@/components/ui/kbd";
import { SkeletonBlock } from "@/components/ui/skeleton";
import type { JsonObject } from "@/lib/ors/protocol";
import { choicesOf, choose } from "@/lib/review/choices";
import { agreementHref, reviewHref, reviewQueueHref } from "@/lib/routes";
import { queueQuery, type ReviewEpisode, reviewEpisodeQuery, usePutLabel } from "@/lib/ui/review-queries";
import { errorMessage } from "@/lib/ui/use-episode";
import { EpisodeRead, stepElementId } from "./episode-read";
import { LabelForm, useLabelValue } from "./label-form";
import { ReviewerPicker } from "./reviewer-picker";

/** Keys typed into a text field are the field's, not shortcuts. */
function typing(target: EventTarget | null): boolean {
  const el = target as HTMLElement | null;
  if (!el) return false;
  if (el.isContentEditable || el.tagName === "TEXTAREA" || el.tagName === "SELECT") return true;
  return (
    el.tagName === "INPUT" &&
    !["checkbox", "radio", "button", "submit"].includes((el as HTMLInputElement).type)
  );
}

function Shortcuts() {
  return (
    <p className="flex flex-wrap items-center gap-x-3 gap-y-1 text-xs text-zinc-500 dark:text-zinc-400">
      <span>
        <Kbd>n</Kbd> <Kbd>p</Kbd> next / previous episode
      </span>
      <span>
        <Kbd>j</Kbd> <Kbd>k</Kbd> next / previous step
      </span>
      <span>
        <Kbd>1</Kbd>–<Kbd>9</Kbd> a choice
      </span>
      <span>
        <Kbd>Enter</Kbd> save and next
      </span>
      <span>
        <Kbd>Esc</Kbd> leave a text field
      </span>
    </p>
  );
}

function Reviewing({
  queueId,
  reviewer,
  episode,
}: {
  queueId: string;
  reviewer: string;
  episode: ReviewEpisode;
}) {
  const router = useRouter();
  const qc = useQueryClient();
  const put = usePutLabel(queueId);
  const stepTarget = episode.labelSet.target === "step";
  const [step, setStep] = useState<number | null>(
    stepTarget ? (episode.trajectory.steps[0]?.index ?? null) : null,
  );
  const saved = stepTarget
    ? (episode.stepLabels.find((l) => l.step === step)?.value ?? null)
    : (episode.label?.value ?? null);
  const [value, setValue] = useLabelValue(`${episode.trajectory.id}:${step}`, saved);
  const go = useCallback(
    (position: number | null) =>
      position !== null && router.push(reviewQueueHref(queueId, reviewer, position)),
    [router, queueId, reviewer],
  );
  // The next ones are read ahead: moving on shows them at once.
  useEffect(() => {
    for (const p of [episode.next, episode.nextUnlabelled])
      if (p !== null) void qc.prefetchQuery(reviewEpisodeQuery(queueId, reviewer, p));
  }, [qc, queueId, reviewer, episode.next, episode.nextUnlabelled]);

  const save = useCallback(
    (v: JsonObject) =>
      put.mutate(
        { labelSet: episode.labelSet.id, trajectoryId: episode.trajectory.id, step, reviewer, value: v },
        {
          onSuccess: async () => {
            await qc.invalidateQueries({
              queryKey: reviewEpisodeQuery(queueId, reviewer, episode.position).queryKey,
            });
            const next = episode.nextUnlabelled;
            if (next !== null && next !== episode.position) go(next);
          },
        },
      ),
    [put, episode, step, reviewer, qc, queueId, go],
  );

  const moveStep = useCallback(
    (by: number) => {
      const steps = episode.trajectory.steps;
      if (!steps.length) return;
      const i = steps.findIndex((s) => s.index === step);
      const next =
        steps[Math.min(steps.length - 1, Math.max(0, i < 0 ? (by > 0 ? 0 : steps.length - 1) : i + by))]!;
      setStep(next.index);
      document
        .getElementById(stepElementId(next.index))
        ?.scrollIntoView({ block: "nearest", behavior: "smooth" });
    },
    [episode, step],
  );

  useEffect(() => {
    const choices = choicesOf(episode.labelSet.schema);
    const onKey = (e: KeyboardEvent) => {
      if (e.defaultPrevented || e.altKey || e.metaKey || (e.ctrlKey && e.key !== "Enter")) return;
      if (typing(e.target)) {
        if (e.key === "Escape") (e.target as HTMLElement).blur();
        return;
      }
      const el = e.target as HTMLElement;
      const onControl = el.closest("a, button:not([aria-keyshortcuts])") !== null;
      const choice = choices.find((c) => c.key === e.key);
      if (choice) setValue(choose(value, choice));
      else if (e.key === "j") moveStep(1);
      else if (e.key === "k") moveStep(-1);
      else if (e.key === "n" || e.key === "]") go(episode.next);
      else if (e.key === "p" || e.key === "[") go(episode.previous);
      else if (e.key === "Enter" && !onControl) save(value);
      else return;
      e.preventDefault();
    };
    document.addEventListener("keydown", onKey);
    return () => document.removeEventListener("keydown", onKey);
  }, [episode, value, setValue, moveStep, go, save]);

  const done = episode.labelled === episode.total;
  return (
    <div className="grid gap-5 lg:grid-cols-[minmax(0,1fr)_28rem]">
      <EpisodeRead episode={episode} step={step} />
      <aside className="flex flex-col gap-3 lg:sticky lg:top-16 lg:self-start" aria-label="Label">
        <nav aria-label="Episodes of the queue" className="flex items-center gap-2">
          <Button
            size="sm"
            variant="secondary"
            disabled={episode.previous === null}
            onClick={() => go(episode.previous)}
          >
            Previous
          </Button>
          <span className="text-sm tabular-nums" aria-live="polite">
            Episode {episode.index + 1} of {episode.total}
          </span>
          <Button
            size="sm"
            variant="secondary"
            disabled={episode.next === null}
            onClick={() => go(episode.next)}
          >
            Next
          </Button>
          <span className="ml-auto text-xs text-zinc-600 dark:text-zinc-400" data-testid="review-progress">
            {episode.labelled} of {episode.total} labelled
          </span>
        </nav>
        {done && (
          <p
            role="status"
            className="rounded-md bg-green-50 px-3 py-2 text-sm text-green-900 dark:bg-green-950 dark:text-green-100"
          >
            Every episode of yours is labelled.{" "}
            <Link href={agreementHref(queueId)} className="underline">
              See the agreement report
            </Link>
          </p>
        )}
        <LabelForm
          labelSet={episode.labelSet}
          initial={saved}
          target={stepTarget ? (step === null ? "a step" : `step ${step}`) : "the episode"}
          value={value}
          onChange={setValue}
          onSave={save}
          saving={put.isPending}
          error={put.isError ? errorMessage(put.error) : null}
        />
        <Shortcuts />
      </aside>
    </div>
  );
}

export function ReviewQueueView({
  queueId,
  reviewer,
  at,
}: {
  queueId: string;
  reviewer: string | null;
  at: number | null;
}) {
  const queue = useQuery(queueQuery(queueId));
  const mine = queue.data?.items.filter((i) => i.reviewer === reviewer) ?? [];
  const position = at ?? (mine.find((i) => !i.labelled) ?? mine[0])?.position ?? null;
  const episode = useQuery({
    ...reviewEpisodeQuery(queueId, reviewer ?? "", position ?? 0),
    enabled: reviewer !== null && position !== null,
  });
  const title = queue.data?.name ?? "Review";
  return (
    <PageContainer>
      <PageHeader
        crumbs={[{ href: reviewHref(), label: "Review" }, { label: title }]}
        title={reviewer ? `${title} — ${reviewer}` : title}
        description={queue.data?.blind ? "Blind: rewards show once you have labelled an episode." : undefined}
        actions={
          <Link href={agreementHref(queueId)} prefetch={false} className={buttonClasses("secondary", "sm")}>
            Agreement report
          </Link>
        }
      />
      {queue.isError ? (
        <ErrorPanel error={queue.error} context={{ what: "the review queue" }} />
      ) : !queue.data ? (
        <SkeletonBlock label="Loading the queue" lines={3} />
      ) : reviewer === null || !mine.length ? (
        <ReviewerPicker queueId={queueId} reviewers={queue.data.reviewers} unknown={reviewer} />
      ) : episode.isError ? (
        <ErrorPanel error={episode.error} context={{ what: "the episode" }} />
      ) : !episode.data ? (
        <SkeletonBlock label="Loading the episode" lines={4} />
      ) : (
        <Reviewing
          key={`${episode.data.position}`}
          queueId={queueId}
          reviewer={reviewer}
          episode={episode.data}
        />
      )}
    </PageContainer>
  );
}
