// Label sets and labels checked before they are stored (docs/review.md "Label sets"): a set's schema
// is a small JSON Schema of an object that AJV compiles, its verdict field (named or found) exists;
// a label's value satisfies its set's schema, on the set's target (an episode, or one of its steps).
import { OrsError } from "@/lib/ors/protocol";
import { compileJsonSchema, type JsonSchemaCheck } from "@/lib/ors/sdk/json-schema";
import type { LabelSet } from "@/lib/store/types";
import { type LabelSetRequest, MAX_LABEL_SCHEMA_CHARS, MAX_LABEL_VALUE_CHARS } from "./spec";
import { verdictRuleOf } from "./verdict";

/** The schema of a new label set, checked; and its verdict field. Throws a 400 OrsError naming the problem. */
export function checkLabelSet(r: LabelSetRequest): { verdict: string | null } {
  const s = r.schema;
  if (JSON.stringify(s).length > MAX_LABEL_SCHEMA_CHARS)
    throw new OrsError(
      400,
      `schema: larger than ${MAX_LABEL_SCHEMA_CHARS / 1024} KiB; a label set is a small form`,
    );
  if (
    s.type !== "object" ||
    typeof s.properties !== "object" ||
    s.properties === null ||
    Array.isArray(s.properties)
  )
    throw new OrsError(
      400,
      'schema: a label set is a JSON Schema of an object: {"type": "object", "properties": {...}}',
    );
  if (Object.keys(s.properties).length === 0)
    throw new OrsError(400, "schema: give the label at least one field");
  try {
    compileJsonSchema(s);
  } catch (err) {
    throw new OrsError(400, `schema: not a JSON Schema AJV can use: ${(err as Error).message}`);
  }
  if (r.verdict) {
    if (!verdictRuleOf(s, r.verdict))
      throw new OrsError(
        400,
        `verdict: "${r.verdict}" is not a boolean or number field of the schema (the verdict says whether an episode is correct)`,
      );
    return { verdict: r.verdict };
  }
  return { verdict: r.verdict === null ? null : (verdictRuleOf(s)?.field ?? null) };
}

const validators = new Map<string, (raw: unknown) => JsonSchemaCheck>();

/** A label's value checked against its set's schema (compiled once per set). Throws a 400 OrsError. */
export function checkLabelValue(set: LabelSet, value: unknown, step: number | null): void {
  if (set.target === "episode" && step !== null)
    throw new OrsError(400, `step: the label set "${set.name}" labels whole episodes, not steps`);
  if (set.target === "step" && step === null)
    throw new OrsError(400, `step: the label set "${set.name}" labels steps: say which one`);
  if (JSON.stringify(value).length > MAX_LABEL_VALUE_CHARS)
    throw new OrsError(400, `value: larger than ${MAX_LABEL_VALUE_CHARS / 1024} KiB`);
  let validate = validators.get(set.id);
  if (!validate) {
    validate = compileJsonSchema(set.schema);
    if (validators.size > 200) validators.clear();
    validators.set(set.id, validate);
  }
  const r = validate(value);
  if (!r.ok) throw new OrsError(400, `value: ${r.error.replace(/\binput\b/g, "value")}`);
}
