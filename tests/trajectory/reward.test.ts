import { describe, expect, it } from "vitest";
import {
  formatReward,
  NO_REWARD,
  rewardLabel,
  rewardSign,
  runningRewardTotals,
  sumRewards,
} from "@/lib/trajectory/reward";

describe("formatReward", () => {
  it.each([
    [1, "1"],
    [0, "0"],
    [-0, "0"],
    [-0.5, "-0.5"],
    [12.75, "12.75"],
    [0.0001, "0.0001"],
    [-0.0001, "-0.0001"],
    [0.00002, "2e-5"],
    [1.5e6, "1.5e+6"],
    [-2_000_000, "-2e+6"],
    [999_999, "999999"],
    [999_999.9, "1e+6"],
    [123_456.789, "123457"],
    [1 / 3, "0.333333"],
    [-2 / 3, "-0.666667"],
    [0.1 + 0.2, "0.3"],
    [1e21, "1e+21"],
    [5e-324, "5e-324"],
  ])("formats %s as %s", (value, text) => {
    expect(formatReward(value)).toBe(text);
  });

  it("signs positive values only when asked, never zero or negative ones twice", () => {
    expect(formatReward(1, { signed: true })).toBe("+1");
    expect(formatReward(12.75, { signed: true })).toBe("+12.75");
    expect(formatReward(1.5e6, { signed: true })).toBe("+1.5e+6");
    expect(formatReward(0.00002, { signed: true })).toBe("+2e-5");
    expect(formatReward(-0.5, { signed: true })).toBe("-0.5");
    expect(formatReward(0, { signed: true })).toBe("0");
    expect(formatReward(-0, { signed: true })).toBe("0");
    expect(formatReward(1)).toBe("1");
  });

  it("reads null and undefined as no reward", () => {
    expect(formatReward(null)).toBe(NO_REWARD);
    expect(formatReward(undefined, { signed: true })).toBe("—");
    expect(formatReward(null, { empty: "none" })).toBe("none");
    expect(rewardLabel(null)).toBe("no reward");
    expect(rewardLabel(0.5, { signed: true })).toBe("+0.5");
  });

  it("keeps as many significant digits as asked", () => {
    expect(formatReward(1 / 3, { digits: 3 })).toBe("0.333");
    expect(formatReward(0.1 + 0.2, { digits: 17 })).toBe("0.30000000000000004");
    expect(formatReward(2.5, { digits: 1 })).toBe("3");
    expect(formatReward(12.75, { digits: 0 })).toBe("10");
  });

  it("does not throw on values JSON cannot carry", () => {
    expect(formatReward(Number.NaN)).toBe("NaN");
    expect(formatReward(Number.POSITIVE_INFINITY, { signed: true })).toBe("+∞");
    expect(formatReward(Number.NEGATIVE_INFINITY)).toBe("-∞");
  });

  it("is a drop-in for both former formatters", () => {
    // trajectories' fmtReward: unsigned, em dash for null.
    expect([1, 0.5, null, -1].map((r) => formatReward(r))).toEqual(["1", "0.5", "—", "-1"]);
    // the episode view's formatReward: signed step rewards, totals with the plus stripped.
    expect([1, 0.5, null, -1, 0].map((r) => formatReward(r, { signed: true }))).toEqual([
      "+1",
      "+0.5",
      "—",
      "-1",
      "0",
    ]);
  });
});

describe("rewardSign", () => {
  it("classifies by the value as shown", () => {
    expect(rewardSign(0.5)).toBe("positive");
    expect(rewardSign(-1e-9)).toBe("negative");
    expect(rewardSign(0)).toBe("zero");
    expect(rewardSign(-0)).toBe("zero");
    expect(rewardSign(null)).toBe("none");
    expect(rewardSign(undefined)).toBe("none");
  });
});

describe("runningRewardTotals / sumRewards", () => {
  it("sums decimal rewards without float noise", () => {
    expect(runningRewardTotals([0.1, 0.2])).toEqual([0.1, 0.3]);
    expect(runningRewardTotals([0.1, 0.2, -0.3])).toEqual([0.1, 0.3, 0]);
    expect(sumRewards(Array.from({ length: 10 }, () => 0.1))).toBe(1);
    expect(sumRewards(Array.from({ length: 1000 }, () => 0.01))).toBe(10);
    expect(sumRewards([1e6, 0.1, 0.2])).toBe(1_000_000.3);
  });

  it("counts null as 0 and keeps small rewards beside small ones", () => {
    expect(runningRewardTotals([null, -0.5, undefined, 1])).toEqual([0, -0.5, -0.5, 0.5]);
    expect(sumRewards([0.0001, 0.0002])).toBe(0.0003);
    expect(sumRewards([1e-12, 2e-12])).toBe(3e-12);
    expect(sumRewards([])).toBe(0);
  });

  it("agrees with the plain sum where there is no noise", () => {
    const rewards = [3, -1.5, 12.75, 0, -0.25, 1.5e6];
    expect(sumRewards(rewards)).toBe(rewards.reduce((a, b) => a + b, 0));
  });

  it("carries non-finite values through instead of hiding them", () => {
    expect(sumRewards([1, Number.POSITIVE_INFINITY])).toBe(Number.POSITIVE_INFINITY);
    expect(Number.isNaN(sumRewards([1, Number.NaN]))).toBe(true);
  });
});
