// The stand-in validator rjsf renders with until AJV's code is in (stand-in-validator.ts): on every
// tool schema of the Pydantic fixture and of the `schemas` environment, with seeded random inputs,
// and broken copies of them, rjsf resolves the same schema, fills the same defaults and picks the
// same union options with it as with AJV; it accepts every input AJV accepts of those drawn valid.
import type { RJSFSchema } from "@rjsf/utils";
import { createSchemaUtils } from "@rjsf/utils";
import { describe, expect, it } from "vitest";
import { ajvValidator } from "@/components/schema-form/ajv-validator";
import { prepareSchema } from "@/components/schema-form/prepare-schema";
import { isObj, type Schema } from "@/components/schema-form/schema-utils";
import { fits, standInValidator } from "@/components/schema-form/stand-in-validator";
import { schemas } from "@/envs/schemas";
import { seededRandom } from "@/envs/shared/seeded-random";
import { randomInput } from "@/lib/conformance/inputs";
import type { JsonObject } from "@/lib/ors/protocol";
import fixture from "../../fixtures/pydantic-tool-schemas.json";

const toolSchemas: [string, JsonObject][] = [
  ...(fixture.tools as { name: string; input_schema: JsonObject | null }[])
    .filter((t) => t.input_schema)
    .map((t) => [`pydantic ${t.name}`, t.input_schema!] as [string, JsonObject]),
  ...[...schemas.tools].map(
    ([name, t]) => [`schemas ${name}`, t.inputSchema as JsonObject] as [string, JsonObject],
  ),
];

/** Random valid inputs, and copies with one property dropped or retyped (what a user has half typed). */
function valuesFor(schema: JsonObject, seed: number): { valid: JsonObject[]; broken: JsonObject[] } {
  const rand = seededRandom(seed);
  const valid: JsonObject[] = [];
  const broken: JsonObject[] = [{}];
  for (let i = 0; i < 12; i++) {
    const r = randomInput(schema, rand);
    if (!r.ok) continue;
    const v = r.value as JsonObject;
    valid.push(v);
    for (const k of Object.keys(v)) {
      const { [k]: _dropped, ...rest } = v;
      broken.push(rest, { ...v, [k]: typeof v[k] === "string" ? 7 : "x" });
    }
  }
  return { valid, broken };
}

/** Every union node of a prepared schema with the value found at its place (if any). */
function unions(schema: unknown, value: unknown, root: Schema, out: [Schema[], unknown][] = [], depth = 0) {
  if (!isObj(schema) || depth > 12) return out;
  for (const key of ["anyOf", "oneOf"] as const)
    if (Array.isArray(schema[key])) out.push([schema[key] as Schema[], value]);
  if (isObj(schema.properties) && isObj(value))
    for (const [k, p] of Object.entries(schema.properties)) unions(p, value[k], root, out, depth + 1);
  if (typeof schema.$ref === "string") {
    const target =
      root.$defs && isObj(root.$defs) ? root.$defs[schema.$ref.split("/").pop() ?? ""] : undefined;
    unions(target, value, root, out, depth + 1);
  }
  return out;
}

describe("the stand-in validator", () => {
  it("lets rjsf resolve, fill and choose as AJV does, on every tool schema", () => {
    let compared = 0;
    for (const [name, raw] of toolSchemas) {
      const prepared = prepareSchema(raw) as RJSFSchema;
      const withAjv = createSchemaUtils(ajvValidator, prepared);
      const withStandIn = createSchemaUtils(standInValidator, prepared);
      const { valid, broken } = valuesFor(raw, name.length);
      for (const value of valid.filter((v) => ajvValidator.validateFormData(v, prepared).errors.length === 0))
        expect(standInValidator.isValid(prepared, value, prepared), `${name} ${JSON.stringify(value)}`).toBe(
          true,
        );
      for (const value of [...valid, ...broken]) {
        const what = `${name} ${JSON.stringify(value)}`;
        expect(withStandIn.retrieveSchema(prepared, value), what).toEqual(
          withAjv.retrieveSchema(prepared, value),
        );
        expect(withStandIn.getDefaultFormState(prepared, value), what).toEqual(
          withAjv.getDefaultFormState(prepared, value),
        );
        for (const [options, at] of unions(prepared, value, prepared as Schema)) {
          // The question rjsf asks of its validator: does the value at the union fit this option?
          for (const o of options)
            expect(
              standInValidator.isValid(o as RJSFSchema, at, prepared),
              `${what} ${JSON.stringify(o)}`,
            ).toBe(ajvValidator.isValid(o as RJSFSchema, at, prepared));
          expect(withStandIn.getClosestMatchingOption(at, options as RJSFSchema[], 0), what).toBe(
            withAjv.getClosestMatchingOption(at, options as RJSFSchema[], 0),
          );
          compared++;
        }
      }
    }
    expect(compared).toBeGreaterThan(50);
  });

  it("answers the shape questions: type, const, enum, required, bounds, tuples, refs", () => {
    const root = {
      $defs: { P: { type: "object", properties: { x: { type: "integer" } }, required: ["x"] } },
    };
    expect(fits({ $ref: "#/$defs/P" }, { x: 1 }, root)).toBe(true);
    expect(fits({ $ref: "#/$defs/P" }, { x: 1.5 }, root)).toBe(false);
    expect(fits({ $ref: "#/$defs/P" }, {}, root)).toBe(false);
    expect(fits({ const: "circle" }, "rect", {})).toBe(false);
    expect(fits({ enum: ["a", null] }, null, {})).toBe(true);
    expect(fits({ type: "string", minLength: 2 }, "a", {})).toBe(false);
    expect(fits({ type: "string", pattern: "^[A-Z]+$" }, "ab", {})).toBe(false);
    expect(fits({ type: "number", exclusiveMinimum: 0 }, 0, {})).toBe(false);
    expect(fits({ type: "array", items: [{ type: "number" }], additionalItems: false }, [1, 2], {})).toBe(
      false,
    );
    expect(fits({ type: "object", additionalProperties: false, properties: {} }, { a: 1 }, {})).toBe(false);
    expect(fits({ type: "string", format: "email" }, "not an address", {})).toBe(true);
    expect(fits({ type: "string" }, undefined, {})).toBe(false);
    expect(standInValidator.validateFormData({ a: 1 }, { type: "string" } as RJSFSchema).errors).toEqual([]);
  });
});
