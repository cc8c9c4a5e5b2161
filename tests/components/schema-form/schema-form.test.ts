import { describe, expect, it } from "vitest";
import { jsonEqual, jsonErrorOffset, parseJsonObject } from "@/components/schema-form/json-text";
import { prepareSchema } from "@/components/schema-form/prepare-schema";

describe("parseJsonObject", () => {
  it("accepts an object and refuses other JSON values", () => {
    expect(parseJsonObject('{"a": [1, {"b": null}]}')).toEqual({ ok: true, value: { a: [1, { b: null }] } });
    expect(parseJsonObject("[1]")).toMatchObject({
      ok: false,
      message: "Expected a JSON object ({...}), got an array",
    });
    expect(parseJsonObject("null")).toMatchObject({ ok: false });
    expect(parseJsonObject("  ")).toMatchObject({ ok: false });
  });

  it("locates syntax errors by line and column", () => {
    const r = parseJsonObject('{\n  "a": 1,\n  "b": \n}');
    expect(r).toMatchObject({ ok: false, line: 4, column: 1 });
    expect(parseJsonObject('{"a": 1,}')).toMatchObject({ ok: false, line: 1, column: 9 });
    expect(parseJsonObject('{"a": 1')).toMatchObject({ ok: false, line: 1, column: 8 });
  });

  it("finds the first error offset, or -1 for valid JSON", () => {
    expect(jsonErrorOffset('{"a": [1, 2.5e3, true, "x\\"y"]}')).toBe(-1);
    expect(jsonErrorOffset('{"a": tru}')).toBe(6);
    expect(jsonErrorOffset("{} x")).toBe(3);
  });

  it("compares JSON values ignoring key order", () => {
    expect(jsonEqual({ a: 1, b: [1, { c: 2 }] }, { b: [1, { c: 2 }], a: 1 })).toBe(true);
    expect(jsonEqual({ a: 1 }, { a: 1, b: undefined })).toBe(true);
    expect(jsonEqual({ a: [1] }, { a: [1, 2] })).toBe(false);
  });
});

describe("prepareSchema", () => {
  it("titles nullable and discriminated union options and turns literal unions into enums", () => {
    const schema = {
      type: "object",
      properties: {
        notes: { anyOf: [{ type: "string" }, { type: "null" }] },
        mode: {
          anyOf: [
            { type: "string", const: "fast" },
            { type: "string", const: "safe" },
          ],
        },
        pay: {
          oneOf: [
            { type: "object", properties: { method: { const: "card" }, n: { type: "string" } } },
            { $ref: "#/$defs/Paypal" },
          ],
        },
      },
      $defs: { Paypal: { type: "object", properties: { method: { const: "paypal" } } } },
    };
    type S = { title?: string; readOnly?: boolean; properties: Record<string, S>; anyOf: S[]; oneOf: S[] };
    const out = prepareSchema(schema) as unknown as S;
    expect(out.properties.notes!.anyOf.map((o) => o.title)).toEqual(["string", "null"]);
    expect(out.properties.mode).toEqual({ type: "string", enum: ["fast", "safe"] });
    expect(out.properties.pay!.oneOf.map((o) => o.title)).toEqual(["method = card", "method = paypal"]);
    expect(out.properties.pay!.oneOf[0]!.properties.method!.readOnly).toBe(true);
    expect((schema.properties.notes.anyOf[0] as { title?: string }).title).toBeUndefined();
  });
});

describe("prepareSchema defaults", () => {
  it("makes primitives with a default required (always sent), leaving optional objects optional", () => {
    const out = prepareSchema({
      type: "object",
      properties: {
        n: { type: "integer", default: 2 },
        home: { type: "object", properties: { country: { type: "string", default: "FR" } } },
        tags: { type: "array", default: [] },
      },
      required: ["x"],
    }) as { required: string[]; properties: { home: { required: string[] } } };
    expect(out.required.sort()).toEqual(["n", "x"]);
    expect(out.properties.home.required).toEqual(["country"]);
  });
});
