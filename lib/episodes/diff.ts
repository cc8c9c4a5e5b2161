// Step-aligned comparison of two trajectories (compare view, fork marks, replay diff).
// Steps are aligned by their step number; a step present on one side only is "missing".
// Isomorphic and pure: the server uses it for fork/replay marks, the UI for highlighting.
import type { Block } from "@/lib/ors/protocol";
import type { ReplayMark, Trajectory, TrajectoryStep } from "./schema";

export type StepField =
  | "tool"
  | "input"
  | "observation"
  | "reward"
  | "finished"
  | "ok"
  | "error"
  | "metadata";

export interface StepDiff {
  index: number;
  a: TrajectoryStep | null;
  b: TrajectoryStep | null;
  /** Fields that differ (empty when the steps match); all fields when one side is missing. */
  fields: StepField[];
}

export interface TrajectoryDiff {
  steps: StepDiff[];
  /** Header fields that differ: env, task, prompt, end_reason, total_reward, num_steps. */
  header: string[];
  /** Number of aligned steps with any difference. */
  differing: number;
  /** The first step number that differs, or null. */
  firstDifference: number | null;
}

/** JSON with sorted object keys, so key order never counts as a difference. */
export function stableStringify(value: unknown): string {
  if (value === undefined) return "null";
  if (value === null || typeof value !== "object") return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(stableStringify).join(",")}]`;
  const keys = Object.keys(value as Record<string, unknown>)
    .filter((k) => (value as Record<string, unknown>)[k] !== undefined)
    .sort();
  return `{${keys.map((k) => `${JSON.stringify(k)}:${stableStringify((value as Record<string, unknown>)[k])}`).join(",")}}`;
}

export function sameJson(a: unknown, b: unknown): boolean {
  return stableStringify(a ?? null) === stableStringify(b ?? null);
}

/** Normalizes blocks for comparison (drops a null/absent `detail`). */
function normBlocks(blocks: Block[]): unknown {
  return blocks.map((b) => {
    const { detail, ...rest } = b;
    return detail == null ? rest : { ...rest, detail };
  });
}

/** The fields in which two steps differ. */
export function compareSteps(a: TrajectoryStep, b: TrajectoryStep): StepField[] {
  const fields: StepField[] = [];
  if (a.tool !== b.tool) fields.push("tool");
  if (!sameJson(a.input, b.input)) fields.push("input");
  if (!sameJson(normBlocks(a.blocks), normBlocks(b.blocks))) fields.push("observation");
  if ((a.reward ?? null) !== (b.reward ?? null)) fields.push("reward");
  if (a.finished !== b.finished) fields.push("finished");
  if (a.ok !== b.ok) fields.push("ok");
  if ((a.error ?? null) !== (b.error ?? null)) fields.push("error");
  if (!sameJson(a.metadata, b.metadata)) fields.push("metadata");
  return fields;
}

const ALL_FIELDS: StepField[] = [
  "tool",
  "input",
  "observation",
  "reward",
  "finished",
  "ok",
  "error",
  "metadata",
];

/** Aligns two trajectories step by step and lists what differs. */
export function diffTrajectories(a: Trajectory, b: Trajectory): TrajectoryDiff {
  const n = Math.max(a.steps.length, b.steps.length);
  const steps: StepDiff[] = [];
  let differing = 0;
  let firstDifference: number | null = null;
  for (let i = 0; i < n; i++) {
    const sa = a.steps[i] ?? null;
    const sb = b.steps[i] ?? null;
    const fields = sa && sb ? compareSteps(sa, sb) : [...ALL_FIELDS];
    if (fields.length) {
      differing++;
      firstDifference ??= i + 1;
    }
    steps.push({ index: i + 1, a: sa, b: sb, fields });
  }
  const header: string[] = [];
  if (a.env !== b.env) header.push("env");
  if (!sameJson(a.task, b.task)) header.push("task");
  if (!sameJson(a.prompt, b.prompt)) header.push("prompt");
  if (a.end_reason !== b.end_reason) header.push("end_reason");
  if (a.total_reward !== b.total_reward) header.push("total_reward");
  if (a.steps.length !== b.steps.length) header.push("num_steps");
  return { steps, header, differing, firstDifference };
}

/**
 * The mark of a replayed step: which of observation, reward, finished, ok and error differ from
 * the original step (metadata is reported too, but does not by itself flag a step in the UI).
 */
export function replayMark(
  original: TrajectoryStep,
  replayed: TrajectoryStep,
  originalId: string,
): ReplayMark {
  const fields = compareSteps(original, replayed);
  const differs = fields.filter(
    (f): f is ReplayMark["differs"][number] =>
      f === "observation" ||
      f === "reward" ||
      f === "finished" ||
      f === "ok" ||
      f === "error" ||
      f === "metadata",
  );
  return { of: originalId, step: original.index, differs };
}

/** Whether a mark flags the step as differing (metadata alone does not). */
export function markDiffers(mark: ReplayMark | null | undefined): boolean {
  return !!mark && mark.differs.some((f) => f !== "metadata");
}

export type TextOp = { op: "same" | "add" | "del"; text: string };

/**
 * A word-level diff of two texts (LCS on whitespace-separated tokens), for highlighting changed
 * observations. Falls back to "all deleted, all added" beyond a size bound to stay fast.
 */
export function diffText(a: string, b: string, maxTokens = 1500): TextOp[] {
  if (a === b) return [{ op: "same", text: a }];
  const ta = a.split(/(\s+)/);
  const tb = b.split(/(\s+)/);
  if (ta.length > maxTokens || tb.length > maxTokens) {
    return [
      { op: "del", text: a },
      { op: "add", text: b },
    ];
  }
  const m = ta.length;
  const n = tb.length;
  const dp: Uint16Array[] = Array.from({ length: m + 1 }, () => new Uint16Array(n + 1));
  for (let i = m - 1; i >= 0; i--) {
    for (let j = n - 1; j >= 0; j--) {
      dp[i][j] = ta[i] === tb[j] ? dp[i + 1][j + 1] + 1 : Math.max(dp[i + 1][j], dp[i][j + 1]);
    }
  }
  const ops: TextOp[] = [];
  const push = (op: TextOp["op"], text: string) => {
    const last = ops[ops.length - 1];
    if (last && last.op === op) last.text += text;
    else ops.push({ op, text });
  };
  let i = 0;
  let j = 0;
  while (i < m && j < n) {
    if (ta[i] === tb[j]) {
      push("same", ta[i]);
      i++;
      j++;
    } else if (dp[i + 1][j] >= dp[i][j + 1]) push("del", ta[i++]);
    else push("add", tb[j++]);
  }
  while (i < m) push("del", ta[i++]);
  while (j < n) push("add", tb[j++]);
  return ops;
}
