"use client";
// A run's per-task table: each repeat's reward (every cell opens its trajectory), the mean, the
// spread, whether the task succeeded, and (two repeats or more) its learning signal, sortable.
// Virtualized (@tanstack/react-virtual), so a run of 10,000 tasks renders only the rows on screen; filter by outcome, jump to a task (`?task=N`
// highlights and scrolls to it, which is where a trajectory's "part of run" link leads back).
import Link from "next/link";
import { useEffect, useMemo, useRef, useState } from "react";
import { Card, CardHeader, CardTitle } from "@/components/ui/card";
import { Form } from "@/components/ui/form";
import { FieldError, Input, Label } from "@/components/ui/input";
import { trajectoryHref } from "@/lib/routes";
import type { RunTaskRow } from "@/lib/runs/summary";
import { formatReward, rewardLabel } from "@/lib/trajectory/reward";
import { cn } from "@/lib/ui/cn";
import { ShowSelect } from "./form-fields";
import { SignalCell, SignalHeader, type SignalSort, sortBySignal } from "./task-signal";
import { useVirtualRows, VirtualTable } from "./virtual-table";

const ROW = 32;
type Outcome = "all" | "succeeded" | "failed" | "incomplete";
const SHOWN: Record<Outcome, string> = {
  all: "all tasks",
  succeeded: "succeeded",
  failed: "failed",
  incomplete: "not all attempts done",
};

function matches(t: RunTaskRow, o: Outcome): boolean {
  if (o === "succeeded") return t.succeeded === true;
  if (o === "failed") return t.succeeded === false;
  if (o === "incomplete") return t.completed < t.rewards.length;
  return true;
}

/** The table's toolbar: the outcome filter, "Go to task", and how many rows show. */
function Toolbar({
  outcome,
  setOutcome,
  onJump,
  jumpError,
  shown,
  total,
}: {
  outcome: Outcome;
  setOutcome: (o: Outcome) => void;
  onJump: (raw: string) => void;
  jumpError: string | undefined;
  shown: number;
  total: number;
}) {
  const [jump, setJump] = useState("");
  return (
    <div className="flex flex-wrap items-end gap-3">
      <div className="flex items-center gap-1.5">
        <ShowSelect<Outcome> id="task-outcome" value={outcome} onChange={setOutcome} labels={SHOWN} />
      </div>
      <Form className="flex items-center gap-1.5" onSubmit={() => onJump(jump.trim())}>
        <Label htmlFor="task-jump">Go to task</Label>
        <Input
          id="task-jump"
          inputMode="numeric"
          className="h-7 w-20 text-xs"
          value={jump}
          aria-invalid={!!jumpError}
          aria-describedby={jumpError ? "task-jump-error" : undefined}
          onChange={(e) => setJump(e.target.value)}
        />
      </Form>
      <span className="text-xs text-zinc-500" role="status">
        {shown === total
          ? `${shown.toLocaleString("en-US")} tasks`
          : `${shown.toLocaleString("en-US")} of ${total.toLocaleString("en-US")} tasks`}
      </span>
    </div>
  );
}

/** The task rows under the filter, the selected task, and going to one (`?task=` or "Go to task"). */
function useTaskRows(tasks: RunTaskRow[], highlight: number | null) {
  const [outcome, setOutcome] = useState<Outcome>("all");
  const [jumpError, setJumpError] = useState<string>();
  const [selected, setSelected] = useState<number | null>(highlight);
  const [bySignal, setBySignal] = useState<SignalSort>("none");
  const rows = useMemo(
    () => sortBySignal(outcome === "all" ? tasks : tasks.filter((t) => matches(t, outcome)), bySignal),
    [tasks, outcome, bySignal],
  );
  const virtual = useVirtualRows(rows.length, ROW);
  const scrollTo = (index: number) => {
    const row = rows.findIndex((t) => t.index === index);
    if (row >= 0) virtual.virtualizer.scrollToIndex(row, { align: "center" });
    return row >= 0;
  };
  // The task named in the URL, once its row exists.
  const scrolled = useRef(false);
  useEffect(() => {
    if (scrolled.current || highlight === null || rows.length === 0) return;
    scrolled.current = true;
    scrollTo(highlight);
  });
  const onJump = (raw: string) => {
    const n = Number(raw);
    if (!/^\d+$/.test(raw) || !tasks.some((t) => t.index === n)) {
      setJumpError(`Task ${raw || "?"} is not in this run`);
      return;
    }
    setJumpError(undefined);
    setSelected(n);
    if (!scrollTo(n)) {
      setOutcome("all");
      requestAnimationFrame(() =>
        virtual.virtualizer.scrollToIndex(
          tasks.findIndex((t) => t.index === n),
          { align: "center" },
        ),
      );
    }
  };
  return {
    outcome,
    setOutcome,
    bySignal,
    setBySignal,
    rows,
    virtual,
    selected,
    setSelected,
    jumpError,
    onJump,
  };
}

function Header({
  repeats,
  signal,
}: {
  repeats: number;
  /** The signal column's sort, when the table has one (two repeats or more). */
  signal: { sort: SignalSort; onSort: (s: SignalSort) => void } | null;
}) {
  return (
    <>
      <th scope="col" className="font-semibold">
        Task
      </th>
      {Array.from({ length: repeats }, (_, r) => (
        <th scope="col" key={r} className="text-center font-semibold">
          {repeats === 1 ? "Reward" : `#${r + 1}`}
        </th>
      ))}
      {["Mean", "Spread", "Succeeded"].map((h) => (
        <th scope="col" key={h} className="text-right font-semibold">
          {h}
        </th>
      ))}
      {signal && <SignalHeader sort={signal.sort} onSort={signal.onSort} />}
    </>
  );
}

function Cells({
  t,
  repeats,
  successAt,
  withSignal,
  onOpen,
}: {
  t: RunTaskRow;
  repeats: number;
  successAt: number;
  withSignal: boolean;
  onOpen: () => void;
}) {
  return (
    <>
      <th scope="row" className="text-left font-mono font-medium">
        {t.index}
      </th>
      {t.rewards.map((reward, r) => (
        <td key={r} className="text-center">
          <RewardCell
            task={t.index}
            repeat={r}
            repeats={repeats}
            reward={reward}
            episodeId={t.episodeIds[r] ?? null}
            success={reward !== null && reward >= successAt}
            onOpen={onOpen}
          />
        </td>
      ))}
      <td className="text-right font-mono tabular-nums">{formatReward(t.mean, { digits: 3 })}</td>
      <td className="text-right font-mono tabular-nums text-zinc-500">
        {formatReward(t.spread, { digits: 3 })}
      </td>
      <td className="text-right">
        {t.succeeded === null ? (
          <span className="text-zinc-400">—</span>
        ) : t.succeeded ? (
          <span className="text-emerald-700 dark:text-emerald-400">yes</span>
        ) : (
          <span className="text-red-700 dark:text-red-400">no</span>
        )}
      </td>
      {withSignal && <SignalCell task={t} />}
    </>
  );
}

export function TaskTable({
  tasks,
  repeats,
  successAt,
  highlight,
}: {
  tasks: RunTaskRow[];
  repeats: number;
  successAt: number;
  /** The task to show first (from `?task=`). */
  highlight: number | null;
}) {
  const table = useTaskRows(tasks, highlight);
  const { rows, selected } = table;
  const withSignal = repeats >= 2;
  return (
    <Card>
      <CardHeader className="flex-wrap">
        <CardTitle id="tasks-heading">Tasks</CardTitle>
        <Toolbar
          outcome={table.outcome}
          setOutcome={table.setOutcome}
          onJump={table.onJump}
          jumpError={table.jumpError}
          shown={rows.length}
          total={tasks.length}
        />
      </CardHeader>
      {table.jumpError && (
        <div className="px-3 pt-2">
          <FieldError id="task-jump-error">{table.jumpError}</FieldError>
        </div>
      )}
      <VirtualTable
        rows={table.virtual}
        count={rows.length}
        labelledBy="tasks-heading"
        // Repeats beyond a few scroll sideways with the rest of the row.
        cols={`5rem repeat(${repeats}, minmax(3.5rem, 1fr)) 4.5rem 4.5rem 5.5rem${withSignal ? " 5rem" : ""}`}
        minWidth={`${5 + repeats * 3.5 + 14.5 + (withSignal ? 5 : 0)}rem`}
        gap="gap-1"
        header={
          <Header
            repeats={repeats}
            signal={withSignal ? { sort: table.bySignal, onSort: table.setBySignal } : null}
          />
        }
        empty="No task matches."
        rowKey={(i) => rows[i]!.index}
        rowAttributes={(i) => ({
          "data-task": rows[i]!.index,
          className: cn(
            selected === rows[i]!.index &&
              "bg-indigo-50 ring-1 ring-inset ring-indigo-300 dark:bg-indigo-950 dark:ring-indigo-800",
          ),
        })}
        row={(i) => (
          <Cells
            t={rows[i]!}
            repeats={repeats}
            successAt={successAt}
            withSignal={withSignal}
            onOpen={() => table.setSelected(rows[i]!.index)}
          />
        )}
        scrollerTestId="task-table-scroller"
      />
    </Card>
  );
}

function RewardCell({
  task,
  repeat,
  repeats,
  reward,
  episodeId,
  success,
  onOpen,
}: {
  task: number;
  repeat: number;
  repeats: number;
  reward: number | null;
  episodeId: string | null;
  success: boolean;
  onOpen: () => void;
}) {
  const which = repeats === 1 ? `Task ${task}` : `Task ${task}, repeat ${repeat + 1}`;
  if (!episodeId)
    return (
      <span className="text-zinc-400" title={`${which}: not played yet`}>
        ·
      </span>
    );
  return (
    <Link
      href={trajectoryHref(episodeId)}
      prefetch={false}
      onClick={onOpen}
      aria-label={`${which}: ${reward === null ? "no reward (not completed)" : `reward ${rewardLabel(reward)}`}`}
      className={cn(
        "inline-block min-w-10 rounded px-1.5 py-0.5 font-mono tabular-nums hover:ring-1 hover:ring-indigo-400",
        reward === null
          ? "bg-zinc-100 text-zinc-500 dark:bg-zinc-800"
          : success
            ? "bg-emerald-50 text-emerald-800 dark:bg-emerald-950 dark:text-emerald-300"
            : "bg-red-50 text-red-800 dark:bg-red-950 dark:text-red-300",
      )}
    >
      {formatReward(reward, { digits: 3 })}
    </Link>
  );
}
