// Which episodes a review queue holds (docs/review.md "Queues"): a seeded sample of a run's
// episodes, stratified by reward when asked — the episodes grouped by reward level, each group
// represented in proportion to its size (so the sample's rates stay those of the run) and every
// level at least once when the sample is large enough. Pure and isomorphic.
import { seededRandom } from "@/envs/shared/seeded-random";

export interface Sampled {
  id: string;
  reward: number | null;
}

/** At most this many reward groups: distinct values when there are few, else quantile bands. */
export const MAX_STRATA = 5;

/** The episodes in reward groups, lowest first (episodes without a reward last, a group of their own). */
export function strataOf<T extends Sampled>(items: readonly T[], maxStrata = MAX_STRATA): T[][] {
  const scored = items.filter((i) => i.reward !== null).sort((a, b) => a.reward! - b.reward!);
  const unscored = items.filter((i) => i.reward === null);
  const distinct = [...new Set(scored.map((i) => i.reward))];
  const groups: T[][] = [];
  if (distinct.length <= maxStrata) {
    for (const value of distinct) groups.push(scored.filter((i) => i.reward === value));
  } else {
    // Quantile bands of about equal size; ties never straddle two bands.
    const size = scored.length / maxStrata;
    let current: T[] = [];
    for (let i = 0; i < scored.length; i++) {
      current.push(scored[i]!);
      const next = scored[i + 1];
      const full = current.length >= size && groups.length < maxStrata - 1;
      if (!next || (full && next.reward !== scored[i]!.reward)) {
        groups.push(current);
        current = [];
      }
    }
  }
  if (unscored.length) groups.push(unscored);
  return groups;
}

/**
 * How many of `n` each group gets: proportional to its size by largest remainders, every group at
 * least one when n allows, never more than a group holds.
 */
export function allocate(sizes: readonly number[], n: number): number[] {
  const total = sizes.reduce((a, b) => a + b, 0);
  const want = Math.min(n, total);
  if (want === 0) return sizes.map(() => 0);
  const exact = sizes.map((s) => (s / total) * want);
  const out = exact.map(Math.floor);
  if (want >= sizes.filter((s) => s > 0).length)
    for (let i = 0; i < sizes.length; i++) if (sizes[i]! > 0 && out[i] === 0) out[i] = 1;
  let left = want - out.reduce((a, b) => a + b, 0);
  // Largest remainders first (ties by order); then take back from the largest when a floor of one overshot.
  const order = exact
    .map((e, i) => [e - Math.floor(e), i] as const)
    .sort((a, b) => b[0] - a[0] || a[1] - b[1]);
  for (const [, i] of order) {
    if (left <= 0) break;
    if (out[i]! < sizes[i]!) {
      out[i]!++;
      left--;
    }
  }
  while (left < 0) {
    const i = out.indexOf(Math.max(...out));
    out[i]!--;
    left++;
  }
  return out;
}

/** The first k of a seeded shuffle (Fisher–Yates). */
function pick<T>(items: readonly T[], k: number, rand: () => number): T[] {
  const a = [...items];
  for (let i = 0; i < Math.min(k, a.length); i++) {
    const j = i + Math.floor(rand() * (a.length - i));
    [a[i], a[j]] = [a[j]!, a[i]!];
  }
  return a.slice(0, k);
}

/**
 * A sample of n episodes (all of them when there are fewer), the same for the same seed: uniform, or
 * stratified by reward. The result keeps the episodes' order of `items`.
 */
export function sampleEpisodes<T extends Sampled>(
  items: readonly T[],
  n: number,
  o: { stratified?: boolean; seed?: number } = {},
): T[] {
  const rand = seededRandom(o.seed ?? 1);
  let chosen: T[];
  if (!o.stratified) chosen = pick(items, n, rand);
  else {
    const groups = strataOf(items);
    const counts = allocate(
      groups.map((g) => g.length),
      n,
    );
    chosen = groups.flatMap((g, i) => pick(g, counts[i]!, rand));
  }
  const keep = new Set(chosen);
  return items.filter((i) => keep.has(i));
}
