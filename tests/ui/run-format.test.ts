import { describe, expect, it } from "vitest";
import { RUN_STATUSES } from "@/lib/store/types";
import {
  formatCount,
  formatDelta,
  formatDuration,
  formatEta,
  formatInterval,
  formatMean,
  formatPercent,
  formatRate,
  formatWhen,
  passAtKEntries,
  progressFraction,
  RUN_STATUS_LABEL,
  RUN_STATUS_ORDER,
} from "@/lib/ui/run-format";

describe("run formatting", () => {
  it("reads shares as percentages, whole ones without decimals", () => {
    expect(formatPercent(0.8125)).toBe("81.3%");
    expect(formatPercent(1)).toBe("100%");
    expect(formatPercent(0)).toBe("0%");
    expect(formatPercent(2 / 3)).toBe("66.7%");
    expect(formatPercent(0.9999)).toBe("100%");
    expect(formatPercent(null)).toBe("—");
    expect(formatPercent(Number.NaN)).toBe("—");
  });

  it("reads means with their 95% interval at three significant digits", () => {
    expect(formatInterval([0.74123, 0.87])).toBe("0.741 – 0.87");
    expect(formatInterval(null)).toBe("—");
    expect(formatMean(0.8125, [0.7, 0.9])).toBe("0.813 (95% CI 0.7 – 0.9)");
    expect(formatMean(0.5, null)).toBe("0.5");
    expect(formatMean(null)).toBe("—");
  });

  it("reads durations, time left and rates", () => {
    expect(formatDuration(820)).toBe("820 ms");
    expect(formatDuration(1940)).toBe("1.9 s");
    expect(formatDuration(185_000)).toBe("3 min 5 s");
    expect(formatDuration(2 * 3600_000 + 4 * 60_000)).toBe("2 h 4 min");
    expect(formatDuration(-1)).toBe("—");
    expect(formatEta(185_000)).toBe("about 3 min 5 s");
    expect(formatEta(200)).toBe("under a second");
    expect(formatEta(null)).toBe("—");
    expect(formatRate(2.44)).toBe("2.4/s");
    expect(formatRate(31.6)).toBe("32/s");
    expect(formatRate(0.05)).toBe("3.0/min");
    expect(formatRate(0)).toBe("0/s");
    expect(formatRate(null)).toBe("—");
  });

  it("reads counts, deltas and times", () => {
    expect(formatCount(35964)).toBe("35,964");
    expect(formatCount(211.6)).toBe("212");
    expect(formatCount(null)).toBe("—");
    expect(formatDelta(0.25)).toBe("+0.25");
    expect(formatDelta(-1)).toBe("-1");
    expect(formatDelta(0)).toBe("0");
    expect(formatDelta(null)).toBe("—");
    const now = new Date(2025, 0, 15, 14, 3, 7).getTime();
    expect(formatWhen(now, now)).toBe("14:03:07");
    expect(formatWhen(new Date(2025, 0, 14, 9, 5).getTime(), now)).toBe("14/01/2025, 09:05");
    expect(formatWhen(null)).toBe("—");
  });

  it("orders pass@k by k and measures progress by the episodes that ended", () => {
    expect(passAtKEntries({ "10": 1, "2": 0.9, "1": 0.8, x: 0.1 })).toEqual([
      [1, 0.8],
      [2, 0.9],
      [10, 1],
    ]);
    expect(progressFraction({ total: 10, done: 3, errored: 2 })).toBe(0.5);
    expect(progressFraction({ total: 0, done: 0, errored: 0 })).toBe(0);
    expect(progressFraction({ total: 2, done: 3, errored: 0 })).toBe(1);
  });

  it("knows every run status the store has, in order", () => {
    expect(RUN_STATUS_ORDER).toEqual([...RUN_STATUSES]);
    for (const s of RUN_STATUSES) expect(RUN_STATUS_LABEL[s]).toMatch(/^[A-Z]/);
  });
});
