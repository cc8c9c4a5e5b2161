// Pure helpers over tool input schemas as Pydantic 2 (`model_json_schema()`) and zod emit them:
// `$ref`s into `$defs`/`definitions`, nullable `anyOf [T, null]`, discriminated unions, docstring
// descriptions. Shared by the generated form, the Tools tab's schema view and the tool picker, so
// it imports neither React nor rjsf (the tool picker loads it on the page's first load).

export type Schema = Record<string, unknown>;

export function isObj(v: unknown): v is Schema {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** The schema a local `$ref` (`#/$defs/Slot`) points to, or null. */
export function resolveRef(root: Schema, ref: string): Schema | null {
  if (!ref.startsWith("#")) return null;
  if (ref === "#") return root;
  if (!ref.startsWith("#/")) return null;
  let cur: unknown = root;
  for (const part of ref.slice(2).split("/")) {
    const key = decodeURIComponent(part).replace(/~1/g, "/").replace(/~0/g, "~");
    if (!isObj(cur)) return null;
    cur = cur[key];
  }
  return isObj(cur) ? cur : null;
}

/**
 * `schema` with its `$ref` chain followed; the referring schema's own keywords win (Pydantic puts
 * `default` and `description` beside a `$ref`).
 */
export function deref(root: Schema, schema: Schema): Schema {
  let cur = schema;
  const seen = new Set<string>();
  while (typeof cur.$ref === "string" && !seen.has(cur.$ref)) {
    seen.add(cur.$ref);
    const target = resolveRef(root, cur.$ref);
    if (!target) break;
    const { $ref: _ref, ...own } = cur;
    cur = { ...target, ...own };
  }
  return cur;
}

/** Whether a name is a generator's internal one (zod's `__schema0`), not meant for people. */
export function isInternalName(name: string): boolean {
  return /^__/.test(name);
}

/**
 * A readable name of what a `$ref` points to: the definition's `title`, else its key unless that
 * is internal (`__schema0`), else the target's type.
 */
export function refName(root: Schema, ref: string): string {
  const target = resolveRef(root, ref);
  if (target && typeof target.title === "string" && target.title) return target.title;
  const key = ref.split("/").pop() ?? "";
  if (key && !isInternalName(key)) return key;
  if (target && typeof target.type === "string") return target.type;
  return "object";
}

/**
 * Whether a tool takes no input: no schema (`input_schema: null`, as the reference SDK serves a tool
 * without a parameters model), or an object with no properties (`{"properties": {}}`, with or
 * without `additionalProperties: false`). A map (`additionalProperties` with a schema) or any
 * union or composition does take input.
 */
export function takesNoInput(schema: unknown): boolean {
  if (schema === null || schema === undefined) return true;
  if (!isObj(schema)) return false;
  const s = deref(schema, schema);
  if (s.type !== undefined && s.type !== "object") return false;
  for (const key of ["anyOf", "oneOf", "allOf", "patternProperties", "if", "dependentSchemas"]) {
    if (s[key] !== undefined) return false;
  }
  if (s.properties !== undefined && !(isObj(s.properties) && Object.keys(s.properties).length === 0))
    return false;
  return s.additionalProperties === undefined || s.additionalProperties === false;
}

/**
 * Python docstring indentation removed (as `inspect.cleandoc` does): the first line as it is, the
 * common indentation of the others taken off, leading and trailing blank lines dropped.
 * `"Submit the plan.\n        Returns the state."` → `"Submit the plan.\nReturns the state."`
 */
export function dedent(text: string): string {
  const lines = text.replace(/\r\n?/g, "\n").replace(/\t/g, "    ").split("\n");
  let indent = Number.POSITIVE_INFINITY;
  for (const line of lines.slice(1)) {
    const content = line.trimStart();
    if (content) indent = Math.min(indent, line.length - content.length);
  }
  const out = [lines[0]!.trimStart()];
  for (const line of lines.slice(1)) out.push(Number.isFinite(indent) ? line.slice(indent) : line);
  while (out.length && out[0]!.trim() === "") out.shift();
  while (out.length && out[out.length - 1]!.trim() === "") out.pop();
  return out.map((l) => l.trimEnd()).join("\n");
}

/**
 * A title worth showing beside a field's name: not one generated from the name (Pydantic titles
 * `item_id` "Item Id"), e.g. the model's title `Slot` of a field `slot_1`.
 */
export function titleHint(name: string, title: unknown): string | undefined {
  if (typeof title !== "string" || !title.trim()) return undefined;
  const norm = (s: string) => s.toLowerCase().replace(/[^a-z0-9]/g, "");
  if (norm(title) === norm(name)) return undefined;
  return title;
}

/** The value a discriminator property holds in a union option: its `const`, or a single `enum`. */
export function tagValue(prop: unknown): unknown {
  if (!isObj(prop)) return undefined;
  if (prop.const !== undefined) return prop.const;
  if (Array.isArray(prop.enum) && prop.enum.length === 1) return prop.enum[0];
  return undefined;
}

/**
 * The discriminator property of a union: the schema's `discriminator.propertyName` (Pydantic,
 * OpenAPI), else a property every option fixes to a distinct constant (zod's discriminated unions).
 */
export function findDiscriminator(root: Schema, options: unknown[], hint?: unknown): string | undefined {
  if (isObj(hint) && typeof hint.propertyName === "string") return hint.propertyName;
  const resolved = options.map((o) => (isObj(o) ? deref(root, o) : null));
  if (resolved.length < 2 || resolved.some((o) => !o || !isObj(o.properties))) return undefined;
  const first = resolved[0]!.properties as Schema;
  for (const key of Object.keys(first)) {
    const tags = resolved.map((o) => tagValue((o!.properties as Schema)[key]));
    if (
      tags.every((t) => t !== undefined) &&
      new Set(tags.map((t) => JSON.stringify(t))).size === tags.length
    )
      return key;
  }
  return undefined;
}

/** A display form of a constant: strings bare, other values as JSON. */
function showConst(v: unknown): string {
  return typeof v === "string" ? v : JSON.stringify(v);
}

/**
 * A short title of one union option: `kind = circle` for a discriminated union, the model's name
 * for a `$ref`, else its type (`string`, `null`, `array of string`).
 */
export function optionTitle(root: Schema, option: Schema, discriminator?: string): string {
  const target = deref(root, option);
  if (discriminator && isObj(target.properties)) {
    const tag = tagValue(target.properties[discriminator]);
    if (tag !== undefined) return `${discriminator} = ${showConst(tag)}`;
  }
  if (typeof option.title === "string" && option.title) return option.title;
  if (typeof option.$ref === "string") return refName(root, option.$ref);
  if (typeof target.title === "string" && target.title) return target.title;
  if (target.const !== undefined) return JSON.stringify(target.const);
  const t = target.type;
  if (t === "null") return "null";
  if (t === "array") {
    const items = isObj(target.items) ? target.items : null;
    if (items && typeof items.$ref === "string") return `array of ${refName(root, items.$ref)}`;
    if (items && typeof items.type === "string") return `array of ${items.type}`;
    return "array";
  }
  if (typeof t === "string") return t;
  if (Array.isArray(t)) return t.join(" | ");
  if (isObj(target.properties)) return "object";
  return "value";
}

/** The non-null option of a nullable union (`anyOf [T, {"type": "null"}]`), or null. */
export function nullableOption(schema: Schema): Schema | null {
  const opts = (schema.anyOf ?? schema.oneOf) as unknown;
  if (!Array.isArray(opts) || opts.length !== 2 || !opts.every(isObj)) return null;
  const nulls = opts.filter((o) => (o as Schema).type === "null" && Object.keys(o as Schema).length <= 2);
  if (nulls.length !== 1) return null;
  return (opts.find((o) => !nulls.includes(o)) as Schema) ?? null;
}

/** Whether a (resolved) schema is a single value: a string, number, integer, boolean or enum. */
export function isPrimitive(schema: Schema): boolean {
  if (Array.isArray(schema.enum) || schema.const !== undefined) return true;
  return typeof schema.type === "string" && ["string", "number", "integer", "boolean"].includes(schema.type);
}

/**
 * From this `maxLength` on, a string is free text (a comment, a report) and gets a growing text area;
 * below it, a bounded value (an id, a code) gets a one-line input.
 */
export const LONG_TEXT_MIN_LENGTH = 256;

/** Words that make a string free text when its name, title or description says them. */
const FREE_TEXT_WORDS = /\b(notes?|text|messages?|content|body)\b/i;

/** `patient_notes`, `messageBody` → `patient notes`, `message Body` (words for FREE_TEXT_WORDS). */
function nameWords(name: string): string {
  return name.replace(/([a-z0-9])([A-Z])/g, "$1 $2").replace(/[_\-.]+/g, " ");
}

/**
 * Whether a string field is free text, typed in a growing multi-line text area: its name, title or
 * description says notes, text, message, content or body, or its `maxLength` is a few hundred or
 * more. Every other string (ids, names, enum-like values, anything with a `maxLength`, `pattern` or
 * `format`) is a short value with a one-line input, in which Enter never adds a line.
 */
export function isFreeText(schema: Schema, name?: string): boolean {
  if (schema.type !== "string") return false;
  if (schema.enum !== undefined || schema.const !== undefined) return false;
  if (schema.format !== undefined || schema.pattern !== undefined) return false;
  if (typeof schema.maxLength === "number") return schema.maxLength >= LONG_TEXT_MIN_LENGTH;
  const said = [name ? nameWords(name) : "", schema.title, schema.description];
  return said.some((s) => typeof s === "string" && FREE_TEXT_WORDS.test(s));
}

/** A line that starts a list item (`- a`, `* a`, `1. a`, `2) a`): the marker and the text's column. */
function listItem(line: string): number | null {
  const m = /^(\s*)([-*+\u2022]|\d{1,3}[.)])\s+/.exec(line);
  return m ? m[0].length : null;
}

/** A line that starts a definition (`x: the x`, `size (int): ...`, as docstrings list arguments). */
function isDefinition(line: string): boolean {
  return /^\s*[\w*.[\]]+( \([^)]*\))?:(\s|$)/.test(line);
}

const indentOf = (line: string) => line.length - line.trimStart().length;

/**
 * A description as prose that reflows in its column: a docstring's indentation removed (`dedent`)
 * and its hard line wraps joined, so a narrow panel does not show the author's 79-column lines.
 * Blank lines still separate paragraphs; a line break is kept before a list item, a definition
 * (`x: ...`), a line less indented than the text it would join, a table row, and after a line
 * that ends with a colon (`Args:`). Kept lines keep their indentation.
 * `"Submit the plan for\n    every slot.\n\n    Returns the state."` → `"Submit the plan for every slot.\n\nReturns the state."`
 */
export function reflow(text: string): string {
  const lines = dedent(text).split("\n");
  const out: string[] = [];
  // The column a continuation of the current line starts at (its text's, after a list marker).
  let column = 0;
  for (const line of lines) {
    const prev = out.length ? out[out.length - 1]! : "";
    const content = line.trim();
    if (!content || !prev.trim()) {
      out.push(content ? line : "");
      column = content ? (listItem(line) ?? indentOf(line)) : 0;
      continue;
    }
    const item = listItem(line);
    const joins =
      item === null &&
      !isDefinition(line) &&
      !content.startsWith("|") &&
      !prev.trimEnd().endsWith(":") &&
      indentOf(line) >= column;
    if (joins) {
      out[out.length - 1] = `${prev.trimEnd()} ${content}`;
    } else {
      out.push(line);
      column = item ?? indentOf(line);
    }
  }
  return out.join("\n").replace(/\n{3,}/g, "\n\n");
}

/** How a default reads in a placeholder or a schema view: strings bare, the rest as JSON. */
export function showDefault(value: unknown): string {
  return typeof value === "string" ? value : JSON.stringify(value);
}
