// Prepares a tool's input_schema (Pydantic 2 or zod output, JSON Schema 2020-12 or draft 7) for
// react-jsonschema-form and its draft-7 AJV validator. The value it accepts is the same; only the
// spelling changes where rjsf or AJV 8's draft-7 mode would not understand it:
// - tuples: `prefixItems` becomes draft 7's `items: [...]` (rjsf renders one field per position);
// - a `const` property (a union's tag, a literal) is required with itself as default, so choosing a
//   union option sets it, and read-only;
// - an optional nullable scalar (`anyOf [string, null]`, default null) is the scalar's field
//   (`type: ["string", "null"]`): left blank it is not sent and the server fills its default;
//   an optional nullable model lists null first, so an absent value reads as "none";
// - unions of literals become enums; other union options get readable titles (`kind = circle`);
// - a `discriminator` keeps only what AJV's draft-7 mode accepts (no `mapping`);
// - descriptions are reflowed (Python docstrings' indentation removed, their hard wraps joined).
// A field with a `default` stays optional: the server fills it when absent.
import type { JsonObject } from "@/lib/ors/protocol";
import {
  deref,
  findDiscriminator,
  isObj,
  isPrimitive,
  nullableOption,
  optionTitle,
  reflow,
  resolveRef,
  type Schema,
  tagValue,
} from "./schema-utils";

/** Marks the tag property of a discriminated union's options: the option selector shows it. */
export const DISCRIMINATOR_MARK = "x-ors-discriminator";

/** The original object schema behind a union option (its `$ref` chain followed), or null. */
function optionTarget(root: Schema, option: Schema): Schema | null {
  let cur: Schema | null = option;
  const seen = new Set<string>();
  while (cur && typeof cur.$ref === "string" && !seen.has(cur.$ref)) {
    seen.add(cur.$ref);
    cur = resolveRef(root, cur.$ref);
  }
  return cur;
}

/** The object schemas that are options of a discriminated union, each with its tag property. */
function collectTags(root: Schema): Map<Schema, string> {
  const tags = new Map<Schema, string>();
  const visited = new Set<object>();
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) {
      for (const n of node) visit(n);
      return;
    }
    if (!isObj(node) || visited.has(node)) return;
    visited.add(node);
    for (const key of ["anyOf", "oneOf"]) {
      const opts = node[key];
      if (!Array.isArray(opts) || !opts.every(isObj)) continue;
      const disc = findDiscriminator(root, opts, node.discriminator);
      if (!disc) continue;
      for (const o of opts as Schema[]) {
        const target = optionTarget(root, o);
        if (target && isObj(target.properties) && isObj(target.properties[disc])) tags.set(target, disc);
      }
    }
    for (const v of Object.values(node)) visit(v);
  };
  visit(root);
  return tags;
}

interface Walk {
  root: Schema;
  tags: Map<Schema, string>;
  seen: WeakMap<object, unknown>;
}

/** Properties of an object: const ones required, optional nullable scalars collapsed, tags marked. */
function prepareProperties(w: Walk, node: Schema): Schema {
  const props = node.properties as Schema;
  const required = new Set(Array.isArray(node.required) ? (node.required as string[]) : []);
  const tag = w.tags.get(node);
  const out: Schema = {};
  for (const [key, raw] of Object.entries(props)) {
    if (!isObj(raw)) {
      out[key] = raw;
      continue;
    }
    let prop: Schema = raw;
    {
      const inner = nullableOption(prop);
      const scalar = inner ? deref(w.root, inner) : null;
      if (!required.has(key) && scalar && !Array.isArray(prop.oneOf) && isPrimitive(scalar)) {
        // The scalar's own field, still accepting null (`type: [T, "null"]` renders as T).
        const { anyOf: _anyOf, ...rest } = prop;
        const { title: _title, ...own } = scalar;
        prop = { ...own, ...rest } as Schema;
        if (typeof own.type === "string") prop.type = [own.type, "null"];
        if (Array.isArray(own.enum) && !own.enum.includes(null)) prop.enum = [...own.enum, null];
      } else if (!required.has(key) && inner && Array.isArray(prop.anyOf)) {
        // An optional model: "none" first, so an absent value reads as none rather than as an empty model.
        prop = { ...prop, anyOf: [(prop.anyOf as unknown[]).find((o) => o !== inner), inner] };
      }
      if (prop.const !== undefined) {
        required.add(key);
        if (prop.default === undefined) prop = { ...prop, default: prop.const };
      }
      if (key === tag) {
        // A discriminated union needs its tag in the input (Pydantic cannot pick the model without it).
        required.add(key);
        prop = { ...prop, [DISCRIMINATOR_MARK]: true };
        if (prop.default === undefined) prop.default = tagValue(prop);
      }
    }
    out[key] = prop;
  }
  return { ...node, properties: out, ...(required.size ? { required: [...required] } : {}) };
}

function walk(w: Walk, node: unknown): unknown {
  if (Array.isArray(node)) return node.map((n) => walk(w, n));
  if (!isObj(node)) return node;
  if (w.seen.has(node)) return w.seen.get(node);
  const src = isObj(node.properties) ? prepareProperties(w, node) : node;
  const out: Schema = {};
  w.seen.set(node, out);
  for (const [k, v] of Object.entries(src)) out[k] = walk(w, v);

  if (typeof out.description === "string") out.description = reflow(out.description);
  if (Array.isArray(out.prefixItems)) {
    const positions = out.prefixItems;
    delete out.prefixItems;
    // 2020-12's `items` after `prefixItems` is the schema of the rest: draft 7's `additionalItems`.
    if (out.items !== undefined) out.additionalItems = out.items;
    else if (typeof out.maxItems === "number" && out.maxItems <= positions.length)
      out.additionalItems = false;
    out.items = positions;
  }
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
    const disc = findDiscriminator(w.root, opts, node.discriminator);
    if (isObj(out.discriminator)) {
      // AJV validates only the option the tag names (so errors are about that option), given a
      // `oneOf` whose options all fix the tag, and no `mapping`; rjsf reads `propertyName` too.
      const usable =
        key === "oneOf" &&
        disc !== undefined &&
        disc === out.discriminator.propertyName &&
        opts.every((o) => {
          const t = deref(w.root, o as Schema);
          return isObj(t.properties) && tagValue(t.properties[disc]) !== undefined;
        });
      if (usable) out.discriminator = { propertyName: disc };
      else delete out.discriminator;
    }
    const titles = new Set<string>();
    out[key] = (opts as Schema[]).map((o) => {
      let title = optionTitle(w.root, o, disc);
      while (titles.has(title)) title = `${title}′`;
      titles.add(title);
      return { ...o, title };
    });
  }
  return out;
}

/** A copy of `schema` ready for the form (the original is not modified). */
export function prepareSchema(schema: JsonObject): JsonObject {
  return walk({ root: schema, tags: collectTags(schema), seen: new WeakMap() }, schema) as JsonObject;
}
