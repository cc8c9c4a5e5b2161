// How runs read on the run pages (lib/ui/run-format.ts): shares, intervals, means, time left, rates,
// counts, deltas, times, pass@k and progress; durations are lib/runs/format.ts's (tests/runs/format.test.ts).
import { describe, expect, it } from "vitest";
import { RUN_STATUSES } from "@/lib/store/types";
import {
  formatCount,
  formatDelta,
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

// Each formatter with the values it is given and what the reader sees; a case names both.
const READINGS: [(value: never) => string, unknown, string][] = [
  [formatPercent, 0.8125, "81.3%"],
  [formatPercent, 1, "100%"],
  [formatPercent, 0, "0%"],
  [formatPercent, 2 / 3, "66.7%"],
  [formatPercent, 0.9999, "100%"],
  [formatPercent, null, "—"],
  [formatPercent, Number.NaN, "—"],
  [formatInterval, [0.74123, 0.87], "0.741 – 0.87"],
  [formatInterval, null, "—"],
  [formatEta, 185_000, "about 3 min 5 s"],
  [formatEta, 200, "under a second"],
  [formatEta, null, "—"],
  [formatRate, 2.44, "2.4/s"],
  [formatRate, 31.6, "32/s"],
  [formatRate, 0.05, "3.0/min"],
  [formatRate, 0, "0/s"],
  [formatRate, null, "—"],
  [formatCount, 35964, "35,964"],
  [formatCount, 211.6, "212"],
  [formatCount, null, "—"],
  [formatDelta, 0.25, "+0.25"],
  [formatDelta, -1, "-1"],
  [formatDelta, 0, "0"],
  [formatDelta, null, "—"],
];

describe("run formatting", () => {
  // Shares read as percentages (whole ones without decimals), intervals at three significant digits,
  // time left, rates, counts and deltas; "—" where there is no value.
  for (const [format, value, text] of READINGS)
    it(`${format.name}(${typeof value === "number" ? value : JSON.stringify(value)}) reads ${text}`, () => {
      expect(format(value as never)).toBe(text);
    });

  it("reads means with their 95% interval at three significant digits", () => {
    expect(formatMean(0.8125, [0.7, 0.9])).toBe("0.813 (95% CI 0.7 – 0.9)");
    expect(formatMean(0.5, null)).toBe("0.5");
    expect(formatMean(null)).toBe("—");
  });

  it("reads times: today's as the hour, others with their date", () => {
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
