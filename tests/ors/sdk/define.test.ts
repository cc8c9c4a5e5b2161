// Tests of the environment SDK: tool schemas and validation, registration failures that name the
// environment, and the task sources (materialized list, or count + index).
import { readFileSync } from "node:fs";
import { describe, expect, expectTypeOf, it } from "vitest";
import { z } from "zod";
import {
  defineEnvironment,
  defineTool,
  type EnvironmentDefinition,
  image,
  type JsonObject,
  text,
} from "@/lib/ors/sdk";

const submit = defineTool({
  description: "Submit an answer",
  input: z.object({ answer: z.string().describe("Your answer") }),
  run: ({ answer }) => ({ blocks: [text(answer)], reward: 1, finished: true }),
});

function base(overrides: Partial<EnvironmentDefinition> = {}): EnvironmentDefinition {
  return {
    name: "demo",
    splits: ["train"],
    listTasks: () => [{ q: 1 }],
    getPrompt: () => "hi",
    tools: { submit },
    ...overrides,
  } as EnvironmentDefinition;
}

describe("defineTool", () => {
  it("serves the input schema as draft-07 JSON Schema without $schema", () => {
    expect(submit.inputSchema).toEqual({
      type: "object",
      properties: { answer: { type: "string", description: "Your answer" } },
      required: ["answer"],
    });
  });

  it("has a null schema and accepts anything when it takes no input", async () => {
    const t = defineTool({ description: "No input", run: () => ({ blocks: [text("ok")] }) });
    expect(t.inputSchema).toBeNull();
    expect(t.parse(undefined)).toEqual({ ok: true, value: {} });
  });

  it("names every offending field, nested ones by path", () => {
    const t = defineTool({
      description: "Nested",
      input: z.object({ a: z.object({ b: z.number() }), list: z.array(z.string()) }),
      run: () => ({ blocks: [] }),
    });
    const r = t.parse({ a: { b: "x" }, list: ["ok", 3] });
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.error).toMatch(/^Invalid input: /);
      expect(r.error).toContain("a.b:");
      expect(r.error).toContain("list.1:");
    }
    const whole = t.parse("not an object");
    if (!whole.ok) expect(whole.error).toContain("input:");
    else throw new Error("expected an error");
  });

  it("applies defaults when parsing", () => {
    const t = defineTool({
      description: "Defaults",
      input: z.object({ n: z.number().default(3) }),
      run: () => ({ blocks: [] }),
    });
    expect(t.parse({})).toEqual({ ok: true, value: { n: 3 } });
  });

  it("refuses a tool without a description or a run function", () => {
    // @ts-expect-error: testing a missing description
    expect(() => defineTool({ run: () => ({ blocks: [] }) })).toThrow(/description/);
    // @ts-expect-error: testing a missing run
    expect(() => defineTool({ description: "x" })).toThrow(/run/);
  });
});

describe("defineEnvironment registration failures name the environment", () => {
  const cases: Array<[string, Partial<EnvironmentDefinition> & Record<string, unknown>, RegExp]> = [
    ["no tools", { tools: {} }, /environment "demo": has no tools/],
    ["no splits", { splits: [] }, /environment "demo": has no splits/],
    [
      "two splits with one name",
      { splits: ["train", { name: "train", type: "test" }] },
      /two splits named "train"/,
    ],
    ["a split name without a type", { splits: ["dev" as never] }, /split "dev" needs a type/],
    [
      "an invalid split type",
      { splits: [{ name: "x", type: "dev" as never }] },
      /split "x" has invalid type "dev"/,
    ],
    ["an invalid tool name", { tools: { "bad name": submit } }, /tool name "bad name" is invalid/],
    [
      "a tool not made with defineTool",
      { tools: { t: { run() {} } as never } },
      /tool "t" was not made with defineTool/,
    ],
    [
      "two task sources",
      { numTasks: () => 1, getTask: () => ({}) },
      /either listTasks, or numTasks and getTask/,
    ],
    [
      "numTasks without getTask",
      { listTasks: undefined, numTasks: () => 1 },
      /numTasks and getTask go together/,
    ],
    ["no task source", { listTasks: undefined }, /either listTasks, or numTasks and getTask/],
    ["no getPrompt", { getPrompt: undefined }, /getPrompt must be a function/],
  ];
  for (const [what, overrides, message] of cases) {
    it(`throws for ${what}`, () => {
      expect(() => defineEnvironment(base(overrides as Partial<EnvironmentDefinition>))).toThrow(message);
      expect(() => defineEnvironment(base(overrides as Partial<EnvironmentDefinition>))).toThrow(
        /environment "demo"/,
      );
    });
  }

  it("throws for an invalid environment name, quoting it", () => {
    expect(() => defineEnvironment(base({ name: "has space" }))).toThrow(
      /environment "has space": name must/,
    );
    expect(() => defineEnvironment(base({ name: "" }))).toThrow(/environment "": name must/);
  });
});

describe("task sources", () => {
  it("materializes a listed split once and answers counts, indices and ranges", async () => {
    let calls = 0;
    const env = defineEnvironment(
      base({
        splits: ["train", { name: "holdout", type: "validation" }],
        listTasks: (split) => {
          calls++;
          return Array.from({ length: split === "train" ? 5 : 2 }, (_, i) => ({ i }));
        },
      }),
    );
    expect(env.splits).toEqual([
      { name: "train", type: "train" },
      { name: "holdout", type: "validation" },
    ]);
    expect(env.hasSplit("holdout")).toBe(true);
    expect(env.hasSplit("test")).toBe(false);
    expect(await env.numTasks("train")).toBe(5);
    expect(await env.getTask("train", 4)).toEqual({ i: 4 });
    expect(await env.getTaskRange("train", 1, 3)).toEqual([{ i: 1 }, { i: 2 }]);
    expect(await env.listTasks("holdout")).toHaveLength(2);
    expect(calls).toBe(2);
    await expect(env.getTask("train", 5)).rejects.toThrow(RangeError);
    await expect(env.getTask("train", 1.5)).rejects.toThrow(RangeError);
  });

  it("retries a listTasks that failed instead of caching the failure", async () => {
    let fail = true;
    const env = defineEnvironment(
      base({
        listTasks: () => {
          if (fail) throw new Error("not yet");
          return [{ ok: true }];
        },
      }),
    );
    await expect(env.numTasks("train")).rejects.toThrow("not yet");
    fail = false;
    expect(await env.numTasks("train")).toBe(1);
  });

  it("serves an indexed split task by task", async () => {
    const asked: number[] = [];
    const env = defineEnvironment(
      base({
        listTasks: undefined,
        numTasks: () => 1_000_000,
        getTask: (_split, i) => {
          asked.push(i);
          return { i };
        },
      }),
    );
    expect(await env.numTasks("train")).toBe(1_000_000);
    expect(await env.getTask("train", 999_999)).toEqual({ i: 999_999 });
    expect(await env.getTaskRange("train", 10, 13)).toHaveLength(3);
    expect(asked).toEqual([999_999, 10, 11, 12]);
    await expect(env.getTask("train", 1_000_000)).rejects.toThrow(RangeError);
  });
});

describe("blocks", () => {
  it("builds text and image blocks in the wire shape", () => {
    expect(text("a")).toEqual({ type: "text", text: "a", detail: null });
    expect(image("AAAA", "image/png")).toEqual({
      type: "image",
      data: "AAAA",
      mimeType: "image/png",
      detail: null,
    });
  });
});

describe("defineTool with a raw JSON Schema (inputSchema)", () => {
  // A heterogeneous tuple (`prefixItems`), a set and defaults: what zod's JSON Schema cannot say.
  const placeSchema = {
    type: "object",
    properties: {
      position: {
        type: "array",
        prefixItems: [
          { type: "number", minimum: 0 },
          { type: "number", minimum: 0 },
          { enum: ["back", "front"] },
        ],
        items: false,
        minItems: 3,
      },
      tags: { type: "array", items: { type: "string" }, uniqueItems: true, default: [] },
      email: { type: "string", format: "email" },
    },
    required: ["position"],
    additionalProperties: false,
  };
  const place = defineTool<{ position: [number, number, "back" | "front"]; tags: string[] }>({
    description: "Place a sticker",
    inputSchema: placeSchema,
    run: ({ position: [x, y, layer], tags }) => ({ blocks: [text(`${x},${y} ${layer} ${tags.join(" ")}`)] }),
  });

  it("serves the schema verbatim", () => {
    expect(place.inputSchema).toBe(placeSchema);
    expect(JSON.stringify(place.inputSchema)).toBe(JSON.stringify(placeSchema));
  });

  it("validates with AJV, fills defaults and hands run the input; the caller's object is left alone", async () => {
    const raw = { position: [1, 2, "front"] };
    const parsed = place.parse(raw);
    expect(parsed).toEqual({ ok: true, value: { position: [1, 2, "front"], tags: [] } });
    expect(raw).toEqual({ position: [1, 2, "front"] });
    if (!parsed.ok) throw new Error(parsed.error);
    const out = await place.run(parsed.value, {} as never);
    expect(out.blocks).toEqual([text("1,2 front ")]);
  });

  it("names every offending field, nested ones by path, like the zod path", () => {
    const r = place.parse({ position: [-1, "2", "middle", 4], tags: ["a", "a"], extra: 1, email: "nope" });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.error).toMatch(/^Invalid input: /);
    for (const part of [
      "position.0: must be >= 0",
      "position.1: must be number",
      'position.2: must be one of "back", "front"',
      "position: must NOT have more than 3 items",
      "tags: must NOT have duplicate items",
      "extra: unknown field",
      'email: must match format "email"',
    ])
      expect(r.error).toContain(part);
    const missing = place.parse({});
    expect(missing).toEqual({ ok: false, error: "Invalid input: position: required" });
    const whole = place.parse("not an object");
    expect(whole).toEqual({ ok: false, error: "Invalid input: input: must be object" });
  });

  it("compiles every Pydantic 2 schema of the fixture and validates by it", () => {
    const fixture = JSON.parse(
      readFileSync(new URL("../../fixtures/pydantic-tool-schemas.json", import.meta.url), "utf8"),
    ) as { tools: Array<{ name: string; description: string; input_schema: JsonObject | null }> };
    for (const t of fixture.tools) {
      if (!t.input_schema) continue;
      const tool = defineTool({
        description: t.description,
        inputSchema: t.input_schema,
        run: () => ({ blocks: [] }),
      });
      expect(tool.inputSchema).toEqual(t.input_schema);
    }
    const draw = fixture.tools.find((t) => t.name === "draw")!.input_schema!;
    const tool = defineTool({ description: "draw", inputSchema: draw, run: () => ({ blocks: [] }) });
    const circle = { shape: { kind: "circle", center: { x: 0, y: 0 }, radius: 2 } };
    expect(tool.parse(circle)).toEqual({
      ok: true,
      value: { ...circle, colour: "red", label: null, anchor: null, level: 1 },
    });
    const bad = tool.parse({ shape: { kind: "rect", corner: { x: 0, y: 0 }, size: [1] } });
    expect(bad.ok).toBe(false);
    if (!bad.ok) expect(bad.error).toContain("shape.size: must NOT have fewer than 2 items");
  });

  it("takes draft-07 when the schema says so (an items array as the tuple)", () => {
    const t = defineTool({
      description: "pair",
      inputSchema: {
        $schema: "http://json-schema.org/draft-07/schema#",
        type: "object",
        properties: { pair: { type: "array", items: [{ type: "string" }, { type: "integer" }] } },
      },
      run: () => ({ blocks: [] }),
    });
    expect(t.parse({ pair: ["a", 1] }).ok).toBe(true);
    expect(t.parse({ pair: ["a", "b"] })).toEqual({
      ok: false,
      error: "Invalid input: pair.1: must be integer",
    });
  });

  it("types run's input as the type parameter, or unknown", () => {
    defineTool<{ n: number }>({
      description: "typed",
      inputSchema: { type: "object" },
      run: (input) => {
        expectTypeOf(input).toEqualTypeOf<{ n: number }>();
        return { blocks: [] };
      },
    });
    defineTool({
      description: "untyped",
      inputSchema: { type: "object" },
      run: (input) => {
        expectTypeOf(input).toBeUnknown();
        return { blocks: [] };
      },
    });
  });

  it("throws when both input and inputSchema are given; neither is a tool without input", () => {
    expect(() =>
      // @ts-expect-error: one schema or the other
      defineTool({
        description: "Both",
        input: z.object({}),
        inputSchema: { type: "object" },
        run: () => ({ blocks: [] }),
      }),
    ).toThrow('defineTool "Both": give either input (a zod schema) or inputSchema (a JSON Schema), not both');
    const neither = defineTool({ description: "Neither", run: () => ({ blocks: [] }) });
    expect(neither.inputSchema).toBeNull();
  });

  it("redefines a tool whose schema has an $id (a dev hot reload re-runs the module)", () => {
    const schema = () => ({
      $id: "https://example.test/move",
      type: "object",
      properties: { n: { type: "integer" } },
    });
    const first = defineTool({ description: "v1", inputSchema: schema(), run: () => ({ blocks: [] }) });
    const second = defineTool({ description: "v2", inputSchema: schema(), run: () => ({ blocks: [] }) });
    expect(first.parse({ n: 1 }).ok).toBe(true);
    expect(second.parse({ n: "x" })).toEqual({ ok: false, error: "Invalid input: n: must be integer" });
  });

  it("throws at definition, naming the tool, for a schema AJV cannot compile", () => {
    expect(() =>
      defineTool({
        description: "Dangling reference",
        inputSchema: { type: "object", properties: { a: { $ref: "#/$defs/Missing" } } },
        run: () => ({ blocks: [] }),
      }),
    ).toThrow(
      /^defineTool "Dangling reference": inputSchema does not compile: can't resolve reference #\/\$defs\/Missing/,
    );
    expect(() =>
      defineTool({ description: "Bad type", inputSchema: { type: "strng" }, run: () => ({ blocks: [] }) }),
    ).toThrow(/^defineTool "Bad type": inputSchema does not compile: schema is invalid: data\/type/);
    expect(() =>
      defineTool({ description: "Not an object", inputSchema: [] as never, run: () => ({ blocks: [] }) }),
    ).toThrow('defineTool "Not an object": inputSchema must be a JSON Schema object');
  });
});
