// Tool specs in the providers' documented shapes (lib/ors/protocol/tool-formats.ts), on every schema
// Pydantic emits (tests/fixtures/pydantic-tool-schemas.json): Anthropic's {name, description,
// input_schema} with an object schema, OpenAI's function tools, and Gemini's functionDeclarations
// whose parameters use only the keywords of Gemini's Schema object, `Optional` as `nullable`.
import { describe, expect, it } from "vitest";
import type { ToolSpec } from "@/lib/ors/protocol";
import { anthropicTools, geminiSchema, geminiTools, toolsAs } from "@/lib/ors/protocol/tool-formats";
import fixture from "../../fixtures/pydantic-tool-schemas.json";

const tools = (fixture as { tools: ToolSpec[] }).tools;
const GEMINI_KEYS = new Set([
  "type",
  "format",
  "title",
  "description",
  "nullable",
  "enum",
  "maxItems",
  "minItems",
  "properties",
  "required",
  "minProperties",
  "maxProperties",
  "minLength",
  "maxLength",
  "pattern",
  "example",
  "anyOf",
  "propertyOrdering",
  "default",
  "items",
  "minimum",
  "maximum",
]);
const NAME = /^[A-Za-z0-9_-]{1,64}$/;

/** Every keyword of a Gemini schema, at any depth. */
function keysOf(s: unknown, out = new Set<string>()): Set<string> {
  if (!s || typeof s !== "object") return out;
  for (const [k, v] of Object.entries(s as Record<string, unknown>)) {
    out.add(k);
    if (k === "properties") for (const sub of Object.values(v as object)) keysOf(sub, out);
    else if (k === "items") keysOf(v, out);
    else if (k === "anyOf") for (const sub of v as unknown[]) keysOf(sub, out);
  }
  return out;
}

describe("tool specs in the providers' shapes", () => {
  it("Anthropic: a valid name, the description, an object input schema whose refs all resolve", () => {
    for (const t of anthropicTools(tools)) {
      expect(Object.keys(t).sort()).toEqual(["description", "input_schema", "name"]);
      expect(t.name).toMatch(NAME);
      const schema = t.input_schema as { type: string; $defs?: Record<string, unknown> };
      expect(schema.type).toBe("object");
      // Refs inlined; a recursive one keeps the definition it needs.
      for (const [, name] of JSON.stringify(schema).matchAll(/"\$ref":"#\/\$defs\/([^"]+)"/g))
        expect(schema.$defs?.[name!]).toBeDefined();
    }
  });

  it("OpenAI: function tools", () => {
    for (const t of toolsAs(tools, "openai") as { type: string; function: { name: string } }[]) {
      expect(t.type).toBe("function");
      expect(t.function.name).toMatch(NAME);
    }
  });

  it("Gemini: only the keywords of its Schema object, Optional as nullable", () => {
    const [{ functionDeclarations }] = geminiTools(tools) as {
      functionDeclarations: { name: string; parameters: unknown }[];
    }[];
    expect(functionDeclarations).toHaveLength(tools.length);
    for (const d of functionDeclarations) {
      expect(d.name).toMatch(/^[A-Za-z_][A-Za-z0-9_.:-]{0,63}$/);
      for (const k of keysOf(d.parameters)) expect(GEMINI_KEYS.has(k), `${d.name}: ${k}`).toBe(true);
    }
    expect(
      geminiSchema({ anyOf: [{ type: "integer" }, { type: "null" }], default: null, description: "n" }),
    ).toEqual({
      type: "integer",
      nullable: true,
      default: null,
      description: "n",
    });
    expect(geminiSchema({ const: "add", type: "string" })).toEqual({ type: "string", enum: ["add"] });
    expect(geminiSchema({ type: ["string", "null"] })).toEqual({ type: "string", nullable: true });
  });
});
