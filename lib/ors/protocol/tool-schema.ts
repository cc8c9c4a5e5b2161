// ORS tools as the function tools of a chat model (docs/runs.md "Model endpoints"): the name (made
// valid for the OpenAI function-name rule when it is not), the description, and `input_schema` as
// `parameters` — an object schema, its local `$ref`s inlined (many providers refuse `$defs`;
// a recursive definition keeps its `$ref` and the `$defs` it needs). Isomorphic; ./tool-formats.ts
// gives the same tools in each provider's shape.
import type { JsonObject, ToolSpec } from "./schemas";

/** An OpenAI function tool (what chat JSONL exports list as `tools`). */
export interface FunctionTool {
  type: "function";
  function: { name: string; description: string; parameters: JsonObject };
}

const FUNCTION_NAME = /^[A-Za-z0-9_-]{1,64}$/;

type Schema = Record<string, unknown>;
const isObject = (v: unknown): v is Schema => typeof v === "object" && v !== null && !Array.isArray(v);

function target(root: Schema, ref: string): Schema | null {
  if (!ref.startsWith("#/")) return null;
  let node: unknown = root;
  for (const raw of ref.slice(2).split("/")) {
    const key = decodeURIComponent(raw.replace(/~1/g, "/").replace(/~0/g, "~"));
    node = isObject(node) ? node[key] : undefined;
  }
  return isObject(node) ? node : null;
}

/**
 * `schema` with its local `$ref`s replaced by what they point to. A `$ref` inside its own
 * definition (a recursive type) stays a `$ref`, and the root keeps the `$defs`/`definitions` such
 * refs need; every other `$defs` entry is dropped.
 */
export function inlineRefs(schema: JsonObject): JsonObject {
  const kept = new Set<string>();
  const walk = (node: unknown, stack: readonly string[]): unknown => {
    if (Array.isArray(node)) return node.map((n) => walk(n, stack));
    if (!isObject(node)) return node;
    if (typeof node.$ref === "string") {
      const ref = node.$ref;
      const def = target(schema, ref);
      if (def && !stack.includes(ref)) {
        const { $ref: _ref, ...beside } = node;
        // Keywords beside the $ref (Pydantic puts `description`/`default` there) win.
        return walk({ ...def, ...beside }, [...stack, ref]);
      }
      if (def) kept.add(ref);
      return node;
    }
    const out: Schema = {};
    for (const [k, v] of Object.entries(node)) {
      if (stack.length === 0 && (k === "$defs" || k === "definitions")) continue;
      out[k] = walk(v, stack);
    }
    return out;
  };
  const out = walk(schema, []) as Schema;
  if (kept.size) {
    // The definitions recursive refs point to, themselves inlined except for their recursion.
    for (const ref of kept) {
      const [, section, name] = ref.split("/");
      if (!section || !name) continue;
      const defs = (out[section] as Schema | undefined) ?? {};
      const def = target(schema, ref);
      if (def) defs[name] = walk(def, [ref]);
      out[section] = defs;
    }
  }
  return out;
}

/** A tool's `parameters`: its input schema as an object schema (`{}` input when it has none). */
export function parametersOf(tool: ToolSpec, o: { inline?: boolean } = {}): JsonObject {
  const schema = tool.input_schema;
  if (!isObject(schema)) return { type: "object", properties: {} };
  const s = o.inline === false ? schema : inlineRefs(schema);
  return s.type === undefined ? { type: "object", ...s } : s;
}

/** The model's names of the tools, and back: valid names kept, others made valid (and unique). */
export function functionNames(tools: readonly ToolSpec[]): {
  toFunction: (tool: string) => string;
  toTool: (fn: string) => string | null;
} {
  const byTool = new Map<string, string>();
  const byFunction = new Map<string, string>();
  for (const t of tools) {
    let name = FUNCTION_NAME.test(t.name)
      ? t.name
      : t.name.replace(/[^A-Za-z0-9_-]/g, "_").slice(0, 60) || "tool";
    for (let i = 2; byFunction.has(name); i++) name = `${name.slice(0, 58)}_${i}`;
    byTool.set(t.name, name);
    byFunction.set(name, t.name);
  }
  return {
    toFunction: (tool) => byTool.get(tool) ?? tool,
    toTool: (fn) => byFunction.get(fn) ?? null,
  };
}

/** The tools as OpenAI function tools (chat JSONL's `tools`). */
export function functionTools(tools: readonly ToolSpec[], o: { inline?: boolean } = {}): FunctionTool[] {
  const names = functionNames(tools);
  return tools.map((t) => ({
    type: "function",
    function: { name: names.toFunction(t.name), description: t.description, parameters: parametersOf(t, o) },
  }));
}
