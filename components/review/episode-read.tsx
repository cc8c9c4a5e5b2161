"use client";
// An episode as a reviewer reads it: the prompt, then each step's tool, input, output and error;
// its rewards and metadata only once revealed (a blind queue hides them until the reviewer has
// labelled the episode). The current step (j/k) is highlighted and is what a step label is about.
import { BlocksView } from "@/components/episode/blocks-view";
import { RewardValue } from "@/components/episode/reward-value";
import { Badge } from "@/components/ui/badge";
import { SectionCard } from "@/components/ui/card";
import { JsonView } from "@/components/ui/json-view";
import { cn } from "@/lib/ui/cn";
import type { ReviewEpisode } from "@/lib/ui/review-queries";

export function stepElementId(index: number): string {
  return `review-step-${index}`;
}

export function EpisodeRead({ episode, step }: { episode: ReviewEpisode; step: number | null }) {
  const t = episode.trajectory;
  return (
    <div className="flex min-w-0 flex-col gap-4">
      <SectionCard
        title="Prompt"
        titleId="review-prompt"
        aside={
          <span className="font-mono text-xs text-zinc-500 dark:text-zinc-400">
            {t.env} · {t.task && "split" in t.task ? `${t.task.split} / task ${t.task.index}` : "task_spec"}
          </span>
        }
      >
        {t.prompt ? (
          <BlocksView blocks={t.prompt} id={`${t.id}:prompt`} />
        ) : (
          <p className="text-sm text-zinc-500">The prompt was not recorded.</p>
        )}
      </SectionCard>
      <section aria-labelledby="review-steps" className="flex flex-col gap-2">
        <h2 id="review-steps" className="flex items-center gap-2 text-sm font-semibold">
          Steps ({t.steps.length})
          {episode.revealed ? (
            <span className="font-normal text-zinc-600 dark:text-zinc-400">
              total reward <RewardValue value={t.total_reward} data-testid="review-total-reward" />
            </span>
          ) : (
            <Badge
              tone="sky"
              title="The queue is blind: rewards and metadata show once you have labelled the episode"
            >
              rewards hidden until you label
            </Badge>
          )}
        </h2>
        {t.steps.length === 0 && (
          <p className="text-sm text-zinc-500">No steps: the episode ended before any call.</p>
        )}
        <ol className="flex flex-col gap-2">
          {t.steps.map((s) => (
            <li
              key={s.index}
              id={stepElementId(s.index)}
              aria-current={step === s.index ? "step" : undefined}
              className={cn(
                "scroll-mt-20 rounded-lg border border-zinc-200 p-3 dark:border-zinc-800",
                step === s.index && "border-indigo-500 ring-2 ring-indigo-500/30 dark:border-indigo-400",
              )}
            >
              <article aria-label={`Step ${s.index}`} className="flex flex-col gap-2">
                <header className="flex flex-wrap items-center gap-2 text-sm">
                  <span className="font-semibold">Step {s.index}</span>
                  <span className="font-mono">{s.tool}</span>
                  {s.ok === false && <Badge tone="red">error</Badge>}
                  {s.finished && <Badge tone="green">finished</Badge>}
                  {s.after_end && <Badge tone="amber">after the end</Badge>}
                  {episode.revealed && (
                    <span className="ml-auto text-xs text-zinc-600 dark:text-zinc-400">
                      reward <RewardValue value={s.reward} signed tone />
                    </span>
                  )}
                </header>
                <JsonView value={s.input} label="Input" expandDepth={3} maxHeight="16rem" />
                {s.error && (
                  <p className="whitespace-pre-wrap rounded-md bg-red-50 px-2 py-1 text-xs text-red-800 dark:bg-red-950 dark:text-red-200">
                    {s.error}
                  </p>
                )}
                <BlocksView blocks={s.blocks} id={`${t.id}:${s.index}`} emptyText="No output." />
                {episode.revealed && s.metadata && (
                  <JsonView value={s.metadata} label="Metadata" expandDepth={1} />
                )}
              </article>
            </li>
          ))}
        </ol>
      </section>
    </div>
  );
}
