"use client";
// The selected task beside the list: its JSON, a link that copies its view, and "Start episode" on
// it (or, with no task selected, where to start instead).
import { FileJson, Link2, Play } from "lucide-react";
import Link from "next/link";
import { buttonClasses } from "@/components/ui/button";
import { Card } from "@/components/ui/card";
import { CopyButton } from "@/components/ui/copy-button";
import { ErrorPanel } from "@/components/ui/error-panel";
import { JsonView } from "@/components/ui/json-view";
import { ServerQueryError } from "@/components/ui/server-query-error";
import { SkeletonBlock } from "@/components/ui/skeleton";
import { envHref, newEpisodeHref } from "@/lib/routes";
import type { SplitView } from "./use-split-tasks";

function NoTaskSelected({ server, env }: { server: string; env: string }) {
  return (
    <Card className="flex h-full min-h-48 flex-col items-center justify-center gap-2 p-6 text-center text-sm text-zinc-500">
      <FileJson aria-hidden="true" className="size-6 text-zinc-300 dark:text-zinc-700" />
      <p>Select a task to see its JSON and start an episode on it.</p>
      <Link
        href={newEpisodeHref(server, env)}
        className="text-xs text-indigo-600 hover:underline dark:text-indigo-400"
      >
        Or start with a custom task_spec
      </Link>
    </Card>
  );
}

function TaskJson({ server, env, split, selected, list }: SplitView & { selected: number }) {
  const { total, selectedPageQuery } = list;
  const task = list.taskAt(selected);
  if (selected >= total && total > 0)
    return (
      <ErrorPanel
        error={{ status: 404, detail: `Task ${selected} is out of range: ${split} has ${total} tasks` }}
        context={{ what: "Task" }}
      />
    );
  if (task) return <JsonView value={task} label={`Task ${selected} JSON`} maxHeight="calc(100vh - 20rem)" />;
  if (selectedPageQuery.isError)
    return <ServerQueryError query={selectedPageQuery} server={server} env={env} />;
  return <SkeletonBlock label={`Loading task ${selected}`} lines={6} />;
}

export function TaskDetail({ server, env, split, selected, list }: SplitView) {
  if (selected === undefined) return <NoTaskSelected server={server} env={env} />;
  // Resolved at the click: the server does not know the page's origin.
  const shareUrl = () =>
    new URL(envHref(server, env, { tab: "tasks", split, task: selected }), window.location.origin).toString();
  return (
    <Card className="flex flex-col">
      <div className="flex flex-wrap items-center gap-2 border-b border-zinc-200 px-3 py-2 dark:border-zinc-800">
        <h2 className="mr-auto text-sm font-semibold">
          Task <span className="font-mono">{selected}</span>
          <span className="ml-1 font-normal text-zinc-500">
            of {list.total.toLocaleString("en-US")} · <span className="font-mono">{split}</span>
          </span>
        </h2>
        <CopyButton text={shareUrl} label="Copy link" />
        <Link
          href={newEpisodeHref(server, env, { split, index: selected })}
          className={buttonClasses("primary", "sm")}
        >
          <Play aria-hidden="true" />
          Start episode
        </Link>
      </div>
      <div className="p-3">
        <TaskJson server={server} env={env} split={split} selected={selected} list={list} />
        <p className="mt-2 flex items-center gap-1 text-[11px] text-zinc-500">
          <Link2 aria-hidden="true" className="size-3" />
          This view&apos;s URL reopens task {selected} of {split}.
        </p>
      </div>
    </Card>
  );
}
