// How runs read in the UI: rates, intervals, durations, time left, token counts and statuses, as
// text. Pure functions (tests/ui/run-format.test.ts); rewards themselves go through formatReward.

import { formatDuration } from "@/lib/runs/format";
import type { RunStatus } from "@/lib/store/types";
import { formatReward } from "@/lib/trajectory/reward";

export { formatDuration, formatRange } from "@/lib/runs/format";

const NONE = "—";

export const RUN_STATUS_LABEL: Record<RunStatus, string> = {
  queued: "Queued",
  running: "Running",
  done: "Done",
  cancelled: "Cancelled",
  interrupted: "Interrupted",
  failed: "Failed",
};

/** Every run status, in the order a run goes through them (the store's list, read without its module). */
export const RUN_STATUS_ORDER = Object.keys(RUN_STATUS_LABEL) as RunStatus[];

/** A share as a percentage: `0.8125` → `81.3%`; whole numbers without decimals (`100%`). */
export function formatPercent(x: number | null | undefined, digits = 1): string {
  if (x === null || x === undefined || !Number.isFinite(x)) return NONE;
  const p = Number((x * 100).toFixed(digits));
  return `${Number.isInteger(p) ? p.toFixed(0) : p.toFixed(digits)}%`;
}

/** A 95% interval: `0.74 – 0.87` (3 significant digits), or `—`. */
export function formatInterval(ci: readonly [number, number] | null | undefined): string {
  if (!ci) return NONE;
  return `${formatReward(ci[0], { digits: 3 })} – ${formatReward(ci[1], { digits: 3 })}`;
}

/** A mean reward with its interval: `0.81 (95% CI 0.74 – 0.87)`. */
export function formatMean(mean: number | null | undefined, ci?: readonly [number, number] | null): string {
  if (mean === null || mean === undefined) return NONE;
  const m = formatReward(mean, { digits: 3 });
  return ci ? `${m} (95% CI ${formatInterval(ci)})` : m;
}

/** Time left: `about 3 min 5 s`, `under a second`, or `—` when unknown. */
export function formatEta(ms: number | null | undefined): string {
  if (ms === null || ms === undefined || !Number.isFinite(ms) || ms < 0) return NONE;
  if (ms < 1000) return "under a second";
  return `about ${formatDuration(ms)}`;
}

/** Episodes per second: `2.4/s`, or per minute below one every ten seconds (`3.0/min`). */
export function formatRate(perSecond: number | null | undefined): string {
  if (perSecond === null || perSecond === undefined || !Number.isFinite(perSecond)) return NONE;
  if (perSecond === 0) return "0/s";
  if (perSecond < 0.1) return `${(perSecond * 60).toFixed(1)}/min`;
  return `${perSecond < 10 ? perSecond.toFixed(1) : Math.round(perSecond)}/s`;
}

/** A count in English digits (`35,964`); fractional counts (per episode) rounded to whole ones. */
export function formatCount(n: number | null | undefined): string {
  if (n === null || n === undefined || !Number.isFinite(n)) return NONE;
  return Math.round(n).toLocaleString("en-US");
}

/** A reward difference, signed: `+0.25`, `-1`, `0`. */
export function formatDelta(d: number | null | undefined): string {
  return formatReward(d, { signed: true, digits: 3 });
}

/** When something happened: today's times as `14:03:07`, older ones with their date. */
export function formatWhen(at: number | null | undefined, now = Date.now()): string {
  if (at === null || at === undefined) return NONE;
  const d = new Date(at);
  const sameDay = new Date(now).toDateString() === d.toDateString();
  return sameDay
    ? d.toLocaleTimeString("en-GB", { hour12: false })
    : d.toLocaleString("en-GB", { dateStyle: "short", timeStyle: "short", hour12: false });
}

/** pass@k entries in order of k: `[[1, 0.8], [2, 0.9]]`. */
export function passAtKEntries(passAtK: Record<string, number | null>): [number, number | null][] {
  return Object.entries(passAtK)
    .map(([k, v]) => [Number(k), v] as [number, number | null])
    .filter(([k]) => Number.isInteger(k) && k > 0)
    .sort((a, b) => a[0] - b[0]);
}

/** How far a run is: the episodes that ended (done or errored) over all of them, 0..1. */
export function progressFraction(p: { total: number; done: number; errored: number }): number {
  if (p.total <= 0) return 0;
  return Math.min(1, (p.done + p.errored) / p.total);
}
