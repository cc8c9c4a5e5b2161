// ORS tool specs in the shapes model providers document for function calling (docs/runs.md "Tool
// specs"): OpenAI's Chat Completions `{type: "function", function: {name, description, parameters}}`,
// Anthropic's Messages `{name, description, input_schema}`, and Gemini's `functionDeclarations`
// (`{name, description, parameters}`, whose `parameters` is Gemini's Schema: an OpenAPI subset, so
// `anyOf` with null becomes `nullable`, `const` an enum, and keywords it does not know are left out).
// Served by the relay (`GET …/<env>/tools?format=`) and for a run's recorded specs. Isomorphic.
import type { JsonObject, ToolSpec } from "./schemas";
import { functionNames, functionTools, parametersOf } from "./tool-schema";

export const TOOL_FORMATS = ["openai", "anthropic", "gemini"] as const;
export type ToolFormat = (typeof TOOL_FORMATS)[number];

export function isToolFormat(v: unknown): v is ToolFormat {
  return typeof v === "string" && (TOOL_FORMATS as readonly string[]).includes(v);
}

/** Anthropic's tool: the name under the same rule as OpenAI's, the input schema an object schema. */
export function anthropicTools(tools: readonly ToolSpec[]): JsonObject[] {
  const names = functionNames(tools);
  return tools.map((t) => ({
    name: names.toFunction(t.name),
    description: t.description,
    input_schema: parametersOf(t),
  }));
}

/** The keywords of Gemini's Schema object (its API reference). */
const GEMINI_KEYS = new Set([
  "type",
  "format",
  "title",
  "description",
  "nullable",
  "enum",
  "maxItems",
  "minItems",
  "properties",
  "required",
  "minProperties",
  "maxProperties",
  "minLength",
  "maxLength",
  "pattern",
  "example",
  "anyOf",
  "propertyOrdering",
  "default",
  "items",
  "minimum",
  "maximum",
]);

type Schema = Record<string, unknown>;
const isObject = (v: unknown): v is Schema => typeof v === "object" && v !== null && !Array.isArray(v);

/** A JSON Schema (its refs inlined) as Gemini's Schema. */
export function geminiSchema(schema: unknown): Schema {
  if (!isObject(schema)) return { type: "object" };
  const s: Schema = { ...schema };
  if (Array.isArray(s.oneOf) && !s.anyOf) s.anyOf = s.oneOf;
  // `type: ["string", "null"]` and `anyOf: [X, {type: "null"}]`: X, nullable.
  if (Array.isArray(s.type)) {
    const types = (s.type as unknown[]).filter((t) => t !== "null");
    if (types.length < (s.type as unknown[]).length) s.nullable = true;
    s.type = types[0] ?? "string";
  }
  if (Array.isArray(s.anyOf)) {
    const branches = (s.anyOf as unknown[]).filter((b) => !(isObject(b) && b.type === "null"));
    if (branches.length < (s.anyOf as unknown[]).length) s.nullable = true;
    if (branches.length === 1) {
      const { anyOf: _a, oneOf: _o, ...rest } = s;
      return geminiSchema({ ...(branches[0] as Schema), ...rest, anyOf: undefined });
    }
    s.anyOf = branches.map(geminiSchema);
  }
  if (s.const !== undefined && s.enum === undefined && typeof s.const === "string") {
    s.enum = [s.const];
    s.type ??= "string";
  }
  if (s.exclusiveMinimum !== undefined && s.minimum === undefined && typeof s.exclusiveMinimum === "number")
    s.minimum = s.exclusiveMinimum;
  if (s.exclusiveMaximum !== undefined && s.maximum === undefined && typeof s.exclusiveMaximum === "number")
    s.maximum = s.exclusiveMaximum;
  if (Array.isArray(s.examples) && s.example === undefined) s.example = s.examples[0];
  // A recursive definition's `$ref` stays a ref in JSON Schema; Gemini has none: an object.
  if (typeof s.$ref === "string")
    return { type: "object", ...(s.description ? { description: s.description } : {}) };
  const out: Schema = {};
  for (const [k, v] of Object.entries(s)) {
    if (!GEMINI_KEYS.has(k) || v === undefined) continue;
    if (k === "properties" && isObject(v))
      out.properties = Object.fromEntries(Object.entries(v).map(([p, sub]) => [p, geminiSchema(sub)]));
    else if (k === "items") out.items = geminiSchema(Array.isArray(v) ? v[0] : v);
    else if (k === "enum") out.enum = (v as unknown[]).filter((x) => typeof x === "string");
    else out[k] = v;
  }
  if (Array.isArray(out.enum) && (out.enum as unknown[]).length === 0) delete out.enum;
  if (out.type === "array" && !out.items && Array.isArray(schema.prefixItems))
    out.items = geminiSchema((schema.prefixItems as unknown[])[0]);
  return out;
}

/** Gemini's function names start with a letter or an underscore. */
const geminiName = (name: string) => (/^[A-Za-z_]/.test(name) ? name : `_${name}`).slice(0, 64);

/** Gemini's `tools` entry: one `functionDeclarations` list. */
export function geminiTools(tools: readonly ToolSpec[]): JsonObject[] {
  const names = functionNames(tools);
  return [
    {
      functionDeclarations: tools.map((t) => ({
        name: geminiName(names.toFunction(t.name)),
        description: t.description,
        parameters: geminiSchema(parametersOf(t)) as JsonObject,
      })),
    },
  ];
}

/** The tools in `format`, as that provider's request body carries them under `tools`. */
export function toolsAs(tools: readonly ToolSpec[], format: ToolFormat): JsonObject[] {
  switch (format) {
    case "openai":
      return functionTools(tools) as unknown as JsonObject[];
    case "anthropic":
      return anthropicTools(tools);
    case "gemini":
      return geminiTools(tools);
  }
}
