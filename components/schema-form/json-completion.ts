// Completion in the JSON editor from the tool's input schema: property names where a key is
// expected (those of the object's schema that are not there yet), and enum values, constants,
// booleans and null where a value is expected. `$ref`s are followed and unions expanded; a union's
// options are narrowed by the tag the object already has (`"kind": "circle"`).
import {
  type Completion,
  type CompletionContext,
  type CompletionResult,
  type CompletionSource,
  insertCompletionText,
} from "@codemirror/autocomplete";
import { ensureSyntaxTree, syntaxTree } from "@codemirror/language";
import type { EditorState } from "@codemirror/state";
import type { EditorView } from "@codemirror/view";
import type { SyntaxNode } from "@lezer/common";
import { dedent, deref, isObj, type Schema, tagValue } from "./schema-utils";

type Segment = string | number;

const VALUE_NODES = new Set(["Object", "Array", "String", "Number", "True", "False", "Null"]);

/** The schemas `schema` may stand for: `$ref`s followed, unions and `allOf` expanded, null dropped. */
export function expand(root: Schema, schema: unknown, depth = 0): Schema[] {
  if (!isObj(schema) || depth > 8) return [];
  const s = deref(root, schema);
  const parts: Schema[] = [];
  for (const key of ["anyOf", "oneOf", "allOf"]) {
    const opts = s[key];
    if (Array.isArray(opts)) for (const o of opts) parts.push(...expand(root, o, depth + 1));
  }
  if (parts.length && !isObj(s.properties) && s.type === undefined && s.enum === undefined) return parts;
  return s.type === "null" ? parts : [s, ...parts];
}

/** The schema of the child `seg` of a value of schema `s` (a property, a map entry, an item). */
function child(s: Schema, seg: Segment): unknown {
  if (typeof seg === "string") {
    if (isObj(s.properties) && seg in s.properties) return s.properties[seg];
    return isObj(s.additionalProperties) ? s.additionalProperties : undefined;
  }
  if (Array.isArray(s.prefixItems) && seg < s.prefixItems.length) return s.prefixItems[seg];
  if (Array.isArray(s.items)) return s.items[seg] ?? s.additionalItems;
  return isObj(s.items) ? s.items : undefined;
}

/** Options whose tag constants agree with the literals the object holds (all of them if none do). */
function narrow(options: Schema[], literals: Map<string, unknown> | undefined): Schema[] {
  if (!literals || literals.size === 0) return options;
  const kept = options.filter((o) => {
    if (!isObj(o.properties)) return true;
    for (const [key, prop] of Object.entries(o.properties)) {
      const tag = tagValue(prop);
      if (tag !== undefined && literals.has(key) && literals.get(key) !== tag) return false;
    }
    return true;
  });
  return kept.length ? kept : options;
}

/**
 * The schemas of the value at `path` under `root`. `literalsAt(i)` gives the literal properties of
 * the object at depth i of the path, used to pick a union's option by its tag.
 */
export function schemasAt(
  root: Schema,
  path: Segment[],
  literalsAt: (depth: number) => Map<string, unknown> | undefined = () => undefined,
): Schema[] {
  let current = narrow(expand(root, root), literalsAt(0));
  path.forEach((seg, i) => {
    const next: Schema[] = [];
    for (const s of current) next.push(...expand(root, child(s, seg)));
    current = narrow(next, literalsAt(i + 1));
  });
  return current;
}

function unquote(text: string): string {
  try {
    const v = JSON.parse(text);
    return typeof v === "string" ? v : text;
  } catch {
    return text.replace(/^"|"$/g, "");
  }
}

function literal(state: EditorState, node: SyntaxNode): unknown {
  const text = state.sliceDoc(node.from, node.to);
  if (node.name === "String") return unquote(text);
  if (node.name === "Number") return Number(text);
  if (node.name === "True") return true;
  if (node.name === "False") return false;
  if (node.name === "Null") return null;
  return undefined;
}

/** The keys of an Object node, and the literal values among them. */
function objectInfo(
  state: EditorState,
  obj: SyntaxNode,
): { keys: Set<string>; literals: Map<string, unknown> } {
  const keys = new Set<string>();
  const literals = new Map<string, unknown>();
  for (let p = obj.firstChild; p; p = p.nextSibling) {
    if (p.name !== "Property") continue;
    const name = p.getChild("PropertyName");
    if (!name) continue;
    const key = unquote(state.sliceDoc(name.from, name.to));
    keys.add(key);
    const value = name.nextSibling?.name === ":" ? name.nextSibling.nextSibling : null;
    if (value && VALUE_NODES.has(value.name) && value.name !== "Object" && value.name !== "Array")
      literals.set(key, literal(state, value));
  }
  return { keys, literals };
}

/** The chain of containers from the document's root value down to `node` (Object/Array nodes). */
function containers(node: SyntaxNode | null): SyntaxNode[] {
  const chain: SyntaxNode[] = [];
  for (let n = node; n; n = n.parent) if (n.name === "Object" || n.name === "Array") chain.unshift(n);
  return chain;
}

/** The path segment that leads from a container to its child container `inner`. */
function segmentTo(state: EditorState, outer: SyntaxNode, inner: SyntaxNode): Segment | null {
  if (outer.name === "Array") {
    let i = 0;
    for (let c = outer.firstChild; c && c.from < inner.from; c = c.nextSibling)
      if (VALUE_NODES.has(c.name)) i++;
    return i;
  }
  let n: SyntaxNode | null = inner;
  while (n?.parent && n.parent !== outer) n = n.parent;
  const name = n?.name === "Property" ? n.getChild("PropertyName") : null;
  return name ? unquote(state.sliceDoc(name.from, name.to)) : null;
}

function describe(s: Schema): string | undefined {
  return typeof s.description === "string" ? dedent(s.description) : undefined;
}

function typeDetail(root: Schema, s: unknown): string {
  const options = expand(root, s);
  const types = new Set<string>();
  for (const o of options) {
    if (Array.isArray(o.enum)) types.add("enum");
    else if (o.const !== undefined) types.add(JSON.stringify(o.const));
    else if (typeof o.type === "string") types.add(o.type);
    else if (isObj(o.properties)) types.add("object");
  }
  return [...types].join(" | ");
}

/** Value suggestions for the schemas a value may have: enum members, constants, booleans, null, defaults. */
function valueOptions(root: Schema, raws: unknown[]): Completion[] {
  const seen = new Set<string>();
  const out: Completion[] = [];
  const add = (v: unknown, detail: string, info?: string) => {
    const label = JSON.stringify(v);
    if (seen.has(label)) return;
    seen.add(label);
    out.push({
      label,
      apply: replaceToken(label, false),
      detail,
      info,
      type: typeof v === "string" ? "enum" : "constant",
    });
  };
  for (const s of raws.flatMap((r) => expand(root, r))) {
    if (Array.isArray(s.enum)) for (const v of s.enum) add(v, "enum", describe(s));
    if (s.const !== undefined) add(s.const, "const", describe(s));
    if (s.type === "boolean") {
      add(true, "boolean");
      add(false, "boolean");
    }
  }
  for (const o of raws.filter(isObj).map((r) => deref(root, r))) {
    const opts = (o.anyOf ?? o.oneOf) as unknown;
    if (Array.isArray(opts) && opts.some((x) => isObj(x) && x.type === "null")) add(null, "null");
    if (o.default !== undefined) add(o.default, "default");
  }
  return out;
}

/**
 * The token the cursor is in or right after: a string (or property name) the cursor is inside, an
 * opened string being typed (`"sl`), or a bare word (`tru`, `12`). `end` is where the token ends
 * (after the cursor: the rest of a string and its closing quote).
 */
function tokenAt(ctx: CompletionContext, node: SyntaxNode): { from: number; end: number } | null {
  const { pos, state } = ctx;
  if ((node.name === "String" || node.name === "PropertyName") && node.from < pos && pos <= node.to) {
    return { from: node.from, end: node.to };
  }
  const open = ctx.matchBefore(/"[^"\n\\]*$/);
  if (open && /[{[,:]\s*$|^\s*$/.test(state.sliceDoc(Math.max(0, open.from - 200), open.from))) {
    return { from: open.from, end: tokenEnd(state, pos, true) };
  }
  const word = ctx.matchBefore(/[\w$.-]+$/);
  return word ? { from: word.from, end: tokenEnd(state, pos, false) } : null;
}

/** Where the token the cursor is in ends: after the rest of a string, or of a bare word. */
function tokenEnd(state: EditorState, pos: number, quoted: boolean): number {
  const rest = state.sliceDoc(pos, pos + 500);
  const m = quoted ? /^[^"\n]*"/.exec(rest) : /^[\w$.-]*/.exec(rest);
  return pos + (m ? m[0].length : 0);
}

/**
 * Applies a completion over the whole token (the text typed so far filters the options; the rest
 * of the token, a closing quote say, is replaced too). A key gets its colon unless one follows.
 */
function replaceToken(text: string, isKey: boolean): Completion["apply"] {
  return (view: EditorView, _completion: Completion, from: number, to: number) => {
    const quoted = view.state.sliceDoc(from, from + 1) === '"';
    const end = tokenEnd(view.state, to, quoted);
    const colon = isKey && !/^\s*:/.test(view.state.sliceDoc(end, end + 50)) ? ": " : "";
    view.dispatch({
      ...insertCompletionText(view.state, text + colon, from, end),
      userEvent: "input.complete",
    });
  };
}

/** A completion source for the JSON text of a value of `schema`. */
export function jsonSchemaCompletion(schema: Schema): CompletionSource {
  return (ctx: CompletionContext): CompletionResult | null => {
    const { state, pos } = ctx;
    // The tree up to the cursor, parsed now if the editor's background parse has not got there yet
    // (it works to a time budget, which a busy machine can exhaust); else what is parsed so far.
    const tree = ensureSyntaxTree(state, pos, 50) ?? syntaxTree(state);
    const token = tokenAt(ctx, tree.resolveInner(pos, -1));
    const from = token ? token.from : pos;
    if (!token && !ctx.explicit) return null;
    const before = state.sliceDoc(Math.max(0, from - 2000), from);
    const prev = /(\S)\s*$/.exec(before)?.[1];
    const inner = tree.resolveInner(from, 1);
    const chain = containers(from > 0 ? tree.resolveInner(from, -1) : inner);
    const container = chain[chain.length - 1];
    if (!container) return null;
    const path: Segment[] = [];
    for (let i = 1; i < chain.length; i++) {
      const seg = segmentTo(state, chain[i - 1]!, chain[i]!);
      if (seg === null) return null;
      path.push(seg);
    }
    const literalsAt = (depth: number) =>
      chain[depth]?.name === "Object" ? objectInfo(state, chain[depth]!).literals : undefined;

    if (container.name === "Object" && (prev === "{" || prev === ",")) {
      const schemas = schemasAt(schema, path, literalsAt);
      const { keys } = objectInfo(state, container);
      const current = token ? unquote(state.sliceDoc(token.from, token.end)) : "";
      const options: Completion[] = [];
      const named = new Set<string>();
      for (const s of schemas) {
        if (!isObj(s.properties)) continue;
        const required = new Set(Array.isArray(s.required) ? (s.required as string[]) : []);
        for (const [key, prop] of Object.entries(s.properties)) {
          if (named.has(key) || (keys.has(key) && key !== current)) continue;
          named.add(key);
          const label = JSON.stringify(key);
          options.push({
            label,
            apply: replaceToken(label, true),
            detail: `${typeDetail(schema, prop)}${required.has(key) ? " · required" : ""}`,
            info: isObj(prop) ? describe(deref(schema, prop)) : undefined,
            type: "property",
            boost: required.has(key) ? 1 : 0,
          });
        }
      }
      return options.length ? { from, options, validFor: /^"?[\w$.-]*"?$/ } : null;
    }

    // The schemas the value at the cursor may have (one per union option that defines it).
    let seg: Segment;
    if (container.name === "Object" && prev === ":") {
      const name = /"((?:[^"\\]|\\.)*)"\s*:\s*$/.exec(before);
      if (!name) return null;
      seg = unquote(`"${name[1]}"`);
    } else if (container.name === "Array" && (prev === "[" || prev === ",")) {
      let index = 0;
      for (let c = container.firstChild; c && c.to <= from; c = c.nextSibling)
        if (VALUE_NODES.has(c.name)) index++;
      seg = index;
    } else {
      return null;
    }
    const raws = schemasAt(schema, path, literalsAt)
      .map((s) => child(s, seg))
      .filter((c) => c !== undefined);
    const options = valueOptions(schema, raws);
    return options.length ? { from, options, validFor: /^"?[\w$.-]*"?$/ } : null;
  };
}
