// The statistics of runs against values computed by hand (docs/runs.md "Results").
import { describe, expect, it } from "vitest";
import {
  compareRuns,
  intervalOf,
  meanInterval,
  passAtK,
  passAtKs,
  taskSucceeded,
  tCritical95,
} from "@/lib/runs/stats";

describe("Student's t and the 95% interval of a mean", () => {
  // The first from the table exactly; past it, t(40) = 2.021, t(60) = 2.000, t(120) = 1.980, then 1.96.
  it.each([
    [1, 12.706],
    [9, 2.262],
    [30, 2.042],
  ])("t(%s) is the table's %s", (df, t) => {
    expect(tCritical95(df)).toBe(t);
  });

  it.each([
    [40, 2.021],
    [60, 2.0],
    [120, 1.98],
    [1e9, 1.96],
  ])("t(%s) is close to %s", (df, t) => {
    expect(tCritical95(df)).toBeCloseTo(t, 3);
  });

  it("computes mean, spread and interval: [1, 2, 3, 4] by hand", () => {
    // mean 2.5; s² = (2.25 + 0.25 + 0.25 + 2.25) / 3 = 5/3; se = sqrt(5/3)/2 = 0.645497; t(3) = 3.182.
    const half = 3.182 * (Math.sqrt(5 / 3) / 2);
    const byValues = intervalOf([1, 2, 3, 4]);
    expect(byValues.mean).toBe(2.5);
    expect(byValues.std).toBeCloseTo(Math.sqrt(5 / 3), 12);
    expect(byValues.ci95![0]).toBeCloseTo(2.5 - half, 12);
    expect(byValues.ci95![1]).toBeCloseTo(2.5 + half, 12);
    const bySums = meanInterval(4, 10, 30);
    expect(bySums.mean).toBe(2.5);
    expect(bySums.ci95![0]).toBeCloseTo(2.5 - half, 12);
  });

  it("has no interval below two values, and none at all for none", () => {
    expect(meanInterval(0, 0, 0)).toEqual({ n: 0, mean: null, std: null, ci95: null });
    expect(meanInterval(1, 0.5, 0.25)).toEqual({ n: 1, mean: 0.5, std: null, ci95: null });
    // All equal: no spread, the interval is the point.
    expect(meanInterval(3, 3, 3).ci95).toEqual([1, 1]);
  });
});

describe("pass@k, the unbiased estimator", () => {
  it("is 1 − C(n−c, k)/C(n, k)", () => {
    // n = 5, c = 2, k = 2: 1 − C(3,2)/C(5,2) = 1 − 3/10 = 0.7.
    expect(passAtK(5, 2, 2)).toBeCloseTo(0.7, 12);
    // k = 1 is the success rate: c / n.
    expect(passAtK(5, 2, 1)).toBeCloseTo(0.4, 12);
    // n = 10, c = 3, k = 5: 1 − C(7,5)/C(10,5) = 1 − 21/252.
    expect(passAtK(10, 3, 5)).toBeCloseTo(1 - 21 / 252, 12);
    expect(passAtK(4, 0, 2)).toBe(0);
    expect(passAtK(4, 3, 2)).toBe(1); // n − c < k: some success among any k
    expect(passAtK(1, 1, 2)).toBeNull(); // fewer attempts than k
  });

  it("averages over the tasks with enough completed attempts", () => {
    const tasks = [
      { completed: 2, successes: 1 }, // pass@1 0.5, pass@2 1
      { completed: 2, successes: 0 }, // 0, 0
      { completed: 1, successes: 1 }, // 1, —
    ];
    const p = passAtKs(tasks, 2);
    expect(p["1"]).toBeCloseTo(0.5, 12);
    expect(p["2"]).toBeCloseTo(0.5, 12);
    expect(passAtKs([{ completed: 0, successes: 0 }], 1)).toEqual({ "1": null });
  });

  it("counts a task as succeeded when half of its attempts or more did", () => {
    expect(taskSucceeded({ completed: 2, successes: 1 })).toBe(true);
    expect(taskSucceeded({ completed: 3, successes: 1 })).toBe(false);
    expect(taskSucceeded({ completed: 0, successes: 0 })).toBeNull();
  });
});

describe("two runs compared task by task", () => {
  it("lists flips and the paired mean difference with its interval", () => {
    const a = [
      { index: 0, rewards: [1, 1], completed: 2, successes: 2 },
      { index: 1, rewards: [0, 0], completed: 2, successes: 0 },
      { index: 2, rewards: [1, 0], completed: 2, successes: 1 },
      { index: 3, rewards: [0.5, null], completed: 1, successes: 0 },
      { index: 4, rewards: [1], completed: 1, successes: 1 },
    ];
    const b = [
      { index: 0, rewards: [0, 0], completed: 2, successes: 0 },
      { index: 1, rewards: [1, 1], completed: 2, successes: 2 },
      { index: 2, rewards: [1, 1], completed: 2, successes: 2 },
      { index: 3, rewards: [1, 1], completed: 2, successes: 2 },
      { index: 5, rewards: [1], completed: 1, successes: 1 },
    ];
    const c = compareRuns(a, b);
    expect(c.gained).toEqual([1, 3]);
    expect(c.lost).toEqual([0]);
    // Deltas of the tasks both have: −1, 1, 0.5, 0.5 → mean 0.25; s² = (1.5625 + 0.5625 + 0.0625 + 0.0625)/3 = 0.75.
    expect(c.tasks.map((x) => x.delta)).toEqual([-1, 1, 0.5, 0.5, null, null]);
    expect(c.paired).toBe(4);
    expect(c.meanDelta).toBeCloseTo(0.25, 12);
    const half = 3.182 * (Math.sqrt(0.75) / 2);
    expect(c.ci95![0]).toBeCloseTo(0.25 - half, 12);
    expect(c.ci95![1]).toBeCloseTo(0.25 + half, 12);
    expect(c.tasks.find((x) => x.index === 4)).toMatchObject({ a: { mean: 1 }, b: null });
  });
});
