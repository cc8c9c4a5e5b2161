// Two tool input schemas compared as JSON Schema, not as text (docs/ci.md "What diff compares"):
// `$ref`s resolved, keyword by keyword, each difference classed by what it does to the inputs a
// client may send — fewer accepted is `breaking` (a new required property, a type, enum or bound
// narrowed, `additionalProperties` closed), more is `compatible`, annotations are `cosmetic`.
// Isomorphic and pure.
import {
  ANNOTATIONS,
  canon,
  covers,
  describePath,
  HANDLED,
  inputSchemaOf,
  isSchema,
  LOWER,
  list,
  MAX_DEPTH,
  node,
  resolveAll,
  type Schema,
  type SchemaPath,
  shortValue,
  typesOf,
  UPPER,
  union,
  WHOLE,
  withoutAnnotations,
} from "./schema-shape";
import type { ChangeClass } from "./types";

export { sameSchema, shortValue } from "./schema-shape";

export interface SchemaChange {
  class: ChangeClass;
  kind: string;
  /** Where in the schema (segments of a JSON pointer from its root). */
  path: SchemaPath;
  message: string;
  before?: unknown;
  after?: unknown;
}

class SchemaComparison {
  readonly changes: SchemaChange[] = [];

  add(cls: ChangeClass, kind: string, path: SchemaPath, what: string, before?: unknown, after?: unknown) {
    const change: SchemaChange = { class: cls, kind, path, message: `${describePath(path)}: ${what}` };
    if (before !== undefined) change.before = shortValue(before);
    if (after !== undefined) change.after = shortValue(after);
    this.changes.push(change);
  }

  compare(a: Schema, b: Schema, path: SchemaPath, depth = 0): void {
    if (depth > MAX_DEPTH) return;
    this.annotations(a, b, path);
    if (canon(a.default) !== canon(b.default))
      this.add(
        "compatible",
        "default-changed",
        path,
        a.default === undefined
          ? "a default was added"
          : b.default === undefined
            ? "its default was removed"
            : "its default changed",
        a.default,
        b.default,
      );
    if (typeof a.$ref === "string" || typeof b.$ref === "string") {
      // A recursive reference: compared by what it names.
      if (a.$ref !== b.$ref)
        this.add("breaking", "ref-changed", path, "refers to another definition", a.$ref, b.$ref);
      return;
    }
    if (union(a) || union(b)) {
      this.variants(a, b, path, depth);
      return;
    }
    this.types(a, b, path);
    this.values(a, b, path);
    this.bounds(a, b, path);
    this.objects(a, b, path, depth);
    this.arrays(a, b, path, depth);
    this.rest(a, b, path, depth);
  }

  private annotations(a: Schema, b: Schema, path: SchemaPath) {
    for (const k of [...ANNOTATIONS, "$schema"])
      if (canon(a[k]) !== canon(b[k]))
        this.add("cosmetic", `${k.replace(/^\$/, "")}-changed`, [...path, k], `its ${k} changed`, a[k], b[k]);
  }

  private types(a: Schema, b: Schema, path: SchemaPath) {
    const ta = typesOf(a);
    const tb = typesOf(b);
    if (!ta && !tb) return;
    const at = [...path, "type"];
    if (!ta)
      return this.add("breaking", "type-narrowed", at, `type narrowed from any to ${list(tb)}`, null, tb);
    if (!tb)
      return this.add("compatible", "type-widened", at, `type widened from ${list(ta)} to any`, ta, null);
    const removed = ta.filter((t) => !covers(tb, t));
    const added = tb.filter((t) => !covers(ta, t));
    if (removed.length && added.length)
      this.add("breaking", "type-changed", at, `type changed from ${list(ta)} to ${list(tb)}`, ta, tb);
    else if (removed.length)
      this.add("breaking", "type-narrowed", at, `type narrowed from ${list(ta)} to ${list(tb)}`, ta, tb);
    else if (added.length)
      this.add("compatible", "type-widened", at, `type widened from ${list(ta)} to ${list(tb)}`, ta, tb);
  }

  private values(a: Schema, b: Schema, path: SchemaPath) {
    const ea = Array.isArray(a.enum) ? a.enum.map(canon) : null;
    const eb = Array.isArray(b.enum) ? b.enum.map(canon) : null;
    const at = [...path, "enum"];
    if (ea && !eb)
      this.add("compatible", "enum-widened", at, "no longer limited to a list of values", a.enum);
    else if (!ea && eb)
      this.add("breaking", "enum-narrowed", at, "now limited to a list of values", undefined, b.enum);
    else if (ea && eb) {
      const removed = (a.enum as unknown[]).filter((_, i) => !eb.includes(ea[i]!));
      const added = (b.enum as unknown[]).filter((_, i) => !ea.includes(eb[i]!));
      if (removed.length)
        this.add(
          "breaking",
          "enum-narrowed",
          at,
          `values no longer accepted: ${removed.map(canon).join(", ")}`,
          a.enum,
          b.enum,
        );
      if (added.length)
        this.add(
          "compatible",
          "enum-widened",
          at,
          `values added: ${added.map(canon).join(", ")}`,
          a.enum,
          b.enum,
        );
      if (!removed.length && !added.length && ea.join() !== eb.join())
        this.add("cosmetic", "enum-reordered", at, "its values are listed in another order", a.enum, b.enum);
    }
    if (canon(a.const) !== canon(b.const)) {
      const at2 = [...path, "const"];
      if (a.const === undefined)
        this.add("breaking", "const-added", at2, "now a constant", undefined, b.const);
      else if (b.const === undefined)
        this.add("compatible", "const-removed", at2, "no longer a constant", a.const);
      else this.add("breaking", "const-changed", at2, "its constant changed", a.const, b.const);
    }
  }

  private bounds(a: Schema, b: Schema, path: SchemaPath) {
    const one = (k: string, tighter: (x: number, y: number) => boolean) => {
      const x = a[k];
      const y = b[k];
      if (canon(x) === canon(y)) return;
      const at = [...path, k];
      if (typeof x !== "number" && typeof y !== "number")
        return this.add("breaking", "constraint-changed", at, `${k} changed`, x, y);
      if (typeof x !== "number")
        return this.add("breaking", "bound-added", at, `${k} ${canon(y)} added`, x, y);
      if (typeof y !== "number")
        return this.add("compatible", "bound-removed", at, `${k} ${canon(x)} removed`, x, y);
      if (tighter(x, y))
        this.add("breaking", "bound-tightened", at, `${k} tightened from ${x} to ${y}`, x, y);
      else this.add("compatible", "bound-loosened", at, `${k} loosened from ${x} to ${y}`, x, y);
    };
    for (const k of LOWER) one(k, (x, y) => y > x);
    for (const k of UPPER) one(k, (x, y) => y < x);
    for (const k of ["pattern", "format", "multipleOf"]) {
      if (canon(a[k]) === canon(b[k])) continue;
      const at = [...path, k];
      if (b[k] === undefined) this.add("compatible", `${k}-removed`, at, `${k} removed`, a[k]);
      else
        this.add(
          "breaking",
          `${k}-changed`,
          at,
          a[k] === undefined ? `${k} added` : `${k} changed`,
          a[k],
          b[k],
        );
    }
    if (!a.uniqueItems !== !b.uniqueItems)
      this.add(
        b.uniqueItems ? "breaking" : "compatible",
        b.uniqueItems ? "unique-items-added" : "unique-items-removed",
        [...path, "uniqueItems"],
        b.uniqueItems ? "items must now be unique" : "items need no longer be unique",
      );
  }

  private objects(a: Schema, b: Schema, path: SchemaPath, depth: number) {
    const pa = isSchema(a.properties) ? a.properties : {};
    const pb = isSchema(b.properties) ? b.properties : {};
    const ra = new Set(Array.isArray(a.required) ? a.required.map(String) : []);
    const rb = new Set(Array.isArray(b.required) ? b.required.map(String) : []);
    const closedB = b.additionalProperties === false;
    const names = [...new Set([...Object.keys(pb), ...Object.keys(pa), ...rb])];
    for (const name of names) {
      const at = [...path, "properties", name];
      const inA = name in pa;
      const inB = name in pb;
      if (!inA && !inB) {
        if (!ra.has(name)) this.add("breaking", "required-added", at, "a new required property");
        continue;
      }
      if (!inA) {
        if (rb.has(name))
          this.add("breaking", "required-added", at, "a new required property", undefined, pb[name]);
        else
          this.add("compatible", "property-added", at, "an optional property was added", undefined, pb[name]);
        continue;
      }
      if (!inB) {
        if (closedB)
          this.add(
            "breaking",
            "property-removed",
            at,
            "removed, and inputs that still send it are refused",
            pa[name],
          );
        else
          this.add(
            "compatible",
            "property-removed",
            at,
            "removed from the schema (still accepted, no longer described)",
            pa[name],
          );
        continue;
      }
      this.compare(node(pa[name]), node(pb[name]), at, depth + 1);
      if (!ra.has(name) && rb.has(name)) this.add("breaking", "property-required", at, "now required");
      if (ra.has(name) && !rb.has(name))
        this.add("compatible", "property-optional", at, "no longer required");
    }
    const common = (keys: string[], other: Schema) => keys.filter((k) => k in other);
    const order = common(Object.keys(pa), pb);
    if (order.join("\u0000") !== common(Object.keys(pb), pa).join("\u0000"))
      this.add(
        "cosmetic",
        "properties-reordered",
        [...path, "properties"],
        "its properties are listed in another order",
        order,
        common(Object.keys(pb), pa),
      );
    this.additional(a, b, path, depth);
  }

  private additional(a: Schema, b: Schema, path: SchemaPath, depth: number) {
    const x = a.additionalProperties;
    const y = b.additionalProperties;
    if (canon(x) === canon(y)) return;
    const at = [...path, "additionalProperties"];
    const open = (v: unknown) => v === undefined || v === true;
    if (open(x) && open(y)) return;
    if (y === false)
      return this.add(
        "breaking",
        "additional-closed",
        at,
        "additionalProperties closed: unknown properties are refused",
        x,
        y,
      );
    if (x === false)
      return this.add("compatible", "additional-opened", at, "additionalProperties opened", x, y);
    if (open(x))
      return this.add(
        "breaking",
        "additional-narrowed",
        at,
        "additional properties must now match a schema",
        x,
        y,
      );
    if (open(y))
      return this.add(
        "compatible",
        "additional-widened",
        at,
        "additional properties may now be anything",
        x,
        y,
      );
    this.compare(node(x), node(y), at, depth + 1);
  }

  private arrays(a: Schema, b: Schema, path: SchemaPath, depth: number) {
    if (a.items !== undefined || b.items !== undefined) {
      const at = [...path, "items"];
      if (Array.isArray(a.items) || Array.isArray(b.items)) {
        if (canon(a.items) !== canon(b.items))
          this.add("breaking", "tuple-changed", at, "its tuple items changed", a.items, b.items);
      } else if (a.items === undefined) this.compare({}, node(b.items), at, depth + 1);
      else if (b.items === undefined) this.compare(node(a.items), {}, at, depth + 1);
      else this.compare(node(a.items), node(b.items), at, depth + 1);
    }
    const xa = Array.isArray(a.prefixItems) ? a.prefixItems : null;
    const xb = Array.isArray(b.prefixItems) ? b.prefixItems : null;
    if (!xa && !xb) return;
    if (!xa || !xb || xa.length !== xb.length) {
      this.add("breaking", "tuple-changed", [...path, "prefixItems"], "its tuple's items changed", xa, xb);
      return;
    }
    for (const [i, s] of xa.entries())
      this.compare(node(s), node(xb[i]), [...path, "prefixItems", i], depth + 1);
  }

  private rest(a: Schema, b: Schema, path: SchemaPath, depth: number) {
    const allA = Array.isArray(a.allOf) ? a.allOf : null;
    const allB = Array.isArray(b.allOf) ? b.allOf : null;
    if (allA && allB && allA.length === allB.length)
      for (const [i, s] of allA.entries())
        this.compare(node(s), node(allB[i]), [...path, "allOf", i], depth + 1);
    else if (canon(a.allOf) !== canon(b.allOf))
      this.add("breaking", "constraint-changed", [...path, "allOf"], "allOf changed", a.allOf, b.allOf);
    for (const k of WHOLE)
      if (canon(withoutAnnotations(a[k])) !== canon(withoutAnnotations(b[k])))
        this.add(
          b[k] === undefined ? "compatible" : "breaking",
          "constraint-changed",
          [...path, k],
          b[k] === undefined ? `${k} removed` : `${k} changed`,
          a[k],
          b[k],
        );
    for (const k of new Set([...Object.keys(a), ...Object.keys(b)]))
      if (!HANDLED.has(k) && canon(a[k]) !== canon(b[k]))
        this.add("cosmetic", "keyword-changed", [...path, k], `its ${k} changed`, a[k], b[k]);
  }

  /** Unions (anyOf / oneOf): each variant of A matched with one of B, the rest removed or added. */
  private variants(a: Schema, b: Schema, path: SchemaPath, depth: number) {
    const key = Array.isArray(b.oneOf) ? "oneOf" : "anyOf";
    const va = union(a) ?? [stripUnionLevel(a)];
    const vb = union(b) ?? [stripUnionLevel(b)];
    const plain = (s: Schema) => canon(withoutAnnotations(s));
    const sig = (s: Schema) => `${list(typesOf(s))}|${canon(s.const)}`;
    const used = new Set<number>();
    const pairs: [number, number][] = [];
    const unmatched: number[] = [];
    for (const [i, s] of va.entries()) {
      let j = vb.findIndex((t, k) => !used.has(k) && plain(t) === plain(s));
      if (j < 0) j = vb.findIndex((t, k) => !used.has(k) && sig(t) === sig(s));
      if (j < 0) unmatched.push(i);
      else {
        used.add(j);
        pairs.push([i, j]);
      }
    }
    const what = (s: Schema) => (typesOf(s)?.join("|") === "null" ? "null" : `a ${list(typesOf(s))} variant`);
    for (const i of unmatched)
      this.add(
        "breaking",
        "variant-removed",
        [...path, key, i],
        `${what(va[i]!)} is no longer accepted`,
        va[i],
      );
    vb.forEach((s, j) => {
      if (!used.has(j))
        this.add(
          "compatible",
          "variant-added",
          [...path, key, j],
          `${what(s)} is now accepted`,
          undefined,
          s,
        );
    });
    for (const [i, j] of pairs) this.compare(va[i]!, vb[j]!, union(b) ? [...path, key, j] : path, depth + 1);
  }
}

/** A node that is one side of a union compared with the other's variants: its own keywords only. */
function stripUnionLevel(s: Schema): Schema {
  const { default: _d, ...rest } = s;
  for (const k of ANNOTATIONS) delete rest[k];
  return rest;
}

/**
 * The changes from input schema `a` to `b`, worst first within each path.
 *
 * @example
 * diffSchemas({ type: "object", properties: { n: { type: "number" } } },
 *             { type: "object", properties: { n: { type: "integer" } }, required: ["n"] });
 * // → type narrowed (breaking), now required (breaking)
 */
export function diffSchemas(a: unknown, b: unknown): SchemaChange[] {
  const c = new SchemaComparison();
  c.compare(resolveAll(inputSchemaOf(a)), resolveAll(inputSchemaOf(b)), []);
  return c.changes;
}
