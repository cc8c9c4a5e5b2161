// Which tasks a run plays (docs/runs.md "Task selection"): a selection as asked — all, a range, a
// list, a seeded sample — turned into the split's task indexes, checked against its size.
// Isomorphic.
import { seededRandom } from "@/envs/shared/seeded-random";
import type { TaskSelection } from "./spec";

export class TaskSelectionError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "TaskSelectionError";
  }
}

const RANGE = /^(\d+)\s*-\s*(\d+)$/;
const SAMPLE = /^sample:(\d+)(?::(-?\d+))?$/;

/** `n` distinct indexes of 0..size-1 drawn with `seed` (the same every time), in increasing order. */
export function sampleIndexes(size: number, n: number, seed: number): number[] {
  if (n > size) throw new TaskSelectionError(`a sample of ${n} tasks from a split of ${size}`);
  const rand = seededRandom(seed);
  // A partial Fisher–Yates shuffle over a sparse map: O(n) whatever the split's size.
  const swapped = new Map<number, number>();
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const j = i + Math.floor(rand() * (size - i));
    const vi = swapped.get(i) ?? i;
    const vj = swapped.get(j) ?? j;
    swapped.set(j, vi);
    out.push(vj);
  }
  return out.sort((a, b) => a - b);
}

/**
 * The task indexes of a selection for a split of `size` tasks (default: all). Duplicates are
 * refused, as are indexes beyond the split; a list keeps its order.
 */
export function resolveTasks(selection: TaskSelection | undefined, size: number): number[] {
  const beyond = (i: number) =>
    new TaskSelectionError(
      `task ${i} is beyond the split (it has ${size} task${size === 1 ? "" : "s"}: 0-${size - 1})`,
    );
  if (selection === undefined || selection === "all") {
    if (size === 0) throw new TaskSelectionError("the split has no tasks");
    return Array.from({ length: size }, (_, i) => i);
  }
  if (typeof selection === "object" && !Array.isArray(selection))
    return sampleIndexes(size, selection.sample, selection.seed ?? 1);
  let list: number[];
  if (Array.isArray(selection)) list = [...selection];
  else {
    const sample = SAMPLE.exec(selection.replace(/\s+/g, ""));
    if (sample)
      return sampleIndexes(size, Number(sample[1]), sample[2] === undefined ? 1 : Number(sample[2]));
    list = [];
    for (const part of selection.split(",")) {
      const p = part.trim();
      const range = RANGE.exec(p);
      if (range) {
        const [from, to] = [Number(range[1]), Number(range[2])];
        if (to < from) throw new TaskSelectionError(`the range ${p} ends before it starts`);
        if (to >= size) throw beyond(to);
        for (let i = from; i <= to; i++) list.push(i);
      } else if (/^\d+$/.test(p)) list.push(Number(p));
      else
        throw new TaskSelectionError(
          `${JSON.stringify(p)} is not a task selection: all, a range (20-59), a list (1,5,9 or 0-9,20-29) or sample:N[:SEED]`,
        );
    }
  }
  const seen = new Set<number>();
  for (const i of list) {
    if (i >= size) throw beyond(i);
    if (seen.has(i)) throw new TaskSelectionError(`task ${i} is selected twice`);
    seen.add(i);
  }
  if (!list.length) throw new TaskSelectionError("no task selected");
  return list;
}
