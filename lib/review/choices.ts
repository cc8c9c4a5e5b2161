// The keys of a label form (docs/review.md "Reviewing"): every choice of the label set's boolean and
// enum fields gets a digit, 1 to 9 in the schema's order (booleans: yes, then no), so a reviewer
// labels without leaving the keyboard. Pure and isomorphic.
import type { JsonObject } from "@/lib/ors/protocol";

export interface Choice {
  /** The key that picks it: "1" to "9". */
  key: string;
  field: string;
  value: string | number | boolean;
  /** What the button says: the field and the value (`correct: yes`). */
  label: string;
}

type Prop = { type?: unknown; enum?: unknown; title?: unknown };

/** The choices of a label set's schema, at most nine (the digits). */
export function choicesOf(schema: JsonObject): Choice[] {
  const props = (schema.properties ?? {}) as Record<string, Prop>;
  const out: Choice[] = [];
  for (const [field, p] of Object.entries(props)) {
    const type = Array.isArray(p.type) ? p.type.find((t) => t !== "null") : p.type;
    const name = typeof p.title === "string" ? p.title : field;
    const values: (string | number | boolean)[] =
      type === "boolean"
        ? [true, false]
        : Array.isArray(p.enum)
          ? p.enum.filter((v): v is string | number => typeof v === "string" || typeof v === "number")
          : [];
    for (const value of values) {
      if (out.length === 9) return out;
      const shown = typeof value === "boolean" ? (value ? "yes" : "no") : String(value);
      out.push({ key: String(out.length + 1), field, value, label: `${name}: ${shown}` });
    }
  }
  return out;
}

/** The value with a choice made (a new object). */
export function choose(value: JsonObject, c: Choice): JsonObject {
  return { ...value, [c.field]: c.value };
}
