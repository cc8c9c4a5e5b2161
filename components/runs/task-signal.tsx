"use client";
// The per-task table's learning-signal column (docs/runs.md "Learning signal"): the chance a group
// of samples of the task gives a GRPO-style update a gradient, with its success rate p̂ and whether
// it is always failed or always solved; its header sorts the table by it.
import type { RunTaskRow } from "@/lib/runs/summary";
import { cn } from "@/lib/ui/cn";

export type SignalSort = "none" | "desc" | "asc";

/** The tasks by signal (unknown last), or as they came. */
export function sortBySignal(tasks: RunTaskRow[], sort: SignalSort): RunTaskRow[] {
  if (sort === "none") return tasks;
  const k = sort === "desc" ? -1 : 1;
  return [...tasks].sort((a, b) => {
    if (a.signal === null || b.signal === null) return a.signal === null ? (b.signal === null ? 0 : 1) : -1;
    return k * (a.signal - b.signal) || a.index - b.index;
  });
}

const NEXT: Record<SignalSort, SignalSort> = { none: "desc", desc: "asc", asc: "none" };

export function SignalHeader({ sort, onSort }: { sort: SignalSort; onSort: (s: SignalSort) => void }) {
  return (
    <th
      scope="col"
      className="text-right font-semibold"
      aria-sort={sort === "none" ? "none" : sort === "desc" ? "descending" : "ascending"}
    >
      <button
        type="button"
        className="font-semibold hover:underline"
        title="The chance a group of samples holds a success and a failure (a gradient): sort by it"
        onClick={() => onSort(NEXT[sort])}
      >
        Signal{sort === "desc" ? " ↓" : sort === "asc" ? " ↑" : ""}
      </button>
    </th>
  );
}

export function SignalCell({ task }: { task: RunTaskRow }) {
  if (task.signal === null) return <td className="text-right text-zinc-400">—</td>;
  return (
    <td
      className={cn("text-right font-mono tabular-nums", task.always && "text-zinc-400")}
      title={`p̂ = ${task.p!.toFixed(2)}${task.always ? ` (always ${task.always}: no gradient)` : ""}`}
    >
      {task.signal.toFixed(2)}
      {task.always && <span className="sr-only">, always {task.always}</span>}
    </td>
  );
}
