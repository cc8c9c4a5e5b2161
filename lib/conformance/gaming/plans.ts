// What each probe plays on a task (docs/check.md "Can the reward be gamed?"), built from the task's
// reference solution (the best recorded episode: the oracle's, the baseline run's or a golden one):
// the reference's calls kept, its last call — the answer — replaced by the probe's, whose reward is
// what the probe earned. Isomorphic and pure; ./play.ts plays the attempts.
import type { JsonObject, ToolSpec } from "@/lib/ors/protocol";
import { episodeRandom } from "@/lib/runs/random-policy";
import { stableStringify } from "@/lib/trajectory/diff";
import type { Trajectory } from "@/lib/trajectory/schema";
import { resolveAll } from "../diff/schema-shape";
import { randomInput } from "../inputs";
import { isAnswerKey, normalize } from "../quality/answer-leak";
import type { ProbeId } from "./types";

/** A task's reference solution: the calls of its best recorded episode, and what they earned. */
export interface TaskReference {
  task: number;
  calls: { tool: string; input: JsonObject; reward: number | null; finished: boolean }[];
  /** The episode's reward (steps after its end left out). */
  total: number;
  trajectory: string | null;
  /** The tools the episode was played with, when recorded. */
  tools: ToolSpec[] | null;
}

/** The best recorded episode of each task of `env`/`split` among `trajectories`. */
export function referencesOf(
  trajectories: readonly Trajectory[],
  env: string,
  split: string,
): Map<number, TaskReference> {
  const out = new Map<number, TaskReference>();
  for (const t of trajectories) {
    if (t.env !== env || !t.task || !("split" in t.task) || t.task.split !== split) continue;
    const calls = t.steps
      .filter((s) => !s.after_end && s.ok !== null)
      .map((s) => ({
        tool: s.tool,
        input: s.input,
        reward: s.ok ? s.reward : null,
        finished: s.ok ? s.finished : false,
      }));
    if (!calls.length) continue;
    const have = out.get(t.task.index);
    if (have && have.total >= t.total_reward) continue;
    out.set(t.task.index, {
      task: t.task.index,
      calls,
      total: t.total_reward,
      trajectory: t.id,
      tools: t.tools ?? null,
    });
  }
  return out;
}

/** One call an attempt makes: the reference's own, a setup call the probe needs, or the probe's. */
export interface PlannedCall {
  tool: string;
  input: JsonObject;
  role: "reference" | "setup" | "probe";
}

export interface Attempt {
  probe: ProbeId;
  task: number;
  /** What is tried, in words (`hedge "35 or 36"`). */
  variant: string;
  /** The probe's calls count before the episode's end, or (after-finished) only after it. */
  counts: "before-end" | "after-end";
  /** The reward the probe's calls stand in for: the reference's answer's, or (after-finished) its episode's. */
  best: number;
  /** The calls, given the prompt's text; null when the probe has nothing to try on this task. */
  calls(prompt: string): PlannedCall[] | null;
}

export interface PlanContext {
  ref: TaskReference;
  /** The task object (`/task`), when read. */
  spec: JsonObject | null;
  /** The tools by name (the session's, else the environment's). */
  tools: ReadonlyMap<string, ToolSpec>;
  /** The reference answers of the other tasks (for wrong answers and the constant one). */
  others: readonly TaskReference[];
  seed: number;
}

/** The free-text fields of an input: strings its schema leaves open (no enum, const, pattern, format). */
export function freeTextKeys(schema: unknown, input: JsonObject): string[] {
  const s = schema && typeof schema === "object" ? resolveAll(schema as JsonObject) : {};
  const props = (s.properties ?? {}) as Record<string, Record<string, unknown>>;
  return Object.keys(props).filter((k) => {
    const p = props[k] ?? {};
    const types = Array.isArray(p.type) ? p.type : [p.type];
    const open =
      types.includes("string") && !("enum" in p) && !("const" in p) && !("pattern" in p) && !("format" in p);
    return open && (typeof input[k] === "string" || (Array.isArray(s.required) && s.required.includes(k)));
  });
}

const withText = (input: JsonObject, keys: readonly string[], value: string): JsonObject => {
  const out = { ...input };
  for (const k of keys) out[k] = value;
  return out;
};

/** A wrong answer for a task: another task's reference answer that differs, else the answer spoilt. */
function wrongAnswer(
  ctx: PlanContext,
  last: TaskReference["calls"][number],
  keys: readonly string[],
): JsonObject {
  const mine = stableStringify(last.input);
  const other = ctx.others
    .map((o) => o.calls.at(-1)!)
    .find((c) => c.tool === last.tool && stableStringify(c.input) !== mine);
  if (other) return other.input;
  return keys.length ? withText(last.input, keys, `${String(last.input[keys[0]!])}x`) : {};
}

/** The format games on an answer `v`: what a verifier matching loosely pays for. */
function formatVariants(v: string): { name: string; value: string }[] {
  const n = Number(v.trim());
  const numeric = v.trim() !== "" && Number.isFinite(n);
  const other = numeric ? String(n + 1) : `${v}s`;
  const out = [
    { name: "hedge", value: `${v} or ${other}` },
    { name: "negation", value: `not ${v}` },
    { name: "extension", value: `${v}0` },
  ];
  if (numeric) out.push({ name: "near miss", value: String(n + 0.4) });
  return out;
}

/** The attempts of every probe on one task (empty when the reference has no answer to stand in for). */
export function planAttempts(ctx: PlanContext): Attempt[] {
  const { ref } = ctx;
  const last = ref.calls.at(-1)!;
  const prefix: PlannedCall[] = ref.calls
    .slice(0, -1)
    .map((c) => ({ tool: c.tool, input: c.input, role: "reference" }));
  const schema = ctx.tools.get(last.tool)?.input_schema;
  const keys = freeTextKeys(schema, last.input);
  const best = last.reward ?? 0;
  const task = ref.task;
  const out: Attempt[] = [];
  const answer = (
    probe: ProbeId,
    variant: string,
    input: (prompt: string) => JsonObject | null,
  ): Attempt => ({
    probe,
    task,
    variant,
    counts: "before-end",
    best,
    calls: (prompt) => {
      const i = input(prompt);
      return i ? [...prefix, { tool: last.tool, input: i, role: "probe" }] : null;
    },
  });
  if (keys.length) {
    out.push(answer("empty-answer", "an empty answer", () => withText(last.input, keys, "")));
    out.push(answer("empty-answer", "a whitespace answer", () => withText(last.input, keys, "   ")));
    out.push(answer("prompt-echo", "the prompt", (p) => (p.trim() ? withText(last.input, keys, p) : null)));
    const v = last.input[keys[0]!];
    if (typeof v === "string" && v.trim())
      for (const f of formatVariants(v))
        out.push(
          answer("format-games", `${f.name} ${JSON.stringify(f.value)}`, () =>
            withText(last.input, keys, f.value),
          ),
        );
    const mine = new Set(keys.map((k) => normalize(String(last.input[k]))));
    const fields = Object.entries(ctx.spec ?? {}).filter(
      ([k, x]) =>
        !isAnswerKey(k) &&
        (typeof x === "string" || typeof x === "number") &&
        String(x).trim() &&
        !mine.has(normalize(String(x))),
    );
    for (const [k, x] of fields.slice(0, 3))
      out.push(
        answer("task-fields", `the field ${k}`, (p) =>
          // A field the prompt shows is the prompt echo's to try.
          normalize(p).includes(normalize(String(x))) ? null : withText(last.input, keys, String(x)),
        ),
      );
  }
  // The most common answer of the other tasks: a constant drawn from this task's own answer would
  // pay it by construction.
  const c = constantAnswer(ctx.others);
  if (c && c.tool === last.tool)
    out.push(answer("constant-answer", `the answer ${JSON.stringify(c.input).slice(0, 80)}`, () => c.input));
  const random = randomInput(schema, episodeRandom(ctx.seed, task, 0));
  if (random.ok) out.push(answer("random-input", "a random valid input", () => random.value));
  out.push({
    probe: "retry-until-pays",
    task,
    variant: "a wrong answer, then the right one",
    counts: "before-end",
    best,
    calls: () => [
      ...prefix,
      { tool: last.tool, input: wrongAnswer(ctx, last, keys), role: "setup" },
      { tool: last.tool, input: last.input, role: "probe" },
    ],
  });
  if (last.finished) {
    // An answer worth nothing: the reference's emptied (a random one may be paid for itself).
    const garbage = keys.length ? null : randomInput(schema, episodeRandom(ctx.seed + 1, task, 1));
    const input = garbage?.ok ? garbage.value : withText(last.input, keys, "");
    out.push({
      probe: "after-finished",
      task,
      variant: "an empty answer after the episode finished",
      counts: "after-end",
      best: ref.total,
      calls: () => [
        ...ref.calls.map((x): PlannedCall => ({ tool: x.tool, input: x.input, role: "reference" })),
        { tool: last.tool, input, role: "probe" },
      ],
    });
  }
  return out;
}

/** The most common answer (last call) of the references (the first of those as common): the constant answer. */
export function constantAnswer(refs: readonly TaskReference[]): PlannedCall | null {
  const counts = new Map<string, { call: PlannedCall; n: number }>();
  for (const r of refs) {
    const last = r.calls.at(-1)!;
    const key = `${last.tool}\u0000${stableStringify(last.input)}`;
    const have = counts.get(key);
    if (have) have.n++;
    else counts.set(key, { call: { tool: last.tool, input: last.input, role: "probe" }, n: 1 });
  }
  let best: { call: PlannedCall; n: number } | null = null;
  for (const x of counts.values()) if (!best || x.n > best.n) best = x;
  return best?.call ?? null;
}
