// Tests of the environment SDK: tool schemas and validation, registration failures that name the
// environment, and the task sources (materialized list, or count + index).
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { defineEnvironment, defineTool, type EnvironmentDefinition, image, text } from "@/lib/ors/sdk";

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
