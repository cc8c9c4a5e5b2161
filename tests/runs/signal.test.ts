// The learning signal of a run's tasks (lib/runs/signal.ts), checked against values computed by
// hand: 1 − p^G − (1 − p)^G per task, the tasks always failed or always solved, and the summary's
// figures over the tasks with at least two counted attempts.
import { describe, expect, it } from "vitest";
import { groupSignal, learningSignal, taskSignal } from "@/lib/runs/signal";

describe("the learning signal", () => {
  it("is the chance that a group holds a success and a failure", () => {
    // p = 1/2, G = 4: 1 − 1/16 − 1/16.
    expect(groupSignal(0.5, 4)).toBe(0.875);
    // p = 1/4, G = 2: 1 − 1/16 − 9/16 = 3/8.
    expect(groupSignal(0.25, 2)).toBe(0.375);
    // p = 2/3, G = 3: 1 − 8/27 − 1/27 = 2/3.
    expect(groupSignal(2 / 3, 3)).toBeCloseTo(2 / 3, 12);
    expect(groupSignal(0, 8)).toBe(0);
    expect(groupSignal(1, 8)).toBe(0);
    expect(groupSignal(0.5, 1)).toBe(0);
  });

  it("marks tasks always failed or always solved, over their counted attempts", () => {
    expect(taskSignal({ index: 3, completed: 4, successes: 0 }, 4)).toEqual({
      index: 3,
      p: 0,
      signal: 0,
      always: "failed",
    });
    expect(taskSignal({ index: 4, completed: 4, successes: 4 }, 4)).toMatchObject({ p: 1, always: "solved" });
    expect(taskSignal({ index: 5, completed: 4, successes: 2 }, 4)).toMatchObject({
      p: 0.5,
      signal: 0.875,
      always: null,
    });
    // One counted attempt says nothing of always; none counted, nothing at all.
    expect(taskSignal({ index: 6, completed: 1, successes: 1 }, 4)).toMatchObject({ p: 1, always: null });
    expect(taskSignal({ index: 7, completed: 0, successes: 0 }, 4)).toEqual({
      index: 7,
      p: null,
      signal: null,
      always: null,
    });
  });

  it("sums a run up: the fraction of tasks that give no gradient, and the mean signal", () => {
    const tasks = [
      { index: 0, completed: 4, successes: 0 },
      { index: 1, completed: 4, successes: 4 },
      { index: 2, completed: 4, successes: 2 },
      { index: 3, completed: 4, successes: 1 },
      { index: 4, completed: 1, successes: 1 }, // too few attempts: left out
    ];
    const s = learningSignal(tasks, 4)!;
    // p = 1/4, G = 4: 1 − 1/256 − 81/256 = 174/256.
    expect(s).toEqual({
      group: 4,
      tasks: 4,
      alwaysFailed: 1,
      alwaysSolved: 1,
      noGradient: 0.5,
      meanSignal: (0 + 0 + 0.875 + 174 / 256) / 4,
    });
    // G given: the same tasks in groups of 2.
    expect(learningSignal(tasks, 4, 2)!.meanSignal).toBeCloseTo((0.5 + 0.375) / 4, 12);
    // One repeat: no signal to speak of.
    expect(learningSignal(tasks, 1)).toBeNull();
  });
});
