// The statistics of runs (docs/runs.md "Results"), as evaluation practice computes them: the mean
// with a 95% interval (Student's t), pass@k with the unbiased estimator (n attempts, c successes:
// 1 − C(n−c, k) / C(n, k)), and the paired comparison of two runs task by task. Pure functions,
// isomorphic; tests/runs/stats.test.ts checks them against values computed by hand.

/** Two-sided 95% critical values of Student's t for 1–30 degrees of freedom. */
const T95 = [
  12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.16, 2.145, 2.131,
  2.12, 2.11, 2.101, 2.093, 2.086, 2.08, 2.074, 2.069, 2.064, 2.06, 2.056, 2.052, 2.048, 2.045, 2.042,
];
const Z95 = 1.959964;

/** The two-sided 95% critical value of Student's t with `df` degrees of freedom. */
export function tCritical95(df: number): number {
  if (df < 1) return Number.NaN;
  if (df <= 30) return T95[Math.floor(df) - 1]!;
  // Cornish–Fisher expansion around the normal quantile (error < 1e-4 from 31 on).
  const z = Z95;
  return z + (z ** 3 + z) / (4 * df) + (5 * z ** 5 + 16 * z ** 3 + 3 * z) / (96 * df ** 2);
}

export interface MeanInterval {
  n: number;
  mean: number | null;
  /** The sample standard deviation (n − 1), null below 2 values. */
  std: number | null;
  /** The 95% interval of the mean (t with n − 1 degrees of freedom), null below 2 values. */
  ci95: [number, number] | null;
}

/** Mean, spread and 95% interval from a count, a sum and a sum of squares. */
export function meanInterval(n: number, sum: number, sumSquares: number): MeanInterval {
  if (n === 0) return { n, mean: null, std: null, ci95: null };
  const mean = sum / n;
  if (n < 2) return { n, mean, std: null, ci95: null };
  const variance = Math.max(0, (sumSquares - n * mean * mean) / (n - 1));
  const std = Math.sqrt(variance);
  const half = tCritical95(n - 1) * (std / Math.sqrt(n));
  return { n, mean, std, ci95: [mean - half, mean + half] };
}

/** The same, from the values. */
export function intervalOf(values: readonly number[]): MeanInterval {
  let sum = 0;
  let sumSquares = 0;
  for (const v of values) {
    sum += v;
    sumSquares += v * v;
  }
  if (values.length < 2) return meanInterval(values.length, sum, sumSquares);
  // Two passes for the spread: sums of squares lose precision when values are large.
  const mean = sum / values.length;
  let ss = 0;
  for (const v of values) ss += (v - mean) ** 2;
  const std = Math.sqrt(ss / (values.length - 1));
  const half = tCritical95(values.length - 1) * (std / Math.sqrt(values.length));
  return { n: values.length, mean, std, ci95: [mean - half, mean + half] };
}

/**
 * The unbiased pass@k of one task: n attempts, c of them successes, 1 − C(n−c, k) / C(n, k),
 * computed as a product (no large binomials). Null when there are fewer than k attempts.
 */
export function passAtK(n: number, c: number, k: number): number | null {
  if (k < 1 || n < k) return null;
  if (n - c < k) return 1;
  let failAll = 1;
  for (let i = n - c + 1; i <= n; i++) failAll *= 1 - k / i;
  return 1 - failAll;
}

/** A run's pass@k for k = 1..maxK: the mean over the tasks with at least k completed attempts. */
export function passAtKs(
  tasks: readonly { completed: number; successes: number }[],
  maxK: number,
): Record<string, number | null> {
  const out: Record<string, number | null> = {};
  for (let k = 1; k <= maxK; k++) {
    let sum = 0;
    let n = 0;
    for (const t of tasks) {
      const p = passAtK(t.completed, t.successes, k);
      if (p === null) continue;
      sum += p;
      n++;
    }
    out[String(k)] = n ? sum / n : null;
  }
  return out;
}

/**
 * Whether a task succeeded in a run: at least half of its completed attempts succeeded (with one
 * repeat: that attempt). Null when no attempt completed. What `gained`/`lost` and JUnit count.
 */
export function taskSucceeded(t: { completed: number; successes: number }): boolean | null {
  return t.completed ? t.successes / t.completed >= 0.5 : null;
}

/** One side of a compared task. */
export interface CompareSide {
  rewards: (number | null)[];
  mean: number | null;
  successes: number;
  completed: number;
  succeeded: boolean | null;
}

export interface ComparedTask {
  index: number;
  a: CompareSide | null;
  b: CompareSide | null;
  /** b's mean reward − a's (null unless both have one). */
  delta: number | null;
}

export interface Comparison {
  tasks: ComparedTask[];
  /** Failed in A, succeeded in B. */
  gained: number[];
  /** Succeeded in A, failed in B. */
  lost: number[];
  /** The tasks both runs completed, compared pairwise. */
  paired: number;
  meanDelta: number | null;
  ci95: [number, number] | null;
}

export interface TaskRewards {
  index: number;
  rewards: (number | null)[];
  completed: number;
  successes: number;
}

function side(t: TaskRewards | undefined): CompareSide | null {
  if (!t) return null;
  const done = t.rewards.filter((r): r is number => r !== null);
  return {
    rewards: t.rewards,
    mean: done.length ? done.reduce((a, b) => a + b, 0) / done.length : null,
    successes: t.successes,
    completed: t.completed,
    succeeded: taskSucceeded(t),
  };
}

/**
 * Two runs task by task, paired: each task's mean reward in B minus in A, the tasks that flipped,
 * and the mean difference with its paired 95% interval (t over the per-task differences).
 */
export function compareRuns(a: readonly TaskRewards[], b: readonly TaskRewards[]): Comparison {
  const byA = new Map(a.map((t) => [t.index, t]));
  const byB = new Map(b.map((t) => [t.index, t]));
  const indexes = [...new Set([...byA.keys(), ...byB.keys()])].sort((x, y) => x - y);
  const tasks: ComparedTask[] = [];
  const gained: number[] = [];
  const lost: number[] = [];
  const deltas: number[] = [];
  for (const index of indexes) {
    const sa = side(byA.get(index));
    const sb = side(byB.get(index));
    const delta = sa?.mean != null && sb?.mean != null ? sb.mean - sa.mean : null;
    if (delta !== null) deltas.push(delta);
    if (sa?.succeeded === false && sb?.succeeded === true) gained.push(index);
    if (sa?.succeeded === true && sb?.succeeded === false) lost.push(index);
    tasks.push({ index, a: sa, b: sb, delta });
  }
  const d = intervalOf(deltas);
  return { tasks, gained, lost, paired: deltas.length, meanDelta: d.mean, ci95: d.ci95 };
}
