import { describe, expect, it } from "vitest";
import { jsonEqual, jsonErrorOffset, parseJsonObject } from "@/components/schema-form/json-text";

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
