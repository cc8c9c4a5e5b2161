// How runs' figures read in the CLI and on the run pages (lib/runs/format.ts): durations below a
// second in milliseconds, histogram ranges with a real minus sign, "to", and one precision.
import { describe, expect, it } from "vitest";
import { formatDuration, formatRange, formatSigned } from "@/lib/runs/format";

describe("run figures as text", () => {
  // Durations under a second in milliseconds, never 0:00; "—" where there is none.
  it.each([
    [0, "0 ms"],
    [412.4, "412 ms"],
    [820, "820 ms"],
    [1940, "1.9 s"],
    [185_000, "3 min 5 s"],
    [7_440_000, "2 h 4 min"],
    [-1, "—"],
    [null, "—"],
  ])("formatDuration(%s) says %s", (ms, text) => {
    expect(formatDuration(ms)).toBe(text);
  });

  it("reads negative bins with a minus sign and 'to', the same decimals on both ends", () => {
    // The bins of rewards from −1.04 to 0 in ten: width 0.104.
    expect(formatRange(-1.04, -0.936)).toBe("\u22121.04 to \u22120.94");
    expect(formatRange(-0.104, 0)).toBe("\u22120.10 to 0.00");
    expect(formatRange(0, 0.1)).toBe("0.00 to 0.10");
    expect(formatRange(-20, 80)).toBe("\u221220 to 80");
    expect(formatRange(0.5, 0.5)).toBe("0.50");
    expect(formatSigned(-0.0001, 2)).toBe("0.00");
  });
});
