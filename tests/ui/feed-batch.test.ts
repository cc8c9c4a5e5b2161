// A batch of live-feed events applied at once gives the same trajectory as applying them one by
// one (lib/trajectory/feed.ts is the definition), and leaves the input untouched.
import { describe, expect, it } from "vitest";
import { applyFeedEvent, type LiveEvent } from "@/lib/trajectory/feed";
import type { StepEvent } from "@/lib/trajectory/schema";
import { applyFeedEvents } from "@/lib/ui/feed-batch";
import { step, trajectory } from "../episodes/helpers";

const frame = (index: number, n: number, t: number): LiveEvent => ({
  type: "frame",
  id: "T",
  index,
  n,
  event: { t, kind: "event", event: "chunk", data: `piece ${n}`, size: 4096 } as StepEvent,
});

describe("applyFeedEvents", () => {
  it("equals folding applyFeedEvent over the same events", () => {
    const t = trajectory("T", { steps: [step(1)], end_reason: null, ended_at: null });
    const running = step(2, { ok: null, ended_at: null, reward: null, events: [] });
    const events: LiveEvent[] = [
      { type: "step", id: "T", step: running },
      ...Array.from({ length: 2000 }, (_, n) => frame(2, n, n)),
      frame(2, 5, 0), // out of order: ignored, as applyFeedEvent does
      { type: "prompt", id: "T", blocks: [{ type: "text", text: "hi" }] },
      { type: "step", id: "OTHER", step: step(9) },
      { type: "step", id: "T", step: { ...step(2), events: [] } },
      frame(2, 0, 1),
      { type: "ended", id: "T", end_reason: "finished", error: null, ended_at: 9 },
    ];
    const before = JSON.stringify(t);
    const one = events.reduce(applyFeedEvent, t);
    const batch = applyFeedEvents(t, events);
    expect(batch).toEqual(one);
    expect(JSON.stringify(t)).toBe(before);
    expect(batch.steps[0]).toBe(t.steps[0]); // untouched steps keep their identity
  });

  it("a burst of frames grows the step's frames in one copy", () => {
    const t = trajectory("T", {
      steps: [step(1, { ok: null, events: [] })],
      end_reason: null,
      ended_at: null,
    });
    const out = applyFeedEvents(
      t,
      Array.from({ length: 5000 }, (_, n) => frame(1, n, n)),
    );
    expect(out.steps[0]!.events).toHaveLength(5000);
    expect(t.steps[0]!.events).toHaveLength(0);
  });
});
