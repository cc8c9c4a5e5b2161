// A recorded trajectory step for the tests of what reads recorded episodes (quality analysis, the
// stub's matching): a `submit` that answered "ok", reward 0, the episode over, with changes on top.
import type { TrajectoryStep } from "@/lib/trajectory/schema";

export function recordedStep(over: Partial<TrajectoryStep> = {}): TrajectoryStep {
  return {
    index: 1,
    tool: "submit",
    input: { answer: "x" },
    task_id: null,
    started_at: 0,
    ended_at: 1,
    latency_ms: 1,
    ok: true,
    error: null,
    blocks: [{ type: "text", text: "ok", detail: null }],
    reward: 0,
    finished: true,
    metadata: null,
    events: [],
    ...over,
  };
}
