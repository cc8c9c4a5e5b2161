// Tool input schemas compared as JSON Schema (lib/conformance/diff/schema-diff.ts): each keyword's
// change classed by what it does to the inputs a client may send, `$ref`s resolved (Pydantic's
// `$defs`), unions matched variant by variant, annotations cosmetic, and no change where the two
// schemas say the same in other words.
import { describe, expect, it } from "vitest";
import { diffSchemas, sameSchema } from "@/lib/conformance/diff/schema-diff";

const obj = (properties: Record<string, unknown>, required: string[] = [], more: object = {}) => ({
  type: "object",
  properties,
  required,
  ...more,
});

/** `class kind at` for each change. */
function summary(a: unknown, b: unknown): string[] {
  return diffSchemas(a, b).map((c) => `${c.class} ${c.kind} ${c.path.join("/")}`);
}

describe("diffSchemas", () => {
  it("finds nothing between equal schemas, and none between a $ref and its definition inlined", () => {
    const inline = obj({ item: obj({ sku: { type: "string" } }, ["sku"]) }, ["item"]);
    const withRef = {
      $defs: { Item: obj({ sku: { type: "string" } }, ["sku"]) },
      ...obj({ item: { $ref: "#/$defs/Item" } }, ["item"]),
    };
    expect(diffSchemas(inline, inline)).toEqual([]);
    expect(diffSchemas(inline, withRef)).toEqual([]);
    expect(sameSchema(inline, withRef)).toBe(true);
    // No input at all, however it is written.
    expect(diffSchemas(null, { type: "object", properties: {} })).toEqual([]);
  });

  it("classes properties: a new required one breaks, an optional one is compatible, required-ness both ways", () => {
    const a = obj({ answer: { type: "string" }, note: { type: "string" } }, ["answer"]);
    expect(summary(a, obj({ ...a.properties, qty: { type: "integer" } }, ["answer", "qty"]))).toEqual([
      "breaking required-added properties/qty",
    ]);
    expect(summary(a, obj({ ...a.properties, hint: { type: "string" } }, ["answer"]))).toEqual([
      "compatible property-added properties/hint",
    ]);
    expect(summary(a, obj(a.properties, ["answer", "note"]))).toEqual([
      "breaking property-required properties/note",
    ]);
    expect(summary(a, obj(a.properties, []))).toEqual(["compatible property-optional properties/answer"]);
  });

  it("a removed property breaks only when additionalProperties is closed; closing it breaks, opening it does not", () => {
    const a = obj({ answer: { type: "string" }, note: { type: "string" } }, ["answer"]);
    expect(summary(a, obj({ answer: { type: "string" } }, ["answer"]))).toEqual([
      "compatible property-removed properties/note",
    ]);
    expect(
      summary(a, obj({ answer: { type: "string" } }, ["answer"], { additionalProperties: false })),
    ).toEqual([
      "breaking property-removed properties/note",
      "breaking additional-closed additionalProperties",
    ]);
    expect(summary(obj({}, [], { additionalProperties: false }), obj({}, []))).toEqual([
      "compatible additional-opened additionalProperties",
    ]);
    expect(
      summary(
        obj({}, [], { additionalProperties: { type: "number" } }),
        obj({}, [], { additionalProperties: { type: "integer" } }),
      ),
    ).toEqual(["breaking type-narrowed additionalProperties/type"]);
  });

  it("types narrowed break and widened are compatible (an integer is a number)", () => {
    const t = (type: unknown) => obj({ x: { type } });
    expect(summary(t("number"), t("integer"))).toEqual(["breaking type-narrowed properties/x/type"]);
    expect(summary(t("integer"), t("number"))).toEqual(["compatible type-widened properties/x/type"]);
    expect(summary(t("string"), t(["string", "null"]))).toEqual([
      "compatible type-widened properties/x/type",
    ]);
    expect(summary(t("string"), t("boolean"))).toEqual(["breaking type-changed properties/x/type"]);
  });

  it("enums: values removed break, added are compatible, reordered is cosmetic; consts", () => {
    const e = (values: unknown[]) => obj({ size: { type: "string", enum: values } });
    expect(summary(e(["S", "M", "L"]), e(["S", "M"]))).toEqual([
      "breaking enum-narrowed properties/size/enum",
    ]);
    expect(summary(e(["S", "M"]), e(["S", "M", "L"]))).toEqual([
      "compatible enum-widened properties/size/enum",
    ]);
    expect(summary(e(["S", "M"]), e(["M", "S"]))).toEqual(["cosmetic enum-reordered properties/size/enum"]);
    expect(summary(obj({ k: { const: "a" } }), obj({ k: { const: "b" } }))).toEqual([
      "breaking const-changed properties/k/const",
    ]);
  });

  it("bounds, patterns and formats tightened break, loosened or removed are compatible", () => {
    const s = (more: object) => obj({ name: { type: "string", ...more } });
    expect(summary(s({ maxLength: 10 }), s({ maxLength: 5 }))).toEqual([
      "breaking bound-tightened properties/name/maxLength",
    ]);
    expect(summary(s({ maxLength: 5 }), s({ maxLength: 10 }))).toEqual([
      "compatible bound-loosened properties/name/maxLength",
    ]);
    expect(summary(s({}), s({ minLength: 1 }))).toEqual(["breaking bound-added properties/name/minLength"]);
    expect(summary(s({ minLength: 1 }), s({}))).toEqual([
      "compatible bound-removed properties/name/minLength",
    ]);
    expect(summary(s({}), s({ pattern: "^[a-z]+$" }))).toEqual([
      "breaking pattern-changed properties/name/pattern",
    ]);
    expect(summary(s({ format: "email" }), s({}))).toEqual([
      "compatible format-removed properties/name/format",
    ]);
    const n = (more: object) => obj({ n: { type: "number", ...more } });
    expect(summary(n({ exclusiveMinimum: 0 }), n({ exclusiveMinimum: 1 }))).toEqual([
      "breaking bound-tightened properties/n/exclusiveMinimum",
    ]);
    expect(
      summary(obj({ tags: { type: "array" } }), obj({ tags: { type: "array", uniqueItems: true } })),
    ).toEqual(["breaking unique-items-added properties/tags/uniqueItems"]);
  });

  it("annotations and ordering are cosmetic; a default's change is compatible", () => {
    const a = obj({
      a: { type: "string", title: "A", description: "the a" },
      b: { type: "integer", default: 1 },
    });
    const b = obj({
      b: { type: "integer", default: 2 },
      a: { type: "string", title: "Alpha", description: "the a" },
    });
    expect(summary(a, b)).toEqual([
      "compatible default-changed properties/b",
      "cosmetic title-changed properties/a/title",
      "cosmetic properties-reordered properties",
    ]);
  });

  it("Optional (anyOf with null): null added is compatible, removed breaks; a variant's own change is found", () => {
    const plain = obj({ note: { type: "string", title: "Note" } });
    const optional = obj({
      note: { anyOf: [{ type: "string" }, { type: "null" }], default: null, title: "Note" },
    });
    // (A default of null says no more than no default.)
    expect(summary(plain, optional)).toEqual(["compatible variant-added properties/note/anyOf/1"]);
    expect(summary(optional, plain)).toEqual(["breaking variant-removed properties/note/anyOf/1"]);
    const narrowed = obj({
      note: { anyOf: [{ type: "string", maxLength: 5 }, { type: "null" }], default: null, title: "Note" },
    });
    expect(summary(optional, narrowed)).toEqual(["breaking bound-added properties/note/anyOf/0/maxLength"]);
  });

  it("names where a change is in words", () => {
    const a = obj({ order: obj({ items: { type: "array", items: obj({ qty: { type: "integer" } }) } }) });
    const b = obj({
      order: obj({ items: { type: "array", items: obj({ qty: { type: "integer", minimum: 1 } }) } }),
    });
    expect(diffSchemas(a, b).map((c) => c.message)).toEqual(["order.items[].qty: minimum 1 added"]);
  });
});
