// prepareSchema on Pydantic 2.13's output: what the form is given, and that it accepts exactly what
// the original schema accepts on the values that matter (checked with AJV 2020 on the original).
import Ajv2020 from "ajv/dist/2020";
import { describe, expect, it } from "vitest";
import { ajvValidator } from "@/components/schema-form/ajv-validator";
import { DISCRIMINATOR_MARK, prepareSchema } from "@/components/schema-form/prepare-schema";
import type { Schema } from "@/components/schema-form/schema-utils";
import { validate } from "@/components/schema-form/validation";
import type { JsonObject } from "@/lib/ors/protocol";
import fixture from "../../fixtures/pydantic-tool-schemas.json";

const tools = fixture.tools as { name: string; input_schema: JsonObject | null }[];
const schemaOf = (name: string) => tools.find((t) => t.name === name)!.input_schema as JsonObject;
const original = new Ajv2020({ strict: false, allErrors: true });

type S = Schema & { properties: Record<string, S>; required?: string[]; anyOf?: S[]; oneOf?: S[] };

describe("prepareSchema", () => {
  it("leaves a field with a default optional (the server fills it), required fields required", () => {
    const plan = prepareSchema(schemaOf("plan")) as S;
    expect(plan.required).toEqual(["slot_1", "slot_2", "slot_3", "slot_4"]);
    expect(plan.properties.extra_action!.default).toBe("none");
    const order = prepareSchema(schemaOf("order")) as S;
    expect(order.required).toEqual(["items"]);
    const battery = prepareSchema(schemaOf("battery")) as S;
    expect(battery.required).toEqual(["action"]);
  });

  it("turns tuples (prefixItems) into draft 7's items array", () => {
    const draw = prepareSchema(schemaOf("draw")) as S & { $defs: Record<string, S> };
    const size = draw.$defs.Rect!.properties.size as Schema;
    expect(size.prefixItems).toBeUndefined();
    expect(size.items).toEqual([{ type: "number" }, { type: "number" }]);
    expect(size.additionalItems).toBe(false);
  });

  it("makes a union's tag required (with its constant as default), marked, read-only; keeps no mapping", () => {
    const draw = prepareSchema(schemaOf("draw")) as S & { $defs: Record<string, S> };
    const circle = draw.$defs.Circle!;
    expect(circle.required).toContain("kind");
    expect(circle.properties.kind).toMatchObject({ const: "circle", default: "circle", readOnly: true });
    expect(circle.properties.kind![DISCRIMINATOR_MARK]).toBe(true);
    expect(draw.properties.shape!.discriminator).toEqual({ propertyName: "kind" });
    expect(draw.properties.shape!.oneOf!.map((o) => o.title)).toEqual(["kind = circle", "kind = rect"]);
  });

  it("makes an optional nullable scalar the scalar's field (still accepting null), a nullable model none-first", () => {
    const draw = prepareSchema(schemaOf("draw")) as S;
    expect(draw.properties.label).toMatchObject({ type: ["string", "null"], default: null });
    expect(draw.properties.label!.anyOf).toBeUndefined();
    const order = prepareSchema(schemaOf("order")) as S;
    expect(order.properties.coupon).toMatchObject({ type: ["string", "null"], pattern: "^[A-Z0-9]{4,10}$" });
    expect(draw.properties.anchor!.anyOf!.map((o) => o.title)).toEqual(["null", "Point"]);
  });

  it("reflows descriptions (dedented, hard wraps joined, paragraphs kept) and does not modify its input", () => {
    const schema = {
      type: "object",
      description: "First line\n        wrapped.\n\n        Second.",
      properties: { a: { type: "string", description: "One.\n    Two." } },
    };
    const copy = JSON.parse(JSON.stringify(schema));
    const out = prepareSchema(schema) as S;
    expect(out.description).toBe("First line wrapped.\n\nSecond.");
    expect(out.properties.a!.description).toBe("One. Two.");
    expect(schema).toEqual(copy);
  });

  it("accepts and refuses what the original schema accepts and refuses", () => {
    const cases: [string, JsonObject][] = [
      ["draw", { shape: { kind: "circle", center: { x: 0, y: 1 }, radius: 2 } }],
      ["draw", { shape: { kind: "rect", corner: { x: 0, y: 1 }, size: [1, 2] }, label: null, anchor: null }],
      ["draw", { shape: { kind: "rect", corner: { x: 0, y: 1 }, size: [1, 2, 3] } }],
      ["draw", { shape: { kind: "circle", center: { x: 0, y: 1 }, radius: 0 } }],
      ["draw", { shape: { kind: "rect", corner: { x: 0, y: 1 }, size: [1, 2] }, level: 4 }],
      ["order", { items: [{ sku: "a", qty: 1 }], coupon: null, tags: ["x", "y"] }],
      ["order", { items: [{ sku: "a", qty: 1 }], coupon: "bad" }],
      ["order", { items: [{ sku: "a", qty: 1 }], tags: ["x", "x"] }],
      ["order", { items: [] }],
      ["dispatch", { units: { g1: 1.5 } }],
      ["dispatch", { units: { g1: "x" } }],
      ["dispatch", { units: {}, extra: 1 }],
      ["tree", { root: { name: "a", children: [{ name: "b", children: [{ name: "c" }] }] } }],
      ["tree", { root: { name: "a", children: [{}] } }],
      ["set_price", { item_id: "a", price: 0 }],
      ["history", {}],
    ];
    for (const [tool, value] of cases) {
      const schema = schemaOf(tool);
      const expected = original.validate(schema, value);
      const got = validate(ajvValidator, prepareSchema(schema), value).errors.length === 0;
      expect(got, `${tool} ${JSON.stringify(value)}`).toBe(expected);
    }
  });
});
