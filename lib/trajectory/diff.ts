// Step-aligned comparison of two trajectories (compare view, fork marks, replay diff, golden tests).
// Steps are aligned by their step number; a step present on one side only is "missing". The UI
// compares exactly; golden tests may loosen the comparison (CompareOptions: ignored fields and
// paths, a reward tolerance, whitespace and masks for texts), since some environments are random.
// Isomorphic and pure: the server uses it for fork/replay marks, the UI for highlighting.
import { diffWordsWithSpace } from "diff";
import type { Block } from "@/lib/ors/protocol";
import type { ReplayMark, Trajectory, TrajectoryStep } from "./schema";

/** The fields of a step that a comparison reads, in the order a diff names them. */
const STEP_FIELDS = [
  "tool",
  "input",
  "observation",
  "reward",
  "finished",
  "ok",
  "error",
  "metadata",
] as const;
export type StepField = (typeof STEP_FIELDS)[number];

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

/**
 * How loosely two trajectories are compared. The default (no options) is exact, as the UI's compare
 * view, fork marks and "Replay and diff" show; golden tests pass the user's options.
 */
export interface CompareOptions {
  /**
   * What to leave out of the comparison: step fields (`tool`, `input`, `observation`, `reward`,
   * `finished`, `ok`, `error`, `metadata`), the trajectory's `prompt`, or JSON paths inside a
   * step's `metadata`, `observation` (its blocks), `input`, or the `prompt`: `metadata.seed`,
   * `observation.0.text`, `observation.*.detail`, `metadata.stats[2]` (`*`: every key or item).
   * See parseIgnore.
   */
  ignore?: readonly string[];
  /** Rewards that differ by at most this much (absolute) are the same. Default 0: exactly equal. */
  rewardTolerance?: number;
  /** Texts (text blocks, errors, the prompt) compared with runs of whitespace as one space, trimmed. */
  normalizeWhitespace?: boolean;
  /** Regular expressions: what they match in texts reads "…" on both sides (ids, times, random numbers). */
  masks?: readonly RegExp[];
}

/** What `ignore` may name besides paths: the step fields, and the trajectory's prompt. */
export const IGNORABLE = [...STEP_FIELDS, "prompt"] as const;
/** The roots a JSON path may start from (`blocks` reads as `observation`). */
const PATH_ROOTS = new Set(["input", "observation", "metadata", "prompt"]);

export type IgnoreRule = { field: (typeof IGNORABLE)[number] } | { root: string; path: string[] };

/**
 * Parses an `ignore` entry: a field name, or a JSON path from `input`, `observation` (alias
 * `blocks`), `metadata` or `prompt`, dot-separated with `[n]` also accepted for items. Throws an
 * Error that names what is wrong.
 *
 * @example parseIgnore("metadata.seed") // { root: "metadata", path: ["seed"] }
 * @example parseIgnore("observation[0].text") // { root: "observation", path: ["0", "text"] }
 */
export function parseIgnore(entry: string): IgnoreRule {
  const text = entry.trim().replace(/\[(\d+|\*)\]/g, ".$1");
  const parts = text.split(".");
  const root = parts[0] === "blocks" ? "observation" : parts[0]!;
  if (parts.length === 1) {
    if ((IGNORABLE as readonly string[]).includes(root)) return { field: root as (typeof IGNORABLE)[number] };
    throw new Error(
      `cannot ignore ${JSON.stringify(entry)}: expected one of ${IGNORABLE.join(", ")}, or a path such as metadata.seed`,
    );
  }
  if (!PATH_ROOTS.has(root))
    throw new Error(
      `cannot ignore ${JSON.stringify(entry)}: a path starts with input, observation, metadata or prompt`,
    );
  const path = parts.slice(1);
  if (path.some((p) => p === ""))
    throw new Error(`cannot ignore ${JSON.stringify(entry)}: an empty step in the path`);
  return { root, path };
}

/** CompareOptions made ready to use once per comparison. */
interface Comparer {
  fields: Set<string>;
  paths: Map<string, string[][]>;
  tolerance: number;
  text: ((s: string) => string) | null;
}

const EXACT: Comparer = { fields: new Set(), paths: new Map(), tolerance: 0, text: null };

function comparer(o: CompareOptions | undefined): Comparer {
  if (!o) return EXACT;
  const fields = new Set<string>();
  const paths = new Map<string, string[][]>();
  for (const entry of o.ignore ?? []) {
    const rule = parseIgnore(entry);
    if ("field" in rule) fields.add(rule.field);
    else paths.set(rule.root, [...(paths.get(rule.root) ?? []), rule.path]);
  }
  const masks = (o.masks ?? []).map(
    (m) => new RegExp(m.source, m.flags.includes("g") ? m.flags : `${m.flags}g`),
  );
  const text =
    masks.length || o.normalizeWhitespace
      ? (s: string) => {
          let out = s;
          for (const m of masks) out = out.replace(m, "…");
          return o.normalizeWhitespace ? out.replace(/\s+/g, " ").trim() : out;
        }
      : null;
  return { fields, paths, tolerance: Math.max(0, o.rewardTolerance ?? 0), text };
}

/** `value` without what `path` points at (`*`: every key or item); never changes `value`. */
function omitPath(value: unknown, path: readonly string[]): unknown {
  if (path.length === 0 || value === null || typeof value !== "object") return value;
  const [head, ...rest] = path as [string, ...string[]];
  if (Array.isArray(value)) {
    const hit = (i: number) => head === "*" || head === String(i);
    if (rest.length === 0) return value.filter((_, i) => !hit(i));
    return value.map((item, i) => (hit(i) ? omitPath(item, rest) : item));
  }
  const obj = value as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(obj)) {
    if (head !== "*" && head !== k) out[k] = v;
    else if (rest.length) out[k] = omitPath(v, rest);
  }
  return out;
}

function withoutPaths(c: Comparer, root: string, value: unknown): unknown {
  let v = value;
  for (const p of c.paths.get(root) ?? []) v = omitPath(v, p);
  return v;
}

/** Normalizes blocks for comparison (drops a null/absent `detail`; texts as the options say). */
function normBlocks(blocks: Block[], c: Comparer = EXACT): unknown {
  return blocks.map((b) => {
    const { detail, ...rest } = b;
    const block = detail == null ? rest : { ...rest, detail };
    return c.text && block.type === "text" ? { ...block, text: c.text(block.text) } : block;
  });
}

function sameReward(a: number | null | undefined, b: number | null | undefined, tolerance: number): boolean {
  if (a == null || b == null) return (a ?? null) === (b ?? null);
  if (a === b) return true;
  // Inclusive, without float noise: 0.5 and 0.49 are within 0.01.
  return tolerance > 0 && Math.abs(a - b) <= tolerance + 1e-9 * Math.max(1, Math.abs(a), Math.abs(b));
}

function sameText(a: string | null | undefined, b: string | null | undefined, c: Comparer): boolean {
  if (a == null || b == null || !c.text) return (a ?? null) === (b ?? null);
  return c.text(a) === c.text(b);
}

function stepFields(a: TrajectoryStep, b: TrajectoryStep, c: Comparer): StepField[] {
  const fields: StepField[] = [];
  const on = (f: StepField) => !c.fields.has(f);
  if (on("tool") && a.tool !== b.tool) fields.push("tool");
  if (on("input") && !sameJson(withoutPaths(c, "input", a.input), withoutPaths(c, "input", b.input)))
    fields.push("input");
  if (
    on("observation") &&
    !sameJson(
      withoutPaths(c, "observation", normBlocks(a.blocks, c)),
      withoutPaths(c, "observation", normBlocks(b.blocks, c)),
    )
  )
    fields.push("observation");
  if (on("reward") && !sameReward(a.reward, b.reward, c.tolerance)) fields.push("reward");
  if (on("finished") && a.finished !== b.finished) fields.push("finished");
  if (on("ok") && a.ok !== b.ok) fields.push("ok");
  if (on("error") && !sameText(a.error, b.error, c)) fields.push("error");
  if (
    on("metadata") &&
    !sameJson(withoutPaths(c, "metadata", a.metadata), withoutPaths(c, "metadata", b.metadata))
  )
    fields.push("metadata");
  return fields;
}

/**
 * The fields in which two steps differ: exactly by default, or as loosely as `options` say (an
 * ignored field is never listed). Throws on an `ignore` entry parseIgnore refuses.
 */
export function compareSteps(a: TrajectoryStep, b: TrajectoryStep, options?: CompareOptions): StepField[] {
  return stepFields(a, b, comparer(options));
}

/**
 * Aligns two trajectories step by step and lists what differs: exactly by default (the UI), or as
 * loosely as `options` say (golden tests). A step missing on one side always differs in every
 * field. With a reward tolerance, the totals may differ by it once per step.
 */
export function diffTrajectories(a: Trajectory, b: Trajectory, options?: CompareOptions): TrajectoryDiff {
  const c = comparer(options);
  const n = Math.max(a.steps.length, b.steps.length);
  const steps: StepDiff[] = [];
  let differing = 0;
  let firstDifference: number | null = null;
  for (let i = 0; i < n; i++) {
    const sa = a.steps[i] ?? null;
    const sb = b.steps[i] ?? null;
    const fields = sa && sb ? stepFields(sa, sb, c) : [...STEP_FIELDS];
    if (fields.length) {
      differing++;
      firstDifference ??= i + 1;
    }
    steps.push({ index: i + 1, a: sa, b: sb, fields });
  }
  const header: string[] = [];
  if (a.env !== b.env) header.push("env");
  if (!sameJson(a.task, b.task)) header.push("task");
  if (
    !c.fields.has("prompt") &&
    !sameJson(
      withoutPaths(c, "prompt", a.prompt && normBlocks(a.prompt, c)),
      withoutPaths(c, "prompt", b.prompt && normBlocks(b.prompt, c)),
    )
  )
    header.push("prompt");
  if (a.end_reason !== b.end_reason) header.push("end_reason");
  if (
    !c.fields.has("reward") &&
    !sameReward(a.total_reward, b.total_reward, c.tolerance * Math.max(1, a.steps.length, b.steps.length))
  )
    header.push("total_reward");
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

/** Beyond this many characters on a side, or this many edits, texts are shown replaced whole. */
const WORD_DIFF_MAX_CHARS = 200_000;
const WORD_DIFF_MAX_EDITS = 500;

/**
 * The word diff of two texts, for showing what changed (the compare view, replay diffs, `test`):
 * words, punctuation, newlines and runs of other whitespace are the tokens (jsdiff's
 * diffWordsWithSpace), so a change of spacing shows as one. Beyond a size or edit bound the texts
 * are "all deleted, all added", so a huge or wholly different text stays fast.
 *
 * @example diffText("you said hello", "you said HELLO!")
 * // [{ op: "same", text: "you said " }, { op: "del", text: "hello" }, { op: "add", text: "HELLO!" }]
 */
export function diffText(a: string, b: string): TextOp[] {
  if (a === b) return [{ op: "same", text: a }];
  const whole: TextOp[] = [
    ...(a ? [{ op: "del" as const, text: a }] : []),
    ...(b ? [{ op: "add" as const, text: b }] : []),
  ];
  if (a.length > WORD_DIFF_MAX_CHARS || b.length > WORD_DIFF_MAX_CHARS) return whole;
  const changes = diffWordsWithSpace(a, b, { maxEditLength: WORD_DIFF_MAX_EDITS });
  if (!changes) return whole;
  const ops: TextOp[] = [];
  for (const c of changes) {
    const op = c.added ? "add" : c.removed ? "del" : "same";
    const last = ops.at(-1);
    if (last?.op === op) last.text += c.value;
    else if (c.value) ops.push({ op, text: c.value });
  }
  return ops;
}
