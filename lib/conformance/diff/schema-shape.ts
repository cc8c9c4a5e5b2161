// The reading side of the schema diff (./schema-diff.ts): what a JSON Schema node accepts — its
// `$ref`s resolved, booleans as schemas, union variants, JSON types — and the keyword lists the
// comparison walks. Isomorphic and pure.
import { stableStringify } from "@/lib/trajectory/diff";

export type Schema = Record<string, unknown>;
export type SchemaPath = (string | number)[];

/** Keywords that describe and never constrain. */
export const ANNOTATIONS = [
  "title",
  "description",
  "examples",
  "$comment",
  "deprecated",
  "readOnly",
  "writeOnly",
];
/** Bounds that narrow the accepted values when raised, and those that narrow them when lowered. */
export const LOWER = ["minimum", "exclusiveMinimum", "minLength", "minItems", "minProperties", "minContains"];
export const UPPER = ["maximum", "exclusiveMaximum", "maxLength", "maxItems", "maxProperties", "maxContains"];
/** Constraints compared as a whole: any difference narrows or changes what is accepted. */
export const WHOLE = [
  "not",
  "if",
  "then",
  "else",
  "patternProperties",
  "propertyNames",
  "dependentRequired",
  "dependentSchemas",
  "dependencies",
  "contains",
  "unevaluatedProperties",
  "unevaluatedItems",
];
export const HANDLED = new Set([
  ...ANNOTATIONS,
  ...LOWER,
  ...UPPER,
  ...WHOLE,
  "type",
  "enum",
  "const",
  "default",
  "properties",
  "required",
  "additionalProperties",
  "items",
  "prefixItems",
  "anyOf",
  "oneOf",
  "allOf",
  "pattern",
  "format",
  "multipleOf",
  "uniqueItems",
  "$ref",
  "$defs",
  "definitions",
  "$schema",
  "$id",
  "$anchor",
]);
export const MAX_DEPTH = 24;

export const canon = (v: unknown) => stableStringify(v);

/** A value shown in a change: itself when short, else its JSON cut. */
export function shortValue(v: unknown, max = 160): unknown {
  const s = canon(v);
  return s.length <= max ? v : `${s.slice(0, max)}…`;
}

export function isSchema(v: unknown): v is Schema {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** A tool's input schema as compared: none (null, absent) is an object without properties. */
export function inputSchemaOf(v: unknown): Schema {
  return isSchema(v) ? v : { type: "object", properties: {} };
}

/** A schema with its annotations left out (what a validator reads). */
export function withoutAnnotations(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(withoutAnnotations);
  if (!isSchema(v)) return v;
  const out: Schema = {};
  for (const [k, x] of Object.entries(v)) {
    if (ANNOTATIONS.includes(k) || k === "$schema" || k === "$id") continue;
    // `properties` holds names, not keywords: only its values are schemas.
    out[k] =
      k === "properties" && isSchema(x)
        ? Object.fromEntries(Object.entries(x).map(([p, s]) => [p, withoutAnnotations(s)]))
        : withoutAnnotations(x);
  }
  return out;
}

/** Whether two input schemas accept the same inputs, as far as their keywords say. */
export function sameSchema(a: unknown, b: unknown): boolean {
  return (
    canon(withoutAnnotations(resolveAll(inputSchemaOf(a)))) ===
    canon(withoutAnnotations(resolveAll(inputSchemaOf(b))))
  );
}

/** The definition a local `$ref` names (`#/$defs/X`, `#/definitions/X`), or null. */
function lookup(ref: string, root: Schema): Schema | null {
  const m = /^#\/(\$defs|definitions)\/(.+)$/.exec(ref);
  if (!m) return null;
  const defs = root[m[1]!];
  const name = m[2]!.replace(/~1/g, "/").replace(/~0/g, "~");
  return isSchema(defs) && isSchema(defs[name]) ? defs[name] : null;
}

/** Every local `$ref` replaced by its definition (a recursive one kept as `{"$ref": ...}`). */
export function resolveAll(schema: Schema): Schema {
  const walk = (v: unknown, seen: readonly string[]): unknown => {
    if (Array.isArray(v)) return v.map((x) => walk(x, seen));
    if (!isSchema(v)) return v;
    let node: Schema = v;
    const ref = typeof node.$ref === "string" ? node.$ref : null;
    if (ref && !seen.includes(ref) && seen.length < MAX_DEPTH) {
      const target = lookup(ref, schema);
      if (target) {
        const { $ref: _r, ...siblings } = node;
        return walk({ ...target, ...siblings }, [...seen, ref]);
      }
    }
    if (ref) node = { $ref: ref };
    const out: Schema = {};
    for (const [k, x] of Object.entries(node)) {
      if (k === "$defs" || k === "definitions") continue;
      out[k] =
        k === "properties" && isSchema(x)
          ? Object.fromEntries(Object.entries(x).map(([p, s]) => [p, walk(s, seen)]))
          : walk(x, seen);
    }
    return out;
  };
  return walk(schema, []) as Schema;
}

/** A subschema as compared: booleans as schemas (`true` accepts anything, `false` nothing). */
export function node(v: unknown): Schema {
  if (v === true || v === undefined) return {};
  if (v === false) return { not: {} };
  return isSchema(v) ? v : {};
}

export function union(s: Schema): Schema[] | null {
  const u = Array.isArray(s.anyOf) ? s.anyOf : Array.isArray(s.oneOf) ? s.oneOf : null;
  return u ? u.map(node) : null;
}

/** The JSON types a schema accepts (null: any). */
export function typesOf(s: Schema): string[] | null {
  const u = union(s);
  if (u) {
    const all = new Set<string>();
    for (const b of u) {
      const t = typesOf(b);
      if (!t) return null;
      for (const x of t) all.add(x);
    }
    return [...all];
  }
  if (typeof s.type === "string") return [s.type];
  if (Array.isArray(s.type)) return s.type.filter((t): t is string => typeof t === "string");
  if ("const" in s) return [jsonType(s.const)];
  if (Array.isArray(s.enum)) return [...new Set(s.enum.map(jsonType))];
  return null;
}

export function jsonType(v: unknown): string {
  if (v === null) return "null";
  if (Array.isArray(v)) return "array";
  if (typeof v === "number") return Number.isInteger(v) ? "integer" : "number";
  return typeof v;
}

export function covers(types: readonly string[], t: string): boolean {
  return types.includes(t) || (t === "integer" && types.includes("number"));
}

/** Where a path points, in words: `answer`, `order.items[]`, `the input`. */
export function describePath(path: SchemaPath): string {
  let out = "";
  for (let i = 0; i < path.length; i++) {
    const seg = path[i]!;
    const next = path[i + 1];
    if (seg === "properties" && next !== undefined) {
      out += `${out ? "." : ""}${String(next)}`;
      i++;
    } else if (seg === "items") out += "[]";
    else if (seg === "prefixItems" && next !== undefined) {
      out += `[${String(next)}]`;
      i++;
    } else if (seg === "additionalProperties" && i < path.length - 1) out += "{*}";
    else if ((seg === "anyOf" || seg === "oneOf") && next !== undefined) {
      out += ` (variant ${Number(next) + 1})`;
      i++;
    } else if (seg === "allOf" && next !== undefined) i++;
  }
  return out.trim() || "the input";
}

export const list = (types: readonly string[] | null) => (types ? types.join("|") : "any");
