// Prepares a tool's input_schema for the generated form: every anyOf/oneOf option gets a readable
// title (rjsf would show "Option 1"), e.g. "null" for Pydantic's nullable `anyOf [T, null]`,
// `method = card` for a discriminated union, the `$defs` name for a `$ref`.
import type { JsonObject } from "@/lib/ors/protocol";

type Schema = Record<string, unknown>;

function isObj(v: unknown): v is Schema {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function resolveRef(root: Schema, ref: string): Schema | null {
  if (!ref.startsWith("#/")) return null;
  let cur: unknown = root;
  for (const part of ref.slice(2).split("/")) {
    const key = decodeURIComponent(part.replace(/~1/g, "/").replace(/~0/g, "~"));
    if (!isObj(cur)) return null;
    cur = cur[key];
  }
  return isObj(cur) ? cur : null;
}

/** A short title of one union option. */
export function optionTitle(root: Schema, option: Schema, discriminator?: string): string {
  if (typeof option.title === "string" && option.title) return option.title;
  let target = option;
  if (typeof option.$ref === "string") {
    const resolved = resolveRef(root, option.$ref);
    const name = option.$ref.split("/").pop() ?? "ref";
    if (resolved && typeof resolved.title === "string") return resolved.title;
    if (!resolved) return name;
    target = resolved;
    if (!discriminator) return name;
  }
  const props = isObj(target.properties) ? target.properties : null;
  const keys = discriminator ? [discriminator] : props ? Object.keys(props) : [];
  for (const key of keys) {
    const p = props?.[key];
    if (isObj(p) && p.const !== undefined) return `${key} = ${String(p.const)}`;
    if (isObj(p) && Array.isArray(p.enum) && p.enum.length === 1) return `${key} = ${String(p.enum[0])}`;
  }
  if (target.const !== undefined) return JSON.stringify(target.const);
  if (target.type === "null") return "null";
  if (typeof target.type === "string") {
    if (target.type === "array" && isObj(target.items) && typeof target.items.type === "string") {
      return `array of ${target.items.type}`;
    }
    return target.type;
  }
  if (Array.isArray(target.type)) return target.type.join(" | ");
  return "option";
}

/** A discriminator property shared by all options (each with a distinct const), if any. */
function findDiscriminator(root: Schema, options: Schema[], hint: unknown): string | undefined {
  if (isObj(hint) && typeof hint.propertyName === "string") return hint.propertyName;
  const resolved = options.map((o) => (typeof o.$ref === "string" ? resolveRef(root, o.$ref) : o));
  if (resolved.some((o) => !o || !isObj(o.properties))) return undefined;
  const first = resolved[0]!.properties as Schema;
  for (const key of Object.keys(first)) {
    const consts = resolved.map((o) => {
      const p = (o!.properties as Schema)[key];
      return isObj(p) ? p.const : undefined;
    });
    if (consts.every((c) => c !== undefined) && new Set(consts.map(String)).size === consts.length)
      return key;
  }
  return undefined;
}

function walk(root: Schema, node: unknown, seen: WeakMap<object, unknown>): unknown {
  if (Array.isArray(node)) return node.map((n) => walk(root, n, seen));
  if (!isObj(node)) return node;
  if (seen.has(node)) return seen.get(node);
  const out: Schema = {};
  seen.set(node, out);
  for (const [k, v] of Object.entries(node)) out[k] = walk(root, v, seen);
  // A property with a default is always sent (the form shows the default): required in the form.
  // With the form's `populateRequiredDefaults`, an optional object then starts absent (with an
  // "add" control) instead of half-filled with its fields' defaults.
  if (isObj(out.properties)) {
    const required = new Set(Array.isArray(out.required) ? (out.required as string[]) : []);
    for (const [key, prop] of Object.entries(out.properties)) {
      if (isObj(prop) && prop.default !== undefined && !isObj(prop.default) && !Array.isArray(prop.default))
        required.add(key);
    }
    if (required.size) out.required = [...required];
  }
  // A literal (`const`) is shown but not edited.
  if (out.const !== undefined && out.readOnly === undefined) out.readOnly = true;
  for (const key of ["anyOf", "oneOf"] as const) {
    const opts = out[key];
    if (!Array.isArray(opts) || !opts.every(isObj)) continue;
    // A union of literals (zod `z.union([z.literal("a"), ...])`, Pydantic `Literal[...]`) is an enum.
    const consts = (opts as Schema[]).map((o) => o.const);
    if (
      consts.length > 0 &&
      consts.every((c) => c === null || ["string", "number", "boolean"].includes(typeof c))
    ) {
      const types = new Set(consts.map((c) => (c === null ? "null" : typeof c)));
      delete out[key];
      out.enum = consts;
      if (out.type === undefined) out.type = types.size === 1 ? [...types][0] : [...types];
      continue;
    }
    const disc = findDiscriminator(root, opts as Schema[], node.discriminator);
    const titles = new Set<string>();
    out[key] = (opts as Schema[]).map((o) => {
      if (typeof o.title === "string" && o.title) return o;
      let title = optionTitle(root, o, disc);
      while (titles.has(title)) title = `${title}′`;
      titles.add(title);
      return { ...o, title };
    });
  }
  return out;
}

/** A copy of `schema` with titled union options (the original is not modified). */
export function prepareSchema(schema: JsonObject): JsonObject {
  return walk(schema, schema, new WeakMap()) as JsonObject;
}
