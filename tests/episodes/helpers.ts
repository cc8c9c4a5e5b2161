// Test helpers: a temp data dir per test file and sample trajectories.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import {
  type StepEvent,
  TRAJECTORY_FORMAT,
  type Trajectory,
  type TrajectoryStep,
} from "@/lib/trajectory/schema";

export function tempDir(prefix = "traj-"): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}

export function step(index: number, over: Partial<TrajectoryStep> = {}): TrajectoryStep {
  return {
    index,
    tool: "answer",
    input: { answer: String(index) },
    task_id: `task-${index}`,
    started_at: 1_000 + index * 100,
    ended_at: 1_050 + index * 100,
    latency_ms: 50,
    ok: true,
    error: null,
    blocks: [{ type: "text", text: `observation ${index}` }],
    reward: 1,
    finished: false,
    metadata: null,
    events: [
      { t: 1, kind: "event", event: "task_id", data: `task-${index}` },
      { t: 40, kind: "event", event: "end", data: "{}" },
    ],
    ...over,
  };
}

/** `count` SSE comment frames, `frame n;` at t = n: a huge step's stream, for the pages that draw it. */
export function commentFrames(count: number): StepEvent[] {
  return Array.from({ length: count }, (_, n) => ({ t: n, kind: "comment", comment: `frame ${n};` }));
}

export function trajectory(id: string, over: Partial<Trajectory> = {}): Trajectory {
  const steps = over.steps ?? [step(1), step(2, { finished: true })];
  return {
    format: TRAJECTORY_FORMAT,
    id,
    server: "local",
    env: "math",
    sid: `sid-${id}`,
    task: { split: "train", index: 3 },
    prompt: [{ type: "text", text: "What is 2+2?" }],
    steps,
    total_reward: steps.reduce((s, x) => s + (x.reward ?? 0), 0),
    started_at: 1_000,
    ended_at: 2_000,
    end_reason: "finished",
    error: null,
    ...over,
  };
}
