// A stand-in for the AJV validator while AJV's code loads, so the form's first render does not wait
// for it (AJV is two-fifths of the form's code and compiles every schema it sees). During a render
// rjsf asks its validator one kind of question: does this value fit that schema (to pick a union's
// option, a condition's branch, a dependency). This answers it from the keywords that give a value
// its shape — type, const, enum, required, properties, additionalProperties, items, $ref, allOf /
// anyOf / oneOf — and the cheap bounds of strings and numbers; formats are taken as met. It reports
// no errors: the form shows errors, and refuses a call, only with AJV's verdict (validation.ts).
import type { RJSFSchema, ValidationData, ValidatorType } from "@rjsf/utils";
import { jsonEqual } from "./json-text";
import { isObj, resolveRef, type Schema } from "./schema-utils";

/** Deeper than this, a value is taken to fit (a recursive schema, a deep value). */
const MAX_DEPTH = 32;

function typeFits(type: unknown, v: unknown): boolean {
  if (Array.isArray(type)) return type.some((t) => typeFits(t, v));
  switch (type) {
    case "string":
      return typeof v === "string";
    case "number":
      return typeof v === "number";
    case "integer":
      return Number.isInteger(v);
    case "boolean":
      return typeof v === "boolean";
    case "null":
      return v === null;
    case "array":
      return Array.isArray(v);
    case "object":
      return isObj(v);
    default:
      return true;
  }
}

/** A pattern the value must match; one this browser cannot compile is taken as met. */
function patternFits(pattern: unknown, v: string): boolean {
  if (typeof pattern !== "string") return true;
  try {
    return new RegExp(pattern, "u").test(v);
  } catch {
    return true;
  }
}

function scalarFits(s: Schema, v: unknown): boolean {
  if (typeof v === "string") {
    const length = [...v].length;
    if (typeof s.minLength === "number" && length < s.minLength) return false;
    if (typeof s.maxLength === "number" && length > s.maxLength) return false;
    return patternFits(s.pattern, v);
  }
  if (typeof v === "number") {
    if (typeof s.minimum === "number" && v < s.minimum) return false;
    if (typeof s.maximum === "number" && v > s.maximum) return false;
    if (typeof s.exclusiveMinimum === "number" && v <= s.exclusiveMinimum) return false;
    if (typeof s.exclusiveMaximum === "number" && v >= s.exclusiveMaximum) return false;
  }
  return true;
}

function objectFits(s: Schema, v: Record<string, unknown>, root: Schema, depth: number): boolean {
  if (Array.isArray(s.required) && s.required.some((k) => typeof k === "string" && v[k] === undefined))
    return false;
  const props = isObj(s.properties) ? s.properties : {};
  for (const [k, x] of Object.entries(v)) {
    if (x === undefined) continue;
    if (k in props) {
      if (!fits(props[k], x, root, depth + 1)) return false;
    } else if (s.patternProperties === undefined && s.additionalProperties !== undefined) {
      if (!fits(s.additionalProperties, x, root, depth + 1)) return false;
    }
  }
  return true;
}

function arrayFits(s: Schema, v: unknown[], root: Schema, depth: number): boolean {
  if (typeof s.minItems === "number" && v.length < s.minItems) return false;
  if (typeof s.maxItems === "number" && v.length > s.maxItems) return false;
  const positions = Array.isArray(s.items) ? s.items : Array.isArray(s.prefixItems) ? s.prefixItems : null;
  if (positions) {
    const rest = Array.isArray(s.items) ? s.additionalItems : s.items;
    return v.every((x, i) => fits(i < positions.length ? positions[i] : rest, x, root, depth + 1));
  }
  return s.items === undefined || v.every((x) => fits(s.items, x, root, depth + 1));
}

/** Whether `v` fits `schema` by its shape (see the header); `undefined` fits only a schema without a type. */
export function fits(schema: unknown, v: unknown, root: Schema, depth = 0): boolean {
  if (schema === false) return false;
  if (!isObj(schema) || depth > MAX_DEPTH) return true;
  if (typeof schema.$ref === "string") {
    const target = resolveRef(root, schema.$ref.replace(/^__rjsf_rootSchema/, ""));
    if (target && !fits(target, v, root, depth + 1)) return false;
  }
  if (v === undefined)
    return schema.type === undefined && schema.const === undefined && schema.enum === undefined;
  if ("const" in schema && !jsonEqual(schema.const, v)) return false;
  if (Array.isArray(schema.enum) && !schema.enum.some((e) => jsonEqual(e, v))) return false;
  if (schema.type !== undefined && !typeFits(schema.type, v)) return false;
  if (Array.isArray(schema.allOf) && !schema.allOf.every((x) => fits(x, v, root, depth + 1))) return false;
  for (const key of ["anyOf", "oneOf"] as const) {
    const options = schema[key];
    if (Array.isArray(options) && !options.some((x) => fits(x, v, root, depth + 1))) return false;
  }
  if (!scalarFits(schema, v)) return false;
  if (isObj(v)) return objectFits(schema, v, root, depth);
  if (Array.isArray(v)) return arrayFits(schema, v, root, depth);
  return true;
}

const NO_ERRORS: ValidationData<unknown> = { errors: [], errorSchema: {} };

/** rjsf's validator interface over `fits`: no errors, ever (see the header). */
export const standInValidator: ValidatorType<unknown, RJSFSchema> = {
  isValid: (schema, formData, rootSchema) => fits(schema, formData, rootSchema as Schema),
  validateFormData: () => NO_ERRORS,
  rawValidation: () => ({ errors: [] }),
};
