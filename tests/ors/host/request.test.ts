// The hand-written readers of the /call and /create bodies accept exactly what the protocol's
// schemas accept, with the same value, and leave every refusal to the schemas' field-naming 400.
import { describe, expect, it } from "vitest";
import { readCreate, readToolCall } from "@/lib/ors/host/request";
import { createRequestSchema, type OrsError, toolCallSchema } from "@/lib/ors/protocol";

function outcome(read: (raw: unknown) => unknown, raw: unknown) {
  try {
    return { ok: read(raw) };
  } catch (e) {
    return { status: (e as OrsError).status, detail: (e as OrsError).detail };
  }
}

function schemaOutcome(
  schema: { safeParse(v: unknown): { success: boolean; data?: unknown } },
  raw: unknown,
) {
  const r = schema.safeParse(raw);
  return r.success ? { ok: r.data } : { status: 400 };
}

const CALLS: unknown[] = [
  { name: "submit", input: { answer: "4" } },
  { name: "submit", input: {}, task_id: "t-1" },
  { name: "submit", input: {}, task_id: null },
  { name: "submit", input: [] },
  { name: "submit", input: null },
  { name: 3, input: {} },
  { input: {} },
  { name: "submit" },
  { name: "submit", input: {}, task_id: 7 },
  { name: "submit", input: {}, extra: 1 },
  [],
  "x",
  null,
];

const CREATES: unknown[] = [
  { env_name: "math", split: "train", index: 0 },
  { split: "train", index: 3, secrets: { K: "v" } },
  { env_name: null, task_spec: { q: 1 }, secrets: null },
  { task_spec: { q: 1 }, split: null, index: null },
  { env_name: "math", split: "train" },
  { env_name: "math", index: 0 },
  { task_spec: { q: 1 }, split: "train", index: 0 },
  {},
  { split: "train", index: 1.5 },
  { split: "train", index: 2 ** 60 },
  { split: "train", index: -1 },
  { task_spec: [1] },
  { task_spec: { q: 1 }, secrets: { K: 1 } },
  { task_spec: { q: 1 }, env_name: 5 },
  { task_spec: { q: 1 }, toolset: "x" },
  [],
];

describe("readToolCall and readCreate", () => {
  it.each(CALLS.map((b) => [JSON.stringify(b), b]))("/call %s: as toolCallSchema", (_, body) => {
    const mine = outcome(readToolCall, body);
    expect(mine).toMatchObject(schemaOutcome(toolCallSchema, body));
    if ("detail" in mine) expect(mine.detail).toMatch(/\w/);
  });

  it.each(CREATES.map((b) => [JSON.stringify(b), b]))("/create %s: as createRequestSchema", (_, body) => {
    const mine = outcome(readCreate, body);
    expect(mine).toMatchObject(schemaOutcome(createRequestSchema, body));
    if ("detail" in mine) expect(mine.detail).toMatch(/\w/);
  });

  it("refusals name the field, as the schema's 400 does", () => {
    expect(outcome(readToolCall, { name: "submit", input: [] })).toEqual({
      status: 400,
      detail: expect.stringMatching(/^input: /),
    });
    expect(outcome(readCreate, { split: "train" })).toEqual({
      status: 400,
      detail: expect.stringMatching(/^index: split and index must be provided together/),
    });
  });
});
