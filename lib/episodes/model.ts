// Zod-free constants and helpers of the trajectory format, so client pages can use them without
// bundling zod (the schemas in schema.ts build on these).
import type { ReplayMark, TrajectoryStep, TrajectoryTask } from "./schema";

export const TRAJECTORY_FORMAT = "ors-trajectory/1" as const;
export const END_REASONS = ["finished", "user_closed", "timeout", "error"] as const;
export const SORT_KEYS = ["started_at", "ended_at", "total_reward", "num_steps", "env", "server"] as const;
export type SortKey = (typeof SORT_KEYS)[number];

/** A short, stable label of a task, e.g. `train/12` or `spec {"a":1}` (also the `task` filter). */
export function taskLabel(task: TrajectoryTask | null | undefined): string {
  if (!task) return "unknown";
  if ("split" in task) return `${task.split}/${task.index}`;
  const json = JSON.stringify(task.task_spec);
  return `spec ${json.length > 80 ? `${json.slice(0, 79)}…` : json}`;
}

/** Sum of the rewards of the steps (null rewards count as 0). */
export function totalReward(steps: Pick<TrajectoryStep, "reward">[]): number {
  return steps.reduce((sum, s) => sum + (s.reward ?? 0), 0);
}

/** Cumulative reward after each step. */
export function cumulativeRewards(steps: Pick<TrajectoryStep, "reward">[]): number[] {
  let sum = 0;
  return steps.map((s) => {
    sum += s.reward ?? 0;
    return sum;
  });
}

/** What a fork at step N answers: the new live session, its trajectory, and how the replay went. */
export interface ForkResult {
  server: string;
  env: string;
  sid: string;
  trajectory_id: string;
  step: number;
  marks: ReplayMark[];
  differing: number[];
}

/** A step as it stands when its call starts: nothing received yet. */
export function pendingStep(
  fields: Pick<TrajectoryStep, "index" | "tool" | "input" | "task_id" | "started_at">,
): TrajectoryStep {
  return {
    ...fields,
    ended_at: null,
    latency_ms: null,
    ok: null,
    error: null,
    blocks: [],
    reward: null,
    finished: false,
    metadata: null,
    events: [],
  };
}
