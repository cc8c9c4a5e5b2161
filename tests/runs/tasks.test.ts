// Task selections: all, ranges, lists, seeded samples, and their mistakes (docs/runs.md "Task selection").
import { describe, expect, it } from "vitest";
import { resolveTasks, sampleIndexes } from "@/lib/runs/tasks";

describe("task selection", () => {
  it("reads all, ranges, lists and mixes of them", () => {
    expect(resolveTasks(undefined, 3)).toEqual([0, 1, 2]);
    expect(resolveTasks("all", 2)).toEqual([0, 1]);
    expect(resolveTasks("20-23", 100)).toEqual([20, 21, 22, 23]);
    expect(resolveTasks("1, 5,9", 10)).toEqual([1, 5, 9]);
    expect(resolveTasks("0-2,7", 10)).toEqual([0, 1, 2, 7]);
    expect(resolveTasks([4, 2], 10)).toEqual([4, 2]);
  });

  it("draws the same sample for the same seed, distinct indexes in order, from any split size", () => {
    const a = resolveTasks({ sample: 50, seed: 7 }, 100_000);
    expect(a).toEqual(resolveTasks("sample:50:7", 100_000));
    expect(a).toEqual(sampleIndexes(100_000, 50, 7));
    expect(new Set(a).size).toBe(50);
    expect(a).toEqual([...a].sort((x, y) => x - y));
    expect(a.every((i) => i >= 0 && i < 100_000)).toBe(true);
    expect(resolveTasks({ sample: 50, seed: 8 }, 100_000)).not.toEqual(a);
    expect(resolveTasks({ sample: 10 }, 10)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
  });

  it.each([
    ["800", 800, "task 800 is beyond the split (it has 800 tasks: 0-799)"],
    ["5-3", 10, "the range 5-3 ends before it starts"],
    ["1,1", 10, "task 1 is selected twice"],
    ["first", 10, /is not a task selection/],
    ["all", 0, "the split has no tasks"],
    ["sample:11", 10, "a sample of 11 tasks from a split of 10"],
  ])("refuses %j of %i tasks", (sel, size, message) => {
    expect(() => resolveTasks(sel, size)).toThrow(message);
  });
});
