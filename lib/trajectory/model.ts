// Zod-free constants and helpers of the trajectory format, so client pages can use them without
// bundling zod (the schemas in schema.ts build on these).
import { runningRewardTotals, sumRewards } from "./reward";

export const TRAJECTORY_FORMAT = "ors-trajectory/1" as const;
/**
 * How an episode ended (FORMAT.md "End reasons"). `cancelled`: a run was cancelled while the episode
 * was playing; `interrupted`: the playground stopped (or a run's executor died) in the middle of it;
 * `policy_stopped`: a run's policy stopped on its own (its `agent_end.reason` says which:
 * `max_turns`, `no_tool_call` ...).
 */
export const END_REASONS = [
  "finished",
  "user_closed",
  "timeout",
  "error",
  "cancelled",
  "interrupted",
  "policy_stopped",
] as const;
export const SORT_KEYS = ["started_at", "ended_at", "total_reward", "num_steps", "env", "server"] as const;
export type SortKey = (typeof SORT_KEYS)[number];

/** A short, stable label of a task, e.g. `train/12` or `spec {"a":1}` (also the `task` filter). */
export function taskLabel(
  task: { task_spec: Record<string, unknown> } | { split: string; index: number } | null | undefined,
): string {
  if (!task) return "unknown";
  if ("split" in task) return `${task.split}/${task.index}`;
  const json = JSON.stringify(task.task_spec);
  return `spec ${json.length > 80 ? `${json.slice(0, 79)}…` : json}`;
}

/** What the totals read of a step (the format's TrajectoryStep has these fields). */
type RewardPart = { reward: number | null; after_end?: boolean };

/** Sum of the rewards of the episode's steps (null counts as 0; steps after the end do not count). */
export function totalReward(steps: RewardPart[]): number {
  return sumRewards(steps.map((s) => (s.after_end ? 0 : s.reward)));
}

/** Cumulative reward after each step (a step after the end adds nothing), without float noise. */
export function cumulativeRewards(steps: RewardPart[]): number[] {
  return runningRewardTotals(steps.map((s) => (s.after_end ? 0 : s.reward)));
}
