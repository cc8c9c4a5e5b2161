"use client";
// The episode's prompt as recorded when the session started (the environment is asked once; a
// reopened episode never asks again, since environments may build their world in get_prompt),
// with the task it runs on. The page hands it the prompt as recorded when it was rendered on the
// server, its Markdown already laid out (prerender.tsx): shown at once, it does not move when the
// record arrives in the browser.
import type { ReactNode } from "react";
import { Button } from "@/components/ui/button";
import { SectionCard } from "@/components/ui/card";
import { JsonView } from "@/components/ui/json-view";
import { SkeletonBlock } from "@/components/ui/skeleton";
import type { Block } from "@/lib/ors/protocol";
import { selectEnded, selectTask, useEpisodeStore } from "@/lib/ui/episode-store";
import { errorMessage, useRequestPrompt } from "@/lib/ui/use-episode";
import { BlocksView } from "./blocks-view";
import type { PrerenderedBlocks } from "./prerender";

/** The server's rendering of block i, while the shown block is the same text it rendered. */
function renderedFor(
  shown: readonly Block[],
  initial: PrerenderedBlocks | null,
): (ReactNode | null)[] | undefined {
  if (!initial) return undefined;
  return shown.map((b, i) => {
    const was = initial.blocks[i];
    return b.type === "text" && was?.type === "text" && was.text === b.text
      ? (initial.rendered[i] ?? null)
      : null;
  });
}

export function PromptCard({ initial = null }: { initial?: PrerenderedBlocks | null }) {
  const status = useEpisodeStore((s) => s.status);
  const recorded = useEpisodeStore((s) => s.trajectory?.prompt ?? null);
  // Until the record is read in the browser, the prompt the server rendered.
  const prompt = status === "loading" ? (initial?.blocks ?? null) : recorded;
  const task = useEpisodeStore(selectTask);
  const ended = useEpisodeStore(selectEnded);
  const request = useRequestPrompt();
  return (
    <SectionCard
      title="Prompt"
      titleId="episode-prompt-title"
      bodyClassName="flex flex-col gap-3"
      aside={
        task && (
          <span className="font-mono text-xs text-zinc-500 dark:text-zinc-400">
            {"split" in task ? `${task.split} / task ${task.index}` : "custom task_spec"}
          </span>
        )
      }
    >
      {status === "loading" && !prompt && <SkeletonBlock label="Loading the prompt" lines={3} />}
      {status !== "missing" && prompt && (
        <section aria-labelledby="episode-prompt-title">
          <BlocksView
            blocks={prompt}
            emptyText="The prompt is empty."
            rendered={renderedFor(prompt, initial)}
          />
        </section>
      )}
      {status === "ready" && !prompt && ended && (
        <p className="text-sm italic text-zinc-500 dark:text-zinc-400">
          No prompt was recorded for this episode.
        </p>
      )}
      {status === "ready" && !prompt && !ended && (
        <div className="flex flex-col gap-2 text-sm">
          <p className="text-zinc-600 dark:text-zinc-400">
            The prompt of this session has not been requested yet (it was started by another client).
          </p>
          <div className="flex flex-wrap items-center gap-2">
            <Button size="sm" disabled={request.isPending} onClick={() => request.mutate()}>
              {request.isPending ? "Requesting…" : "Request the prompt"}
            </Button>
            <span className="text-xs text-zinc-500 dark:text-zinc-400">
              Asked once and recorded; some environments build their world when asked.
            </span>
          </div>
          {request.error && (
            <p role="alert" className="text-red-700 dark:text-red-400">
              Could not get the prompt: {errorMessage(request.error)}
            </p>
          )}
        </div>
      )}
      {task && "task_spec" in task && (
        <details>
          <summary className="cursor-pointer text-xs font-medium text-zinc-500 dark:text-zinc-400">
            Task spec
          </summary>
          <JsonView value={task.task_spec} label="task_spec" className="mt-2" />
        </details>
      )}
    </SectionCard>
  );
}
