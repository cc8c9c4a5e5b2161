// "Fork at step N" is offered only where a fork can work: the episode's own steps of a known task,
// never a call made after the episode had finished (the fork route would answer 400).
import { describe, expect, it } from "vitest";
import type { TrajectoryStep } from "@/lib/trajectory/schema";
import { pendingStep } from "@/lib/trajectory/step";
import { forkability } from "@/lib/ui/trajectory-queries";

const step = (index: number, after_end = false): TrajectoryStep => ({
  ...pendingStep({ index, tool: "t", input: {}, task_id: null, started_at: index, after_end }),
  ok: true,
});

describe("forkability", () => {
  const task = { split: "train", index: 0 };
  const steps = [step(1), step(2), step(3, true), step(4, true)];

  it("allows the episode's own steps", () => {
    expect(forkability({ task, steps }, 1)).toEqual({ ok: true });
    expect(forkability({ task, steps }, 2)).toEqual({ ok: true });
  });

  it("refuses a step called after the end, saying which steps can be forked", () => {
    const r = forkability({ task, steps }, 3);
    expect(r.ok).toBe(false);
    expect(!r.ok && r.reason).toBe(
      "Step 3 was called after the episode had finished: it is not part of the episode. Fork at one of its steps (1 to 2).",
    );
    expect(forkability({ task, steps: [step(1), step(2, true)] }, 2)).toMatchObject({
      ok: false,
      reason: expect.stringContaining("(step 1)"),
    });
  });

  it("refuses without a task or a step", () => {
    expect(forkability({ task: null, steps }, 1).ok).toBe(false);
    expect(forkability({ task, steps: [] }, null).ok).toBe(false);
    expect(forkability({ task, steps: [step(1, true)] }, 1).ok).toBe(false);
  });
});
