// Step-aligned diff of trajectories and the replay marks.
import { describe, expect, it } from "vitest";
import { diffText, diffTrajectories, markDiffers, replayMark, stableStringify } from "@/lib/episodes/diff";
import { step, trajectory } from "./helpers";

describe("diff", () => {
  it("finds nothing between identical trajectories (key order and timings ignored)", () => {
    const a = trajectory("a");
    const b = trajectory("b", {
      steps: a.steps.map((s) => ({
        ...s,
        input: Object.fromEntries(Object.entries(s.input).reverse()),
        latency_ms: 999,
      })),
    });
    const d = diffTrajectories(a, b);
    expect(d.differing).toBe(0);
    expect(d.firstDifference).toBeNull();
    expect(d.header).toEqual([]);
  });

  it("aligns by step and names the differing fields", () => {
    const a = trajectory("a", { steps: [step(1), step(2), step(3, { finished: true })] });
    const b = trajectory("b", {
      steps: [step(1), step(2, { reward: 0, blocks: [{ type: "text", text: "other" }] })],
      end_reason: "user_closed",
    });
    const d = diffTrajectories(a, b);
    expect(d.steps.map((s) => s.fields)).toEqual([
      [],
      ["observation", "reward"],
      ["tool", "input", "observation", "reward", "finished", "ok", "error", "metadata"],
    ]);
    expect(d.steps[2].b).toBeNull();
    expect(d.firstDifference).toBe(2);
    expect(d.differing).toBe(2);
    expect(d.header).toEqual(["end_reason", "total_reward", "num_steps"]);
  });

  it("marks replayed steps; metadata alone does not flag", () => {
    const m = replayMark(step(1), step(1, { finished: true }), "orig");
    expect(m).toEqual({ of: "orig", step: 1, differs: ["finished"] });
    expect(markDiffers(m)).toBe(true);
    const meta = replayMark(step(1), step(1, { metadata: { seed: 2 } }), "orig");
    expect(meta.differs).toEqual(["metadata"]);
    expect(markDiffers(meta)).toBe(false);
    expect(markDiffers(replayMark(step(1), step(1), "o"))).toBe(false);
  });

  it("word diff of texts", () => {
    expect(diffText("you rolled a 3", "you rolled a 5")).toEqual([
      { op: "same", text: "you rolled a " },
      { op: "del", text: "3" },
      { op: "add", text: "5" },
    ]);
    expect(diffText("same", "same")).toEqual([{ op: "same", text: "same" }]);
    expect(stableStringify({ b: 1, a: [{ d: 1, c: undefined }] })).toBe('{"a":[{"d":1}],"b":1}');
  });
});
