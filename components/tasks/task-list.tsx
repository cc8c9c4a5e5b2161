"use client";
// The parts of a split's task list: the toolbar (split, jump to an index, filter), the line that
// counts the tasks, and the virtualized rows. Jump to index is a real form and every row a real
// link to its task's view, so both work on the server-rendered page before React has hydrated it.
import { Search } from "lucide-react";
import { type ReactNode, useId, useState } from "react";
import { Form } from "@/components/ui/form";
import { FieldError, Input, Label } from "@/components/ui/input";
import { Kbd } from "@/components/ui/kbd";
import { ServerQueryError } from "@/components/ui/server-query-error";
import { Skeleton } from "@/components/ui/skeleton";
import { envHref } from "@/lib/routes";
import { cn } from "@/lib/ui/cn";
import { taskPreview } from "./task-preview";
import { ROW_HEIGHT, type SplitTasksState, type SplitView } from "./use-split-tasks";

/** A click the browser should handle itself (a new tab or window). */
const modified = (e: {
  button: number;
  metaKey: boolean;
  ctrlKey: boolean;
  shiftKey: boolean;
  altKey: boolean;
}) => e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey;

/** "Jump to index": a GET form of the tasks view (before hydration the browser submits it). */
function JumpForm({
  id,
  action,
  split,
  list,
  error,
  setError,
}: {
  id: string;
  action: string;
  split: string;
  list: SplitTasksState;
  error: string | undefined;
  setError: (error: string | undefined) => void;
}) {
  const [jump, setJump] = useState("");
  return (
    <Form
      method="get"
      action={action}
      className="w-36 space-y-1"
      onSubmit={() => setError(list.jumpTo(jump.trim()))}
    >
      <input type="hidden" name="tab" value="tasks" />
      <input type="hidden" name="split" value={split} />
      <Label htmlFor={`${id}-jump`}>Jump to index</Label>
      <Input
        id={`${id}-jump`}
        name="task"
        inputMode="numeric"
        placeholder="0"
        value={jump}
        aria-invalid={error ? true : undefined}
        aria-describedby={error ? `${id}-jump-error` : undefined}
        onChange={(e) => {
          setJump(e.target.value);
          setError(undefined);
        }}
        className="font-mono"
      />
    </Form>
  );
}

/** Which split's tasks are listed, the splits to choose from, and where a choice goes. */
export interface SplitPlace {
  server: string;
  env: string;
  split: string;
  splitNames: string[];
  onSplitChange: (split: string) => void;
}

export function TaskListToolbar({
  server,
  env,
  split,
  splitNames,
  onSplitChange,
  list,
}: SplitPlace & { list: SplitTasksState }) {
  const id = useId();
  const [jumpError, setJumpError] = useState<string | undefined>();
  return (
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
      <JumpForm
        id={id}
        action={envHref(server, env)}
        split={split}
        list={list}
        error={jumpError}
        setError={setJumpError}
      />
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
            value={list.filter}
            onChange={(e) => list.setFilter(e.target.value)}
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
  );
}

export function TaskCountLine({ split, list }: { split: string; list: SplitTasksState }) {
  const { numTasks, filtering, loaded, total } = list;
  let text: ReactNode;
  if (numTasks.isPending) text = "Counting tasks…";
  else if (numTasks.isError)
    text = <span className="text-red-600 dark:text-red-400">Could not count tasks</span>;
  else if (filtering)
    text = (
      <>
        {loaded.matches.length.toLocaleString("en-US")} match{loaded.matches.length === 1 ? "" : "es"} in{" "}
        {loaded.count.toLocaleString("en-US")} loaded of {total.toLocaleString("en-US")} tasks
      </>
    );
  else
    text = (
      <>
        {total.toLocaleString("en-US")} task{total === 1 ? "" : "s"} in{" "}
        <span className="font-mono">{split}</span>
      </>
    );
  return (
    <p className="flex items-center gap-2 border-b border-zinc-100 px-3 py-1 text-[11px] text-zinc-500 dark:border-zinc-800">
      <span aria-live="polite">{text}</span>
      <span className="ml-auto hidden items-center gap-1 sm:inline-flex">
        <Kbd>↑</Kbd>
        <Kbd>↓</Kbd> move
      </span>
    </p>
  );
}

/** One task's row: a link to its view (`?tab=tasks&split=&task=`), selected in place once hydrated. */
function TaskRow({
  href,
  index,
  start,
  selected,
  focusable,
  task,
  onSelect,
}: {
  href: string;
  index: number;
  start: number;
  selected: boolean;
  focusable: boolean;
  task: Record<string, unknown> | undefined;
  onSelect: () => void;
}) {
  return (
    <a
      href={href}
      data-task-index={index}
      aria-label={`Task ${index}`}
      aria-current={selected ? "true" : undefined}
      tabIndex={focusable ? 0 : -1}
      onClick={(e) => {
        if (modified(e)) return;
        e.preventDefault();
        onSelect();
      }}
      className={cn(
        "absolute left-0 top-0 flex w-full items-center gap-3 border-b border-zinc-100 px-3 text-left text-xs hover:bg-zinc-50 focus-visible:-outline-offset-2 dark:border-zinc-800/60 dark:hover:bg-zinc-900",
        selected && "bg-indigo-50 hover:bg-indigo-50 dark:bg-indigo-950/50 dark:hover:bg-indigo-950/50",
      )}
      style={{ height: ROW_HEIGHT, transform: `translateY(${start}px)` }}
    >
      <span
        className={cn(
          "w-14 shrink-0 text-right font-mono tabular-nums text-zinc-500 dark:text-zinc-400",
          selected && "font-semibold text-indigo-600 dark:text-indigo-400",
        )}
      >
        {index}
      </span>
      {task ? (
        <span className="min-w-0 flex-1 truncate font-mono text-zinc-700 dark:text-zinc-300">
          {taskPreview(task)}
        </span>
      ) : (
        <Skeleton className="h-3 flex-1" />
      )}
    </a>
  );
}

export function TaskRows({ server, env, split, selected, list }: SplitView) {
  const { numTasks, count, filtering, items, virtualizer } = list;
  if (numTasks.isError)
    return (
      <div className="p-3">
        <ServerQueryError query={numTasks} server={server} env={env} />
      </div>
    );
  let body: ReactNode;
  if (numTasks.isPending)
    body = (
      <div className="space-y-2 p-3">
        {[0, 1, 2, 3, 4, 5].map((i) => (
          <Skeleton key={i} className="h-4" />
        ))}
      </div>
    );
  else if (count === 0)
    body = (
      <p className="p-6 text-center text-xs text-zinc-500">
        {filtering
          ? "No loaded task matches. The filter searches only tasks already loaded; scroll or jump to load more."
          : "This split has no tasks."}
      </p>
    );
  else
    body = (
      <div style={{ height: virtualizer.getTotalSize(), position: "relative" }}>
        {items.map((item) => {
          const index = list.indexAt(item.index);
          return (
            <TaskRow
              key={item.key}
              href={envHref(server, env, { tab: "tasks", split, task: index })}
              index={index}
              start={item.start}
              selected={index === selected}
              focusable={index === selected || (selected === undefined && item.index === 0)}
              task={list.taskAt(index)}
              onSelect={() => list.select(index)}
            />
          );
        })}
      </div>
    );
  return (
    <section
      ref={list.parentRef}
      aria-label={`Tasks of ${split}`}
      onKeyDown={list.onListKeyDown}
      data-testid="task-list"
      className="relative h-[calc(100vh-22rem)] min-h-72 overflow-auto"
    >
      {body}
    </section>
  );
}
