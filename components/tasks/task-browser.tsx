"use client";

// The task browser: a split's tasks in a virtualized list (@tanstack/react-virtual), fetched in
// fixed pages through /{env}/task_range only for the rows on screen (and only once scrolling
// settles), so a 100,000-task split scrolls smoothly. Jump to an index, filter the loaded tasks,
// and see the selected task's JSON; the split and task live in the URL. The list's state is
// use-split-tasks.ts; its parts task-list.tsx and task-detail.tsx.
import Link from "next/link";
import { useEnvUrlState } from "@/components/environments/use-env-url-state";
import { Card } from "@/components/ui/card";
import { ErrorPanel } from "@/components/ui/error-panel";
import { ServerQueryError } from "@/components/ui/server-query-error";
import { SkeletonBlock } from "@/components/ui/skeleton";
import { envHref, newEpisodeHref } from "@/lib/routes";
import { useServerInfo, useSplits } from "@/lib/ui/queries";
import { TaskDetail } from "./task-detail";
import { type SplitPlace, TaskCountLine, TaskListToolbar, TaskRows } from "./task-list";
import { useSplitTasks } from "./use-split-tasks";

export function TaskBrowser({ server, env }: { server: string; env: string }) {
  const { split: urlSplit, task, update } = useEnvUrlState();
  const splits = useSplits(server, env);
  if (splits.isPending) return <SkeletonBlock label="Loading splits" lines={6} />;
  if (splits.isError) {
    return <ServerQueryError query={splits} server={server} env={env} />;
  }
  if (splits.data.length === 0) {
    return (
      <Card className="p-6 text-center text-sm text-zinc-500">
        This environment has no splits, so no tasks to browse.{" "}
        <Link
          href={newEpisodeHref(server, env)}
          className="text-indigo-600 hover:underline dark:text-indigo-400"
        >
          Start with a custom task_spec
        </Link>
        .
      </Card>
    );
  }
  const known = urlSplit === undefined || splits.data.some((s) => s.name === urlSplit);
  if (!known) {
    return (
      <ErrorPanel
        error={{ status: 404, detail: `No split named "${urlSplit}"` }}
        context={{ what: "Split", env }}
      >
        <p className="text-xs">
          Splits of {env}:{" "}
          {splits.data.map((s, i) => (
            <span key={s.name}>
              {i > 0 && ", "}
              <Link
                href={envHref(server, env, { tab: "tasks", split: s.name })}
                className="font-mono underline"
              >
                {s.name}
              </Link>
            </span>
          ))}
        </p>
      </ErrorPanel>
    );
  }
  const split = urlSplit ?? splits.data[0]!.name;
  return (
    <SplitTasks
      key={`${server}/${env}/${split}`}
      server={server}
      env={env}
      split={split}
      splitNames={splits.data.map((s) => s.name)}
      selected={task}
      onSelect={(i) => update({ tab: "tasks", split, task: i })}
      onSplitChange={(s) => update({ tab: "tasks", split: s, task: undefined }, "push")}
    />
  );
}

function SplitTasks(props: SplitPlace & { selected: number | undefined; onSelect: (index: number) => void }) {
  const { server, env, split, selected, onSelect } = props;
  const info = useServerInfo(server);
  const list = useSplitTasks(server, env, split, selected, onSelect);
  return (
    <div className="grid gap-4 lg:grid-cols-[minmax(0,1fr)_minmax(0,1fr)]">
      <Card className="flex min-w-0 flex-col">
        <TaskListToolbar {...props} list={list} />
        <TaskCountLine split={split} list={list} />
        <TaskRows server={server} env={env} split={split} selected={selected} list={list} />
        {list.pageError && (
          <div className="border-t border-zinc-200 p-2 dark:border-zinc-800">
            <ErrorPanel compact error={list.pageError} context={{ server, serverUrl: info?.url, env }} />
          </div>
        )}
      </Card>
      <div className="min-w-0">
        <TaskDetail server={server} env={env} split={split} selected={selected} list={list} />
      </div>
    </div>
  );
}
