// The one way rewards read in the app: formatting (sign, size, `null`) and noise-free sums.
// Isomorphic and pure (no zod, no React): every view formats a reward with `formatReward`.

/** What a missing reward (`null`: the tool gave none) reads as; screen readers get NO_REWARD_LABEL. */
export const NO_REWARD = "—";
export const NO_REWARD_LABEL = "no reward";

/** Significant digits shown by default: enough for any reward a person reads, none of float noise. */
const DEFAULT_DIGITS = 6;
/** Beyond these magnitudes a reward reads in exponent form (`1.5e+6`, `2e-5`). */
const LARGE = 1e6;
const SMALL = 1e-4;

export interface FormatRewardOptions {
  /** Prefix positive values with `+` (a step's reward: `+1`, `-0.5`); totals read unsigned. Default false. */
  signed?: boolean;
  /** Significant digits at most (1–17, default 6); trailing zeros are never shown. */
  digits?: number;
  /** What `null`/`undefined` reads as (default `—`). */
  empty?: string;
}

/**
 * A reward as text: `1`, `-0.5`, `12.75`, `0.0001`, `1.5e+6`, `2e-5`; `+` before positive values
 * when `signed`; `-0` reads `0`; `null`/`undefined` read `—`. Rounded to `digits` significant
 * digits, so float noise (`0.1 + 0.2`) never shows.
 *
 * @example formatReward(0.5, { signed: true }) // "+0.5"
 * @example formatReward(0.1 + 0.2) // "0.3"
 */
export function formatReward(value: number | null | undefined, options: FormatRewardOptions = {}): string {
  if (value === null || value === undefined) return options.empty ?? NO_REWARD;
  const plus = options.signed ? "+" : "";
  if (Number.isNaN(value)) return "NaN";
  if (!Number.isFinite(value)) return value > 0 ? `${plus}∞` : "-∞";
  const digits = Math.min(17, Math.max(1, Math.round(options.digits ?? DEFAULT_DIGITS)));
  const rounded = Number(value.toPrecision(digits));
  // `-0` and zero read the same, unsigned.
  if (rounded === 0) return "0";
  const abs = Math.abs(rounded);
  // String() of a number in [1e-4, 1e6) is never in exponent form; toExponential() with no
  // argument gives the shortest mantissa ("1.5e+6", not "1.50000e+6").
  const text = abs >= LARGE || abs < SMALL ? rounded.toExponential() : String(rounded);
  return rounded > 0 ? `${plus}${text}` : text;
}

/** The accessible text of a reward: the formatted value, or "no reward" for `null`. */
export function rewardLabel(value: number | null | undefined, options: FormatRewardOptions = {}): string {
  return value === null || value === undefined ? NO_REWARD_LABEL : formatReward(value, options);
}

export type RewardSign = "positive" | "negative" | "zero" | "none";

/** Which way a reward goes, as it is shown (a value that rounds to 0 is "zero"), for colouring. */
export function rewardSign(value: number | null | undefined, digits = DEFAULT_DIGITS): RewardSign {
  if (value === null || value === undefined || Number.isNaN(value)) return "none";
  const rounded = Number.isFinite(value)
    ? Number(value.toPrecision(Math.min(17, Math.max(1, digits))))
    : value;
  return rounded > 0 ? "positive" : rounded < 0 ? "negative" : "zero";
}

/**
 * Significant digits kept in sums, relative to the largest magnitude involved. Binary floats
 * carry ~16; the rest of the precision absorbs representation error of many decimal terms.
 */
const SUM_DIGITS = 12;

/** `x` rounded to SUM_DIGITS significant digits of `scale` (so 0.1 + 0.2 - 0.3 is 0, not 5.6e-17). */
function snap(x: number, scale: number): number {
  if (x === 0 || !Number.isFinite(x) || !Number.isFinite(scale) || scale === 0) return x === 0 ? 0 : x;
  const quantumExp = Math.floor(Math.log10(scale)) - SUM_DIGITS + 1;
  const digits = Math.floor(Math.log10(Math.abs(x))) - quantumExp + 1;
  if (digits < 1) {
    // Below the sum's resolution: noise, or at most one quantum.
    return Math.abs(x) >= 0.5 * Number(`1e${quantumExp}`) ? Math.sign(x) * Number(`1e${quantumExp}`) : 0;
  }
  return Number(x.toPrecision(Math.min(17, digits)));
}

/**
 * The running totals of a sequence of rewards (`null` counts as 0), without float noise:
 * compensated (Neumaier) summation, each total rounded to 12 significant digits of the largest
 * magnitude seen. `[0.1, 0.2, -0.3]` gives `[0.1, 0.3, 0]`.
 */
export function runningRewardTotals(rewards: Iterable<number | null | undefined>): number[] {
  const totals: number[] = [];
  let sum = 0;
  let compensation = 0;
  let scale = 0;
  for (const reward of rewards) {
    const v = reward ?? 0;
    const t = sum + v;
    compensation += Math.abs(sum) >= Math.abs(v) ? sum - t + v : v - t + sum;
    sum = t;
    const total = sum + compensation;
    scale = Math.max(scale, Math.abs(v), Math.abs(total));
    totals.push(Number.isFinite(sum) ? snap(total, scale) : sum);
  }
  return totals;
}

/** The sum of rewards (`null` counts as 0), without float noise: the last of runningRewardTotals. */
export function sumRewards(rewards: Iterable<number | null | undefined>): number {
  return runningRewardTotals(rewards).at(-1) ?? 0;
}
