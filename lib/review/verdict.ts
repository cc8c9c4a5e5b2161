// What a label says about an episode's success (docs/review.md "Label sets"): a label set has a
// notion of correct when one of its fields is a boolean (`correct`) or a target reward
// (`reward_should_be`, a success when at least the run's threshold). Pure and isomorphic.
import type { JsonObject } from "@/lib/ors/protocol";

/** The field of a label set that carries the verdict, and how it reads. */
export type VerdictRule = { field: string; kind: "boolean" } | { field: string; kind: "reward" };

type Props = Record<string, { type?: unknown } | undefined>;

function typeOf(prop: { type?: unknown } | undefined): string | null {
  if (!prop) return null;
  const t = prop.type;
  if (typeof t === "string") return t;
  // `["boolean", "null"]`: an optional boolean still reads as one.
  if (Array.isArray(t)) return (t.find((x) => x !== "null") as string | undefined) ?? null;
  return null;
}

/**
 * The verdict field of a label set's schema: the one named (`field`), else `correct` when it is a
 * boolean, else `reward_should_be` when it is a number, else the first boolean field; null when the
 * set has no notion of correct (then no agreement figures are computed).
 */
export function verdictRuleOf(schema: JsonObject, field?: string | null): VerdictRule | null {
  const props = (schema.properties ?? {}) as Props;
  const rule = (name: string): VerdictRule | null => {
    const t = typeOf(props[name]);
    if (t === "boolean") return { field: name, kind: "boolean" };
    if (t === "number" || t === "integer") return { field: name, kind: "reward" };
    return null;
  };
  if (field) return rule(field);
  if (typeOf(props.correct) === "boolean") return rule("correct");
  const target = rule("reward_should_be");
  if (target?.kind === "reward") return target;
  const first = Object.keys(props).find((k) => typeOf(props[k]) === "boolean");
  return first ? rule(first) : null;
}

/** Whether a label judges the episode a success (null: the label does not say). */
export function humanVerdict(value: JsonObject, rule: VerdictRule, successAt: number): boolean | null {
  const v = value[rule.field];
  if (rule.kind === "boolean") return typeof v === "boolean" ? v : null;
  return typeof v === "number" && Number.isFinite(v) ? v >= successAt : null;
}

/**
 * The verdict of several reviewers on one episode: the majority; null on a tie (the episode is
 * disputed, and left out of the confusion matrix).
 */
export function majority(verdicts: readonly boolean[]): boolean | null {
  let yes = 0;
  for (const v of verdicts) if (v) yes++;
  const no = verdicts.length - yes;
  return yes === no ? null : yes > no;
}

/** The verifier's success, as runs count it: the episode finished with a reward at least `successAt`. */
export function verifierSuccess(
  t: { end_reason: string | null; total_reward: number },
  successAt: number,
): boolean {
  return t.end_reason === "finished" && t.total_reward >= successAt;
}
