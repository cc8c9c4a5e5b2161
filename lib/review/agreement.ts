// How far an environment's reward can be trusted (docs/review.md "Verifier agreement"): the
// confusion matrix of the verifier's success against the human verdict, its false-positive and
// false-negative rates with Wilson 95% intervals, and Cohen's κ between two reviewers. Pure and
// isomorphic; tests/review/agreement.test.ts checks every figure against a hand computation.

const Z95 = 1.959964;

/** A proportion k of n with its Wilson 95% interval (null when n is 0). */
export interface Proportion {
  k: number;
  n: number;
  rate: number | null;
  ci95: [number, number] | null;
}

/**
 * The Wilson score interval of k successes in n trials at 95%: unlike the normal approximation it
 * stays inside [0, 1] and is honest at 0 of n or n of n, which review samples often are.
 */
export function wilson95(k: number, n: number): [number, number] | null {
  if (n <= 0) return null;
  const p = k / n;
  const z2 = Z95 * Z95;
  const centre = (p + z2 / (2 * n)) / (1 + z2 / n);
  const half = (Z95 * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n))) / (1 + z2 / n);
  return [Math.max(0, centre - half), Math.min(1, centre + half)];
}

export function proportion(k: number, n: number): Proportion {
  return { k, n, rate: n ? k / n : null, ci95: wilson95(k, n) };
}

/** One judged episode: what the verifier said (success) and what people said (correct). */
export interface Judged {
  id: string;
  verifier: boolean;
  human: boolean;
}

/**
 * The episodes in each cell (verifier × human): `tp` the verifier rewarded a correct episode, `fp`
 * it rewarded an incorrect one, `fn` it failed a correct one, `tn` it failed an incorrect one.
 */
export interface Confusion {
  tp: string[];
  fp: string[];
  fn: string[];
  tn: string[];
}

export function confusionMatrix(items: readonly Judged[]): Confusion {
  const c: Confusion = { tp: [], fp: [], fn: [], tn: [] };
  for (const i of items) {
    if (i.verifier) (i.human ? c.tp : c.fp).push(i.id);
    else (i.human ? c.fn : c.tn).push(i.id);
  }
  return c;
}

export interface VerifierRates {
  /** Of the episodes people judged incorrect, the share the verifier counted a success: FP / (FP + TN). */
  falsePositive: Proportion;
  /** Of the episodes people judged correct, the share the verifier failed: FN / (FN + TP). */
  falseNegative: Proportion;
  /** Episodes where the verifier and people agree: (TP + TN) / all. */
  agreement: Proportion;
}

export function verifierRates(c: Confusion): VerifierRates {
  const [tp, fp, fn, tn] = [c.tp.length, c.fp.length, c.fn.length, c.tn.length];
  return {
    falsePositive: proportion(fp, fp + tn),
    falseNegative: proportion(fn, fn + tp),
    agreement: proportion(tp + tn, tp + fp + fn + tn),
  };
}

export interface Kappa {
  /** Items both reviewers labelled. */
  n: number;
  /** The share of them where they agree. */
  observed: number | null;
  /** The agreement chance alone would give, from each reviewer's own frequencies. */
  expected: number | null;
  /** (observed − expected) / (1 − expected); null when undefined (no items, or both always gave one same answer). */
  kappa: number | null;
}

/**
 * Cohen's κ of two reviewers over the items both labelled, each pair their two answers (any
 * category that compares by `===`: a boolean, an enum value).
 */
export function cohensKappa<T extends string | number | boolean>(pairs: readonly (readonly [T, T])[]): Kappa {
  const n = pairs.length;
  if (n === 0) return { n, observed: null, expected: null, kappa: null };
  const a = new Map<T, number>();
  const b = new Map<T, number>();
  let agree = 0;
  for (const [x, y] of pairs) {
    if (x === y) agree++;
    a.set(x, (a.get(x) ?? 0) + 1);
    b.set(y, (b.get(y) ?? 0) + 1);
  }
  const observed = agree / n;
  let expected = 0;
  for (const [category, count] of a) expected += (count / n) * ((b.get(category) ?? 0) / n);
  const kappa = expected === 1 ? null : (observed - expected) / (1 - expected);
  return { n, observed, expected, kappa };
}
