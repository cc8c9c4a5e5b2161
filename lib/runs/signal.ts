// The learning signal of a run's tasks (docs/runs.md "Learning signal"): for runs of k ≥ 2 repeats,
// each task's success rate p̂, whether it is always failed or always solved, and the chance that a
// group of G samples holds both a success and a failure, 1 − p̂^G − (1 − p̂)^G — a GRPO-style update
// learns nothing from a group without both. Pure functions, isomorphic (checked by hand in
// tests/runs/signal.test.ts).

/** The chance that `group` samples of a task with success rate `p` hold a success and a failure. */
export function groupSignal(p: number, group: number): number {
  if (group < 2) return 0;
  const v = 1 - p ** group - (1 - p) ** group;
  // Float noise around 0 (p = 0 or 1) is none at all.
  return Math.abs(v) < 1e-12 ? 0 : v;
}

export interface TaskSignal {
  index: number;
  /** Its success rate over its counted attempts (null: none counted). */
  p: number | null;
  signal: number | null;
  /** `failed` when no counted attempt succeeded, `solved` when all did (with two or more). */
  always: "failed" | "solved" | null;
}

export interface LearningSignal {
  /** G: the group size the signal is computed for (default: the run's repeats). */
  group: number;
  /** Tasks with at least two counted attempts (those the figures are over). */
  tasks: number;
  alwaysFailed: number;
  alwaysSolved: number;
  /** The tasks whose every group gives no gradient (always failed or always solved), as a fraction. */
  noGradient: number | null;
  /** The mean chance of a group with both outcomes (a gradient), over the tasks. */
  meanSignal: number | null;
}

/** One task's signal from its counted attempts and successes. */
export function taskSignal(
  t: { index: number; completed: number; successes: number },
  group: number,
): TaskSignal {
  if (t.completed === 0) return { index: t.index, p: null, signal: null, always: null };
  const p = t.successes / t.completed;
  const always = t.completed < 2 ? null : p === 0 ? "failed" : p === 1 ? "solved" : null;
  return { index: t.index, p, signal: groupSignal(p, group), always };
}

/** The run's learning signal over its tasks; null below two repeats (one sample says nothing of p). */
export function learningSignal(
  tasks: readonly { index: number; completed: number; successes: number }[],
  repeats: number,
  group = repeats,
): LearningSignal | null {
  if (repeats < 2) return null;
  let n = 0;
  let sum = 0;
  let alwaysFailed = 0;
  let alwaysSolved = 0;
  for (const t of tasks) {
    if (t.completed < 2) continue;
    const s = taskSignal(t, group);
    n++;
    sum += s.signal!;
    if (s.always === "failed") alwaysFailed++;
    if (s.always === "solved") alwaysSolved++;
  }
  return {
    group,
    tasks: n,
    alwaysFailed,
    alwaysSolved,
    noGradient: n ? (alwaysFailed + alwaysSolved) / n : null,
    meanSignal: n ? sum / n : null,
  };
}
