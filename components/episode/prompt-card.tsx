"use client";
// The episode's prompt (/{env}/prompt) as blocks, with the task it runs on.
import { Button } from "@/components/ui/button";
import { Card, CardBody, CardHeader, CardTitle } from "@/components/ui/card";
import { JsonView } from "@/components/ui/json-view";
import { SkeletonBlock } from "@/components/ui/skeleton";
import { selectTask, useEpisodeStore } from "@/lib/ui/episode-store";
import { errorMessage, usePrompt } from "@/lib/ui/use-episode";
import { BlocksView } from "./blocks-view";

/** `ready`: the episode is reopened (until then an error waits: it may be an ended episode's). */
export function PromptCard({ ready = true }: { ready?: boolean }) {
  const prompt = usePrompt();
  const task = useEpisodeStore(selectTask);
  const ended = useEpisodeStore((st) => st.end !== null);
  return (
    <Card>
      <CardHeader>
        <CardTitle id="episode-prompt-title">Prompt</CardTitle>
        {task && (
          <span className="font-mono text-xs text-zinc-500 dark:text-zinc-400">
            {"split" in task ? `${task.split} / task ${task.index}` : "custom task_spec"}
          </span>
        )}
      </CardHeader>
      <CardBody className="flex flex-col gap-3">
        {(prompt.isPending || (prompt.error && !ready)) && (
          <SkeletonBlock label="Loading the prompt" lines={3} />
        )}
        {prompt.error && ready && ended && (
          <p className="text-sm italic text-zinc-500 dark:text-zinc-400">
            The session is gone, so the server no longer serves its prompt (the recorded trajectory keeps it).
          </p>
        )}
        {prompt.error && ready && !ended && (
          <div
            role="alert"
            className="flex flex-wrap items-center gap-2 text-sm text-red-700 dark:text-red-400"
          >
            <span>Could not load the prompt: {errorMessage(prompt.error)}</span>
            <Button size="xs" onClick={() => prompt.refetch()}>
              Try again
            </Button>
          </div>
        )}
        {prompt.data && (
          <section aria-labelledby="episode-prompt-title">
            <BlocksView blocks={prompt.data} emptyText="The prompt is empty." />
          </section>
        )}
        {task && "task_spec" in task && (
          <details>
            <summary className="cursor-pointer text-xs font-medium text-zinc-500 dark:text-zinc-400">
              Task spec
            </summary>
            <JsonView value={task.task_spec} label="task_spec" className="mt-2" />
          </details>
        )}
      </CardBody>
    </Card>
  );
}
