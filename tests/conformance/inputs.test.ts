// Tool inputs the conformance check makes up from input schemas: valid ones (checked with AJV
// against Pydantic 2's exact schemas and our own environments'), refused ones, and tool choice.
import Ajv2020 from "ajv/dist/2020";
import { describe, expect, it } from "vitest";
import { builtinEnvironments } from "@/envs";
import {
  invalidInput,
  looksLarge,
  looksSlow,
  minimalInput,
  rankToolsForCall,
  slowInput,
  takesNoInput,
} from "@/lib/conformance/inputs";
import type { ToolSpec } from "@/lib/ors/protocol";
import fixture from "../fixtures/pydantic-tool-schemas.json";

const pydanticTools = fixture.tools as ToolSpec[];
const ownTools: ToolSpec[] = builtinEnvironments.flatMap((env) =>
  [...env.tools].map(([name, tool]) => ({
    name,
    description: tool.description,
    input_schema: tool.inputSchema,
  })),
);

function validator(schema: unknown) {
  const ajv = new Ajv2020({ strict: false, validateFormats: false });
  return ajv.compile(schema as object);
}

describe("minimalInput", () => {
  it.each(pydanticTools.map((t) => [t.name, t] as const))(
    "makes a valid input for Pydantic's %s",
    (_, tool) => {
      const made = minimalInput(tool.input_schema);
      expect(made.ok).toBe(true);
      if (!made.ok || tool.input_schema === null) return;
      const validate = validator(tool.input_schema);
      expect(validate(made.value), JSON.stringify(validate.errors)).toBe(true);
    },
  );

  it("makes a valid input for every built-in tool (simple patterns included)", () => {
    const failures: string[] = [];
    for (const tool of ownTools) {
      const made = minimalInput(tool.input_schema);
      if (!made.ok) failures.push(`${tool.name}: ${made.reason}`);
      else if (tool.input_schema && !validator(tool.input_schema)(made.value))
        failures.push(`${tool.name}: invalid`);
    }
    expect(failures).toEqual([]);
  });

  it("says why when no simple string fits a pattern", () => {
    const made = minimalInput({
      type: "object",
      properties: { code: { type: "string", pattern: "^[a-z]{2}-[0-9]{4}-x$" } },
      required: ["code"],
    });
    expect(made).toEqual({
      ok: false,
      reason: "code: no simple string matches the pattern ^[a-z]{2}-[0-9]{4}-x$",
    });
  });

  it("keeps to required fields, and uses defaults, const, enum and Optional's null", () => {
    const schema = {
      $defs: { Mode: { enum: ["fast", "slow"], type: "string" } },
      type: "object",
      properties: {
        mode: { $ref: "#/$defs/Mode" },
        kind: { const: "circle", type: "string" },
        limit: { default: 5, type: "integer" },
        note: { anyOf: [{ type: "string" }, { type: "null" }] },
        count: { type: "integer", exclusiveMinimum: 0 },
        tags: { type: "array", items: { type: "string" }, minItems: 2, uniqueItems: true },
        skipped: { type: "string" },
      },
      required: ["mode", "kind", "limit", "note", "count", "tags"],
    };
    expect(minimalInput(schema)).toEqual({
      ok: true,
      value: { mode: "fast", kind: "circle", limit: 5, note: null, count: 1, tags: ["", "1"] },
    });
    expect(minimalInput(null)).toEqual({ ok: true, value: {} });
  });
});

describe("invalidInput", () => {
  it("leaves out a required field, or gives an object to a typed one; AJV refuses both", () => {
    let made = 0;
    for (const tool of [...pydanticTools, ...ownTools]) {
      const bad = invalidInput(tool.input_schema);
      if (!bad) continue;
      made++;
      expect(validator(tool.input_schema)(bad.value), `${tool.name} ${bad.why}`).toBe(false);
    }
    expect(made).toBeGreaterThan(10);
  });

  it("has nothing to offer when every object is accepted", () => {
    expect(invalidInput(null)).toBeNull();
    expect(invalidInput({ type: "object", properties: {} })).toBeNull();
  });
});

describe("choosing tools", () => {
  const byName = (name: string) => ownTools.find((t) => t.name === name)!;

  it("prefers tools taking no input, and puts slow or large-looking tools last", () => {
    const order = rankToolsForCall([byName("dump"), byName("guess"), byName("hint")]).map((r) => r.tool.name);
    expect(order).toEqual(["hint", "guess", "dump"]);
    expect(takesNoInput(byName("hint"))).toBe(true);
    expect(takesNoInput(byName("guess"))).toBe(false);
  });

  it("recognises large and slow tools, and makes a slow one run for a given time", () => {
    expect(looksLarge(byName("dump"))).toBe(true);
    expect(looksSlow(byName("wait"))).toBe(true);
    expect(looksSlow(byName("submit"))).toBe(false);
    expect(slowInput(byName("wait"), 12)).toEqual({ seconds: 12 });
    const ms: ToolSpec = {
      name: "sleep",
      description: "Sleep a while.",
      input_schema: { type: "object", properties: { delay_ms: { type: "integer", maximum: 5000 } } },
    };
    expect(slowInput(ms, 12)).toEqual({ delay_ms: 5000 });
    expect(slowInput(byName("submit"), 12)).toBeNull();
  });
});
