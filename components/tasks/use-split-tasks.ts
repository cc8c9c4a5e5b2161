"use client";
// The state of one split's task list: its size, the filter over the tasks already loaded, the
// virtualized rows (the first screenful rendered on the server too, so its rows are links from the
// first paint), the pages of tasks under the visible rows (fetched once scrolling settles), the
// selected task's page, and the keyboard moves through the rows.
import { useQueries, useQuery, useQueryClient } from "@tanstack/react-query";
import { useVirtualizer } from "@tanstack/react-virtual";
import { type KeyboardEvent, useEffect, useMemo, useRef, useState } from "react";
import type { JsonObject } from "@/lib/ors/protocol";
import { TASK_PAGE_SIZE, taskPageQuery, useNumTasks } from "@/lib/ui/queries";
import { orsKeys } from "@/lib/ui/query-keys";
import { taskSearchText } from "./task-preview";

export const ROW_HEIGHT = 28;
/** The rows the list lays out before it knows its own height (on the server, and at hydration). */
const FIRST_SCREEN_ROWS = 24;

/** Loaded tasks matching the filter (searches only what is already in the cache). */
function useLoadedMatches(server: string, env: string, split: string, q: string) {
  const qc = useQueryClient();
  return useMemo(() => {
    if (!q) return { matches: [] as number[], tasks: new Map<number, JsonObject>(), count: 0 };
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
  }, [q, qc, server, env, split]);
}

/** The pages of tasks under the visible rows, their queries, and the selected task's page. */
function useTaskPages(
  server: string,
  env: string,
  split: string,
  total: number,
  visible: { first: number; last: number } | null,
  settled: boolean,
  selected: number | undefined,
) {
  const qc = useQueryClient();
  // Fetched once scrolling settles, so dragging the scrollbar across 100,000 rows does not fire a
  // request per page passed.
  const pages = useMemo(() => {
    if (!visible || total === 0) return [] as number[];
    const out: number[] = [];
    for (
      let p = Math.floor(visible.first / TASK_PAGE_SIZE);
      p <= Math.floor(visible.last / TASK_PAGE_SIZE);
      p++
    )
      out.push(p);
    return out;
  }, [visible, total]);
  const pageResults = useQueries({
    queries: pages.map((p) => ({ ...taskPageQuery(server, env, split, p, total), enabled: settled })),
  });
  const selectedPage =
    selected !== undefined && selected < total ? Math.floor(selected / TASK_PAGE_SIZE) : undefined;
  const selectedPageQuery = useQuery({
    ...taskPageQuery(server, env, split, selectedPage ?? 0, total),
    enabled: selectedPage !== undefined && total > 0,
  });
  const pageTask = (index: number): JsonObject | undefined => {
    const page = Math.floor(index / TASK_PAGE_SIZE);
    const i = pages.indexOf(page);
    const data = i >= 0 ? pageResults[i]?.data : page === selectedPage ? selectedPageQuery.data : undefined;
    return (data ?? qc.getQueryData<JsonObject[]>(taskPageQuery(server, env, split, page, total).queryKey))?.[
      index - page * TASK_PAGE_SIZE
    ];
  };
  return { pageTask, pageError: pageResults.find((r) => r.isError)?.error, selectedPageQuery };
}

/** The next row for a navigation key, or undefined for any other key. */
function rowForKey(key: string, current: number, count: number, pageRows: number): number | undefined {
  if (key === "ArrowDown") return Math.min(count - 1, current + 1);
  if (key === "ArrowUp") return Math.max(0, current - 1);
  if (key === "PageDown") return Math.min(count - 1, current + pageRows);
  if (key === "PageUp") return Math.max(0, current - pageRows);
  if (key === "Home") return 0;
  if (key === "End") return count - 1;
  return undefined;
}

export function useSplitTasks(
  server: string,
  env: string,
  split: string,
  selected: number | undefined,
  onSelect: (index: number) => void,
) {
  const numTasks = useNumTasks(server, env, split);
  const total = numTasks.data ?? 0;
  const [filter, setFilter] = useState("");
  const q = filter.trim().toLowerCase();
  const filtering = q.length > 0;
  const loaded = useLoadedMatches(server, env, split, q);
  const parentRef = useRef<HTMLDivElement>(null);
  const focusAfterRender = useRef<number | null>(null);

  const count = filtering ? loaded.matches.length : total;
  const indexAt = (row: number) => (filtering ? loaded.matches[row]! : row);
  const virtualizer = useVirtualizer({
    count,
    getScrollElement: () => parentRef.current,
    estimateSize: () => ROW_HEIGHT,
    overscan: 8,
    initialRect: { width: 0, height: ROW_HEIGHT * FIRST_SCREEN_ROWS },
  });
  const items = virtualizer.getVirtualItems();
  const visible = useMemo(
    () =>
      filtering || items.length === 0
        ? null
        : { first: items[0]!.index, last: items[items.length - 1]!.index },
    [filtering, items],
  );
  const pages = useTaskPages(server, env, split, total, visible, !virtualizer.isScrolling, selected);
  const taskAt = (index: number) => (filtering ? loaded.tasks.get(index) : pages.pageTask(index));

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

  const onListKeyDown = (e: KeyboardEvent<HTMLElement>) => {
    if (count === 0) return;
    const current = selected === undefined ? -1 : filtering ? loaded.matches.indexOf(selected) : selected;
    const pageRows = Math.max(1, Math.floor((parentRef.current?.clientHeight ?? 280) / ROW_HEIGHT) - 1);
    const row = rowForKey(e.key, current, count, pageRows);
    if (row === undefined) return;
    e.preventDefault();
    virtualizer.scrollToIndex(row, { align: "auto" });
    select(indexAt(row), true);
  };

  /** Selects task `n` (negative: from the end) and scrolls to it; an error message when there is none. */
  const jumpTo = (raw: string): string | undefined => {
    if (!/^-?\d+$/.test(raw)) return "Enter a task index, e.g. 42";
    let n = Number(raw);
    if (n < 0) n = total + n; // -1 is the last task, as in task_range
    if (n < 0 || n >= total)
      return `No task ${raw}: this split has ${total.toLocaleString("en-US")} (0–${Math.max(0, total - 1)})`;
    setFilter("");
    select(n);
    // After the filter clears, the list is the whole split again.
    requestAnimationFrame(() => virtualizer.scrollToIndex(n, { align: "center" }));
    return undefined;
  };

  return {
    numTasks,
    total,
    filter,
    setFilter,
    filtering,
    loaded,
    count,
    indexAt,
    virtualizer,
    items,
    parentRef,
    taskAt,
    pageError: pages.pageError,
    selectedPageQuery: pages.selectedPageQuery,
    select,
    onListKeyDown,
    jumpTo,
  };
}

export type SplitTasksState = ReturnType<typeof useSplitTasks>;

/** What the list's parts are given: where the list is, the selected task, and the list's state. */
export interface SplitView {
  server: string;
  env: string;
  split: string;
  selected: number | undefined;
  list: SplitTasksState;
}
