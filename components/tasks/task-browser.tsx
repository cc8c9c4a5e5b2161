"use client";

// The task browser: a split's tasks in a virtualized list (@tanstack/react-virtual), fetched in
// fixed pages through /{env}/task_range only for the rows on screen (and only once scrolling
// settles), so a 100,000-task split scrolls smoothly. Jump to an index, filter the loaded tasks,
// and see the selected task's JSON; the split and task live in the URL.
import { useQueries, useQuery, useQueryClient } from "@tanstack/react-query";
import { useVirtualizer } from "@tanstack/react-virtual";
import { FileJson, Link2, Play, Search } from "lucide-react";
import Link from "next/link";
import { type KeyboardEvent, useEffect, useId, useMemo, useRef, useState } from "react";
import { useEnvUrlState } from "@/components/environments/use-env-url-state";
import { buttonClasses } from "@/components/ui/button";
import { Card } from "@/components/ui/card";
import { CopyButton } from "@/components/ui/copy-button";
import { ErrorPanel } from "@/components/ui/error-panel";
import { FieldError, Input, Label } from "@/components/ui/input";
import { JsonView } from "@/components/ui/json-view";
import { Kbd } from "@/components/ui/kbd";
import { Skeleton, SkeletonBlock } from "@/components/ui/skeleton";
import type { JsonObject } from "@/lib/ors/protocol";
import { envHref, newEpisodeHref } from "@/lib/routes";
import { cn } from "@/lib/ui/cn";
import { TASK_PAGE_SIZE, taskPageQuery, useNumTasks, useServerInfo, useSplits } from "@/lib/ui/queries";
import { orsKeys } from "@/lib/ui/query-keys";
import { taskPreview, taskSearchText } from "./task-preview";

const ROW_HEIGHT = 28;

export function TaskBrowser({ server, env }: { server: string; env: string }) {
  const { split: urlSplit, task, update } = useEnvUrlState();
  const splits = useSplits(server, env);
  const info = useServerInfo(server);
  if (splits.isPending) return <SkeletonBlock label="Loading splits" lines={6} />;
  if (splits.isError) {
    return (
      <ErrorPanel
        error={splits.error}
        context={{ server, serverUrl: info?.url, env }}
        onRetry={() => splits.refetch()}
      />
    );
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

function SplitTasks({
  server,
  env,
  split,
  splitNames,
  selected,
  onSelect,
  onSplitChange,
}: {
  server: string;
  env: string;
  split: string;
  splitNames: string[];
  selected: number | undefined;
  onSelect: (index: number) => void;
  onSplitChange: (split: string) => void;
}) {
  const id = useId();
  const info = useServerInfo(server);
  const numTasks = useNumTasks(server, env, split);
  const total = numTasks.data ?? 0;
  const [filter, setFilter] = useState("");
  const [jump, setJump] = useState("");
  const [jumpError, setJumpError] = useState<string | undefined>();
  const parentRef = useRef<HTMLDivElement>(null);
  const focusAfterRender = useRef<number | null>(null);
  const qc = useQueryClient();
  const q = filter.trim().toLowerCase();
  const filtering = q.length > 0;

  // Loaded tasks matching the filter (searches only what is already in the cache).
  const loaded = useMemo(() => {
    if (!filtering) return { matches: [] as number[], tasks: new Map<number, JsonObject>(), count: 0 };
    const tasks = new Map<number, JsonObject>();
    for (const [key, data] of qc.getQueriesData<JsonObject[]>({
      queryKey: orsKeys.taskPages(server, env, split),
    })) {
      const start = key[key.length - 2] as number;
      if (!data) continue;
      for (let i = 0; i < data.length; i++) tasks.set(start + i, data[i]!);
    }
    const matches = [...tasks.keys()]
      .filter((i) => taskSearchText(tasks.get(i)!).includes(q))
      .sort((a, b) => a - b);
    return { matches, tasks, count: tasks.size };
  }, [filtering, q, qc, server, env, split]);

  const count = filtering ? loaded.matches.length : total;
  const indexAt = (row: number) => (filtering ? loaded.matches[row]! : row);

  const virtualizer = useVirtualizer({
    count,
    getScrollElement: () => parentRef.current,
    estimateSize: () => ROW_HEIGHT,
    overscan: 8,
  });
  const items = virtualizer.getVirtualItems();

  // Pages under the visible rows; fetched once scrolling settles, so dragging the scrollbar
  // across 100,000 rows does not fire a request per page passed.
  const pages = useMemo(() => {
    if (filtering || items.length === 0 || total === 0) return [] as number[];
    const first = Math.floor(items[0]!.index / TASK_PAGE_SIZE);
    const last = Math.floor(items[items.length - 1]!.index / TASK_PAGE_SIZE);
    const out: number[] = [];
    for (let p = first; p <= last; p++) out.push(p);
    return out;
  }, [filtering, items, total]);
  const settled = !virtualizer.isScrolling;
  const pageResults = useQueries({
    queries: pages.map((p) => ({ ...taskPageQuery(server, env, split, p, total), enabled: settled })),
  });
  const selectedPage =
    selected !== undefined && selected < total ? Math.floor(selected / TASK_PAGE_SIZE) : undefined;
  const selectedPageQuery = useQuery({
    ...taskPageQuery(server, env, split, selectedPage ?? 0, total),
    enabled: selectedPage !== undefined && total > 0,
  });

  const taskAt = (index: number): JsonObject | undefined => {
    if (filtering) return loaded.tasks.get(index);
    const page = Math.floor(index / TASK_PAGE_SIZE);
    const i = pages.indexOf(page);
    const data = i >= 0 ? pageResults[i]?.data : page === selectedPage ? selectedPageQuery.data : undefined;
    return (data ?? qc.getQueryData<JsonObject[]>(taskPageQuery(server, env, split, page, total).queryKey))?.[
      index - page * TASK_PAGE_SIZE
    ];
  };
  const pageError = pageResults.find((r) => r.isError)?.error;

  // Scroll to the task named in the URL once the split's size is known.
  const scrolledInitially = useRef(false);
  useEffect(() => {
    if (scrolledInitially.current || total === 0) return;
    scrolledInitially.current = true;
    if (selected !== undefined && selected < total) virtualizer.scrollToIndex(selected, { align: "center" });
  }, [total, selected, virtualizer]);

  useEffect(() => {
    if (focusAfterRender.current === null) return;
    const el = parentRef.current?.querySelector<HTMLElement>(
      `[data-task-index="${focusAfterRender.current}"]`,
    );
    if (el) {
      el.focus({ preventScroll: true });
      focusAfterRender.current = null;
    }
  });

  const select = (index: number, focus = false) => {
    onSelect(index);
    if (focus) focusAfterRender.current = index;
  };

  const onListKeyDown = (e: KeyboardEvent<HTMLDivElement>) => {
    if (count === 0) return;
    const currentRow = selected === undefined ? -1 : filtering ? loaded.matches.indexOf(selected) : selected;
    const pageRows = Math.max(1, Math.floor((parentRef.current?.clientHeight ?? 280) / ROW_HEIGHT) - 1);
    let row: number | undefined;
    if (e.key === "ArrowDown") row = Math.min(count - 1, currentRow + 1);
    else if (e.key === "ArrowUp") row = Math.max(0, currentRow - 1);
    else if (e.key === "PageDown") row = Math.min(count - 1, currentRow + pageRows);
    else if (e.key === "PageUp") row = Math.max(0, currentRow - pageRows);
    else if (e.key === "Home") row = 0;
    else if (e.key === "End") row = count - 1;
    if (row === undefined) return;
    e.preventDefault();
    virtualizer.scrollToIndex(row, { align: "auto" });
    select(indexAt(row), true);
  };

  const onJump = () => {
    const raw = jump.trim();
    if (!/^-?\d+$/.test(raw)) {
      setJumpError("Enter a task index, e.g. 42");
      return;
    }
    let n = Number(raw);
    if (n < 0) n = total + n; // -1 is the last task, as in task_range
    if (n < 0 || n >= total) {
      setJumpError(
        `No task ${raw}: this split has ${total.toLocaleString("en-US")} (0–${Math.max(0, total - 1)})`,
      );
      return;
    }
    setJumpError(undefined);
    setFilter("");
    select(n);
    // After the filter clears, the list is the whole split again.
    requestAnimationFrame(() => virtualizer.scrollToIndex(n, { align: "center" }));
  };

  const selectedTask = selected !== undefined ? taskAt(selected) : undefined;
  const shareUrl =
    typeof window !== "undefined" && selected !== undefined
      ? new URL(
          envHref(server, env, { tab: "tasks", split, task: selected }),
          window.location.origin,
        ).toString()
      : "";

  return (
    <div className="grid gap-4 lg:grid-cols-[minmax(0,1fr)_minmax(0,1fr)]">
      <Card className="flex min-w-0 flex-col">
        <div className="flex flex-wrap items-end gap-2 border-b border-zinc-200 p-2 dark:border-zinc-800">
          <div className="space-y-1">
            <Label htmlFor={`${id}-split`}>Split</Label>
            <select
              id={`${id}-split`}
              value={split}
              onChange={(e) => onSplitChange(e.target.value)}
              className="block h-8 rounded-md border border-zinc-300 bg-white px-2 font-mono text-sm dark:border-zinc-700 dark:bg-zinc-900"
            >
              {splitNames.map((s) => (
                <option key={s} value={s}>
                  {s}
                </option>
              ))}
            </select>
          </div>
          <div className="w-36 space-y-1">
            <Label htmlFor={`${id}-jump`}>Jump to index</Label>
            <Input
              id={`${id}-jump`}
              inputMode="numeric"
              placeholder="0"
              value={jump}
              aria-invalid={jumpError ? true : undefined}
              aria-describedby={jumpError ? `${id}-jump-error` : undefined}
              onChange={(e) => {
                setJump(e.target.value);
                setJumpError(undefined);
              }}
              onKeyDown={(e) => {
                if (e.key === "Enter") {
                  e.preventDefault();
                  onJump();
                }
              }}
              className="font-mono"
            />
          </div>
          <div className="min-w-40 flex-1 space-y-1">
            <Label htmlFor={`${id}-filter`}>Filter loaded tasks</Label>
            <div className="relative">
              <Search
                aria-hidden="true"
                className="pointer-events-none absolute left-2 top-2 size-4 text-zinc-400"
              />
              <Input
                id={`${id}-filter`}
                type="search"
                placeholder="text in the task JSON"
                value={filter}
                onChange={(e) => setFilter(e.target.value)}
                className="pl-7"
              />
            </div>
          </div>
          {jumpError && (
            <div className="basis-full">
              <FieldError id={`${id}-jump-error`}>{jumpError}</FieldError>
            </div>
          )}
        </div>
        <p className="flex items-center gap-2 border-b border-zinc-100 px-3 py-1 text-[11px] text-zinc-500 dark:border-zinc-800">
          <span aria-live="polite">
            {numTasks.isPending ? (
              "Counting tasks…"
            ) : numTasks.isError ? (
              <span className="text-red-600 dark:text-red-400">Could not count tasks</span>
            ) : filtering ? (
              <>
                {loaded.matches.length.toLocaleString("en-US")} match{loaded.matches.length === 1 ? "" : "es"}{" "}
                in {loaded.count.toLocaleString("en-US")} loaded of {total.toLocaleString("en-US")} tasks
              </>
            ) : (
              <>
                {total.toLocaleString("en-US")} task{total === 1 ? "" : "s"} in{" "}
                <span className="font-mono">{split}</span>
              </>
            )}
          </span>
          <span className="ml-auto hidden items-center gap-1 sm:inline-flex">
            <Kbd>↑</Kbd>
            <Kbd>↓</Kbd> move
          </span>
        </p>
        {numTasks.isError ? (
          <div className="p-3">
            <ErrorPanel
              error={numTasks.error}
              context={{ server, serverUrl: info?.url, env }}
              onRetry={() => numTasks.refetch()}
            />
          </div>
        ) : (
          <section
            ref={parentRef}
            aria-label={`Tasks of ${split}`}
            onKeyDown={onListKeyDown}
            data-testid="task-list"
            className="relative h-[calc(100vh-22rem)] min-h-72 overflow-auto"
          >
            {numTasks.isPending ? (
              <div className="space-y-2 p-3">
                {[0, 1, 2, 3, 4, 5].map((i) => (
                  <Skeleton key={i} className="h-4" />
                ))}
              </div>
            ) : count === 0 ? (
              <p className="p-6 text-center text-xs text-zinc-500">
                {filtering
                  ? "No loaded task matches. The filter searches only tasks already loaded; scroll or jump to load more."
                  : "This split has no tasks."}
              </p>
            ) : (
              <div style={{ height: virtualizer.getTotalSize(), position: "relative" }}>
                {items.map((item) => {
                  const index = indexAt(item.index);
                  const t = taskAt(index);
                  const isSelected = index === selected;
                  return (
                    <button
                      key={item.key}
                      type="button"
                      data-task-index={index}
                      aria-label={`Task ${index}`}
                      aria-current={isSelected ? "true" : undefined}
                      tabIndex={isSelected || (selected === undefined && item.index === 0) ? 0 : -1}
                      onClick={() => select(index)}
                      className={cn(
                        "absolute left-0 top-0 flex w-full items-center gap-3 border-b border-zinc-100 px-3 text-left text-xs hover:bg-zinc-50 focus-visible:-outline-offset-2 dark:border-zinc-800/60 dark:hover:bg-zinc-900",
                        isSelected &&
                          "bg-indigo-50 hover:bg-indigo-50 dark:bg-indigo-950/50 dark:hover:bg-indigo-950/50",
                      )}
                      style={{ height: ROW_HEIGHT, transform: `translateY(${item.start}px)` }}
                    >
                      <span
                        className={cn(
                          "w-14 shrink-0 text-right font-mono tabular-nums text-zinc-500 dark:text-zinc-400",
                          isSelected && "font-semibold text-indigo-600 dark:text-indigo-400",
                        )}
                      >
                        {index}
                      </span>
                      {t ? (
                        <span className="min-w-0 flex-1 truncate font-mono text-zinc-700 dark:text-zinc-300">
                          {taskPreview(t)}
                        </span>
                      ) : (
                        <Skeleton className="h-3 flex-1" />
                      )}
                    </button>
                  );
                })}
              </div>
            )}
          </section>
        )}
        {pageError && (
          <div className="border-t border-zinc-200 p-2 dark:border-zinc-800">
            <ErrorPanel compact error={pageError} context={{ server, serverUrl: info?.url, env }} />
          </div>
        )}
      </Card>
      <div className="min-w-0">
        {selected === undefined ? (
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
        ) : (
          <Card className="flex flex-col">
            <div className="flex flex-wrap items-center gap-2 border-b border-zinc-200 px-3 py-2 dark:border-zinc-800">
              <h2 className="mr-auto text-sm font-semibold">
                Task <span className="font-mono">{selected}</span>
                <span className="ml-1 font-normal text-zinc-500">
                  of {total.toLocaleString("en-US")} · <span className="font-mono">{split}</span>
                </span>
              </h2>
              {shareUrl && <CopyButton text={shareUrl} label="Copy link" />}
              <Link
                href={newEpisodeHref(server, env, { split, index: selected })}
                className={buttonClasses("primary", "sm")}
              >
                <Play aria-hidden="true" />
                Start episode
              </Link>
            </div>
            <div className="p-3">
              {selected >= total && total > 0 ? (
                <ErrorPanel
                  error={{
                    status: 404,
                    detail: `Task ${selected} is out of range: ${split} has ${total} tasks`,
                  }}
                  context={{ what: "Task" }}
                />
              ) : selectedTask ? (
                <JsonView
                  value={selectedTask}
                  label={`Task ${selected} JSON`}
                  maxHeight="calc(100vh - 20rem)"
                />
              ) : selectedPageQuery.isError ? (
                <ErrorPanel
                  error={selectedPageQuery.error}
                  context={{ server, serverUrl: info?.url, env }}
                  onRetry={() => selectedPageQuery.refetch()}
                />
              ) : (
                <SkeletonBlock label={`Loading task ${selected}`} lines={6} />
              )}
              <p className="mt-2 flex items-center gap-1 text-[11px] text-zinc-500">
                <Link2 aria-hidden="true" className="size-3" />
                This view&apos;s URL reopens task {selected} of {split}.
              </p>
            </div>
          </Card>
        )}
      </div>
    </div>
  );
}
