// Tool inputs drawn from a tool's `input_schema` (JSON Schema as zod or Pydantic 2 emit it: $defs/$ref,
// anyOf with null, const, enum, defaults, prefixItems, formats): a minimal valid input, an input that
// must be refused, and — given a random source — random valid inputs. A leaf: the conformance check
// (lib/conformance) and the runs' `random` policy (lib/runs) both draw from it. Isomorphic.

type Schema = Record<string, unknown>;
export type JsonInput = Record<string, unknown>;

export type Generated = { ok: true; value: unknown } | { ok: false; reason: string };

const MAX_DEPTH = 10;

/** A source of floats in [0, 1) (envs/shared/seeded-random.ts); absent: the minimal input. */
type Rand = (() => number) | undefined;

function pick<T>(rand: () => number, items: readonly T[]): T {
  return items[Math.floor(rand() * items.length)]!;
}

function isSchema(v: unknown): v is Schema {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** Follows a local `$ref` (`#/$defs/X`, `#/definitions/X`, any JSON pointer into the root). */
function resolve(schema: Schema, root: Schema): Schema {
  let s = schema;
  for (let i = 0; i < 16 && typeof s.$ref === "string"; i++) {
    const ref = s.$ref as string;
    if (!ref.startsWith("#")) return {};
    let target: unknown = root;
    for (const raw of ref.slice(1).split("/").filter(Boolean)) {
      const key = decodeURIComponent(raw.replace(/~1/g, "/").replace(/~0/g, "~"));
      target = isSchema(target) ? target[key] : undefined;
    }
    if (!isSchema(target)) return {};
    // Keywords beside $ref (Pydantic puts `default`/`description` there) win over the target's.
    const { $ref: _ref, ...rest } = s;
    s = { ...target, ...rest };
  }
  return s;
}

function typesOf(s: Schema): string[] {
  if (typeof s.type === "string") return [s.type];
  if (Array.isArray(s.type)) return s.type.filter((t): t is string => typeof t === "string");
  if (isSchema(s.properties) || Array.isArray(s.required)) return ["object"];
  if (s.items !== undefined || Array.isArray(s.prefixItems)) return ["array"];
  return [];
}

function numberIn(s: Schema, integer: boolean, rand?: Rand): Generated {
  const num = (k: string) => (typeof s[k] === "number" ? (s[k] as number) : undefined);
  let lo = num("minimum") ?? Number.NEGATIVE_INFINITY;
  let hi = num("maximum") ?? Number.POSITIVE_INFINITY;
  const exLo = num("exclusiveMinimum");
  const exHi = num("exclusiveMaximum");
  const step = integer ? 1 : 0.5;
  if (exLo !== undefined) lo = Math.max(lo, integer ? Math.floor(exLo) + 1 : exLo + step);
  if (exHi !== undefined) hi = Math.min(hi, integer ? Math.ceil(exHi) - 1 : exHi - step);
  let v = lo <= 0 && hi >= 0 ? 0 : lo > 0 ? lo : hi;
  if (rand) {
    // Unbounded sides reach 100 past the other bound (or past 0).
    const from = Number.isFinite(lo) ? lo : Math.min(0, hi) - 100;
    const to = Number.isFinite(hi) ? hi : Math.max(0, from) + 100;
    v = from + rand() * (to - from);
    if (!integer) v = Math.round(v * 100) / 100;
  }
  if (integer) v = Math.ceil(v);
  const multipleOf = num("multipleOf");
  if (multipleOf && multipleOf > 0) v = Math.ceil(v / multipleOf) * multipleOf;
  if (rand && !(v >= lo && v <= hi)) return numberIn(s, integer, undefined);
  if (!(v >= lo && v <= hi) || !Number.isFinite(v))
    return { ok: false, reason: "no number satisfies its bounds" };
  return { ok: true, value: v };
}

const FORMAT_EXAMPLES: Record<string, string> = {
  email: "a@example.com",
  "idn-email": "a@example.com",
  uri: "https://example.com/",
  "uri-reference": "https://example.com/",
  iri: "https://example.com/",
  url: "https://example.com/",
  hostname: "example.com",
  ipv4: "127.0.0.1",
  ipv6: "::1",
  date: "2024-01-01",
  "date-time": "2024-01-01T00:00:00Z",
  time: "00:00:00Z",
  duration: "P1D",
  uuid: "00000000-0000-4000-8000-000000000000",
};

function stringIn(s: Schema, rand?: Rand): Generated {
  const min = typeof s.minLength === "number" ? s.minLength : 0;
  const max = typeof s.maxLength === "number" ? s.maxLength : Number.POSITIVE_INFINITY;
  const candidates: string[] = [];
  if (rand && typeof s.pattern !== "string" && typeof s.format !== "string") {
    const length = min + Math.floor(rand() * (Math.min(max, min + 12) - min + 1));
    const letters = "abcdefghijklmnopqrstuvwxyz0123456789 ";
    let out = "";
    for (let i = 0; i < length; i++) out += pick(rand, [...letters]);
    if (out.length >= min && out.length <= max) return { ok: true, value: out };
  }
  if (typeof s.format === "string" && FORMAT_EXAMPLES[s.format]) candidates.push(FORMAT_EXAMPLES[s.format]!);
  candidates.push("a".repeat(min));
  // Short runs of one character class satisfy simple patterns (`^[0-9]{5}$`, `^[A-Z]{3}$`).
  for (let n = Math.max(min, 1); n <= Math.max(min, 8); n++)
    candidates.push("a".repeat(n), "0".repeat(n), "A".repeat(n), `#${"0".repeat(n)}`);
  candidates.push("aaa-000", "AAA-000", "a@example.com");
  let pattern: RegExp | null = null;
  if (typeof s.pattern === "string") {
    try {
      pattern = new RegExp(s.pattern, "u");
    } catch {
      return { ok: false, reason: `its pattern ${JSON.stringify(s.pattern)} is not a regular expression` };
    }
  }
  for (const c of candidates)
    if (c.length >= min && c.length <= max && (!pattern || pattern.test(c))) return { ok: true, value: c };
  return {
    ok: false,
    reason: `no simple string matches ${pattern ? `the pattern ${pattern.source}` : "its length"}`,
  };
}

function generate(schema: unknown, root: Schema, depth: number, rand?: Rand): Generated {
  if (schema === true || schema === undefined) return { ok: true, value: null };
  if (schema === false) return { ok: false, reason: "the schema accepts nothing" };
  if (!isSchema(schema)) return { ok: true, value: null };
  if (depth > MAX_DEPTH) return { ok: false, reason: "the schema nests too deep" };
  const s = resolve(schema, root);
  if ("const" in s) return { ok: true, value: s.const };
  if (Array.isArray(s.enum) && s.enum.length)
    return { ok: true, value: rand ? pick(rand, s.enum) : s.enum[0] };
  if ("default" in s && (!rand || rand() < 0.25)) return { ok: true, value: s.default };
  if (Array.isArray(s.examples) && s.examples.length && !rand) return { ok: true, value: s.examples[0] };
  for (const key of ["anyOf", "oneOf"] as const) {
    const options = s[key];
    if (!Array.isArray(options)) continue;
    // Optional[...]: null is the smallest valid value.
    if (!rand && options.some((o) => isSchema(o) && resolve(o, root).type === "null"))
      return { ok: true, value: null };
    // Random: from a random branch on (each tried in turn until one can be generated).
    const first = rand ? Math.floor(rand() * options.length) : 0;
    let last: Generated = { ok: false, reason: `no branch of its ${key} can be generated` };
    for (let i = 0; i < options.length; i++) {
      last = generate(options[(first + i) % options.length], root, depth + 1, rand);
      if (last.ok) return last;
    }
    return last;
  }
  if (Array.isArray(s.allOf)) {
    const merged: Schema = {};
    const required: string[] = [];
    const properties: Schema = {};
    for (const part of s.allOf) {
      if (!isSchema(part)) continue;
      const p = resolve(part, root);
      Object.assign(merged, p);
      if (isSchema(p.properties)) Object.assign(properties, p.properties);
      if (Array.isArray(p.required)) required.push(...(p.required as string[]));
    }
    const { allOf: _allOf, ...rest } = s;
    return generate({ ...merged, ...rest, properties, required }, root, depth + 1, rand);
  }
  const types = typesOf(s);
  const type =
    rand && types.length > 1 ? pick(rand, types) : types.includes("null") ? "null" : (types[0] ?? "any");
  switch (type) {
    case "null":
    case "any":
      return { ok: true, value: null };
    case "boolean":
      return { ok: true, value: rand ? rand() < 0.5 : false };
    case "integer":
      return numberIn(s, true, rand);
    case "number":
      return numberIn(s, false, rand);
    case "string":
      return stringIn(s, rand);
    case "array":
      return arrayIn(s, root, depth, rand);
    case "object":
      return objectIn(s, root, depth, rand);
    default:
      return { ok: false, reason: `unknown type ${JSON.stringify(type)}` };
  }
}

function arrayIn(s: Schema, root: Schema, depth: number, rand?: Rand): Generated {
  let min = typeof s.minItems === "number" ? s.minItems : 0;
  const out: unknown[] = [];
  const prefix = Array.isArray(s.prefixItems) ? s.prefixItems : [];
  for (const p of prefix) {
    const g = generate(p, root, depth + 1, rand);
    if (!g.ok) return g;
    out.push(g.value);
  }
  if (rand && s.items !== false) {
    const max = typeof s.maxItems === "number" ? s.maxItems : min + 3;
    min = Math.max(
      min,
      out.length + Math.floor(rand() * (Math.max(0, Math.min(max, min + 3) - out.length) + 1)),
    );
  }
  if (out.length >= min) return { ok: true, value: out };
  const items = s.items;
  for (let i = out.length; i < min; i++) {
    const g = generate(items, root, depth + 1, rand);
    if (!g.ok) return g;
    let v = g.value;
    // uniqueItems: vary simple values.
    if (s.uniqueItems === true && out.some((o) => JSON.stringify(o) === JSON.stringify(v))) {
      if (typeof v === "number") v = v + i;
      else if (typeof v === "string") v = `${v}${i}`;
      else return { ok: false, reason: "cannot make its items unique" };
    }
    out.push(v);
  }
  return { ok: true, value: out };
}

function objectIn(s: Schema, root: Schema, depth: number, rand?: Rand): Generated {
  const properties = isSchema(s.properties) ? s.properties : {};
  const required = Array.isArray(s.required)
    ? (s.required as unknown[]).filter((r) => typeof r === "string")
    : [];
  const out: Record<string, unknown> = {};
  for (const name of required as string[]) {
    const g = generate(properties[name], root, depth + 1, rand);
    if (!g.ok) return { ok: false, reason: `${name}: ${g.reason}` };
    out[name] = g.value;
  }
  // Random: each optional property half the time (left out when it cannot be generated), and a
  // map (`additionalProperties` a schema) a few entries of its own.
  if (rand) {
    for (const name of Object.keys(properties)) {
      if (name in out || rand() < 0.5) continue;
      const g = generate(properties[name], root, depth + 1, rand);
      if (g.ok) out[name] = g.value;
    }
    if (isSchema(s.additionalProperties)) {
      const max = typeof s.maxProperties === "number" ? s.maxProperties : Number.POSITIVE_INFINITY;
      const entries = Math.floor(rand() * 4);
      for (let i = 0; i < entries && Object.keys(out).length < max; i++) {
        const g = generate(s.additionalProperties, root, depth + 1, rand);
        if (g.ok) out[`key${Math.floor(rand() * 1000)}`] = g.value;
      }
    }
  }
  return { ok: true, value: out };
}

/** A minimal valid input for a tool: required fields only, defaults and examples where given. */
export function minimalInput(
  inputSchema: unknown,
): { ok: true; value: JsonInput } | { ok: false; reason: string } {
  if (inputSchema === null || inputSchema === undefined) return { ok: true, value: {} };
  if (!isSchema(inputSchema)) return { ok: false, reason: "its input_schema is not an object" };
  const s = resolve(inputSchema, inputSchema);
  // The root is the input object itself: its own default/examples do not replace generation.
  const g = objectIn(s, inputSchema, 0);
  if (!g.ok) return g;
  return { ok: true, value: g.value as JsonInput };
}

/**
 * A random valid input for a tool, drawn from `rand` (seeded: the same seed draws the same input):
 * enum members, anyOf branches, numbers within their bounds, strings of random letters (those with
 * a pattern or format as for the minimal input), optional properties half the time.
 */
export function randomInput(
  inputSchema: unknown,
  rand: () => number,
): { ok: true; value: JsonInput } | { ok: false; reason: string } {
  if (inputSchema === null || inputSchema === undefined) return { ok: true, value: {} };
  if (!isSchema(inputSchema)) return { ok: false, reason: "its input_schema is not an object" };
  const g = objectIn(resolve(inputSchema, inputSchema), inputSchema, 0, rand);
  if (!g.ok) return g;
  return { ok: true, value: g.value as JsonInput };
}

/** Whether a tool can be called with `{}` (no schema, or nothing required). */
export function takesNoInput(tool: { input_schema?: unknown }): boolean {
  const schema = tool.input_schema;
  if (!isSchema(schema)) return true;
  const s = resolve(schema, schema);
  return !Array.isArray(s.required) || s.required.length === 0;
}

/**
 * An input the tool must refuse, derived from its schema: a required field left out, or a typed
 * field given an object. Null when the schema accepts every object.
 */
export function invalidInput(inputSchema: unknown): { value: JsonInput; why: string } | null {
  if (!isSchema(inputSchema)) return null;
  const s = resolve(inputSchema, inputSchema);
  const required = Array.isArray(s.required)
    ? (s.required as unknown[]).filter((r) => typeof r === "string")
    : [];
  if (required.length) return { value: {}, why: `without the required ${JSON.stringify(required[0])}` };
  const properties = isSchema(s.properties) ? s.properties : {};
  for (const [name, raw] of Object.entries(properties)) {
    if (!isSchema(raw)) continue;
    const p = resolve(raw, inputSchema);
    const types = typesOf(p);
    if (types.length && !types.includes("object") && !p.anyOf && !p.oneOf)
      return {
        value: { [name]: { conformance_check: "not a valid value" } },
        why: `with an object for ${JSON.stringify(name)} (of type ${types.join(" or ")})`,
      };
  }
  return null;
}

const DURATION_PROPERTY =
  /^(seconds?|secs?|duration|delay|sleep|wait|time|timeout)(_?(s|sec|secs|seconds|ms|millis|milliseconds))?$/i;

/**
 * A minimal input whose duration field (`seconds`, `delay_ms`, ...) asks for about `seconds`, when
 * the schema has one whose bounds allow it; null otherwise.
 */
export function durationInput(inputSchema: unknown, seconds: number): JsonInput | null {
  if (!isSchema(inputSchema)) return null;
  const s = resolve(inputSchema, inputSchema);
  const properties = isSchema(s.properties) ? s.properties : {};
  for (const [name, raw] of Object.entries(properties)) {
    if (!DURATION_PROPERTY.test(name) || !isSchema(raw)) continue;
    const p = resolve(raw, inputSchema);
    const types = typesOf(p);
    if (!types.includes("number") && !types.includes("integer")) continue;
    const ms = /ms|milli/i.test(name);
    let value = ms ? seconds * 1000 : seconds;
    if (typeof p.maximum === "number") value = Math.min(value, p.maximum);
    if (typeof p.minimum === "number" && value < p.minimum) continue;
    const base = minimalInput(inputSchema);
    if (!base.ok) return null;
    return { ...base.value, [name]: value };
  }
  return null;
}
