// A tool declared with a raw JSON Schema, through the host (createOrsHandler): `/tools` serves the
// schema verbatim, a valid call runs with defaults filled in, an invalid one is `{ok: false}`
// naming the fields, and the session goes on.
import { afterAll, describe, expect, it } from "vitest";
import { schemas } from "@/envs/schemas";
import { createOrsHandler } from "@/lib/ors/host";
import { readSseFrames } from "@/lib/ors/protocol";
import { defineEnvironment, defineTool, text } from "@/lib/ors/sdk";

const moveSchema = {
  title: "MoveInput",
  type: "object",
  properties: {
    to: {
      type: "array",
      description: "[x, y]",
      prefixItems: [
        { type: "integer", minimum: 0, maximum: 9 },
        { type: "integer", minimum: 0, maximum: 9 },
      ],
      items: false,
      minItems: 2,
    },
    speed: { enum: ["walk", "run"], default: "walk" },
  },
  required: ["to"],
  additionalProperties: false,
};

const move = defineTool<{ to: [number, number]; speed: "walk" | "run" }>({
  description: "Move to a cell",
  inputSchema: moveSchema,
  run: ({ to: [x, y], speed }) => ({
    blocks: [text(`${speed} to ${x},${y}`)],
    reward: x === 9 && y === 9 ? 1 : 0,
    finished: x === 9 && y === 9,
  }),
});

const grid = defineEnvironment({
  name: "grid",
  splits: ["train"],
  listTasks: () => [{ id: 0 }],
  getPrompt: () => "Reach 9,9.",
  tools: { move },
});

const host = createOrsHandler([grid, schemas], { log: () => {} });
afterAll(() => host.close());

const BASE = "http://ors.test";

async function call(sid: string, input: unknown, env = "grid", name = "move"): Promise<unknown> {
  const res = await host(
    new Request(`${BASE}/${env}/call`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-session-id": sid },
      body: JSON.stringify({ name, input }),
    }),
  );
  expect(res.status).toBe(200);
  let data = "";
  for await (const f of readSseFrames(res.body!)) {
    if (f.kind === "event" && (f.event === "chunk" || f.event === "end")) data += f.data;
  }
  return JSON.parse(data);
}

async function episode(env: string): Promise<string> {
  const created = await host(new Request(`${BASE}/create_session`, { method: "POST" }));
  const { sid } = (await created.json()) as { sid: string };
  const res = await host(
    new Request(`${BASE}/create`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-session-id": sid },
      body: JSON.stringify({ env_name: env, split: "train", index: 0 }),
    }),
  );
  expect(res.status).toBe(200);
  return sid;
}

describe("a raw-schema tool served by createOrsHandler", () => {
  it("serves the schema verbatim in /tools", async () => {
    const res = await host(new Request(`${BASE}/grid/tools`));
    const text = await res.text();
    expect(JSON.parse(text)).toEqual({
      tools: [{ name: "move", description: "Move to a cell", input_schema: moveSchema }],
    });
    expect(text).toContain(JSON.stringify(moveSchema));
  });

  it("runs valid input with defaults, refuses invalid input naming the fields, and goes on", async () => {
    const sid = await episode("grid");
    expect(await call(sid, { to: [3, 4] })).toEqual({
      ok: true,
      output: { blocks: [text("walk to 3,4")], metadata: null, reward: 0, finished: false },
    });
    expect(await call(sid, { to: [10, "x"], speed: "fly" })).toEqual({
      ok: false,
      error: 'Invalid input: to.0: must be <= 9; to.1: must be integer; speed: must be one of "walk", "run"',
    });
    expect(await call(sid, { to: [9, 9], speed: "run" })).toMatchObject({
      ok: true,
      output: { blocks: [text("run to 9,9")], reward: 1, finished: true },
    });
  });

  it("the schemas environment's place tool: a prefixItems tuple, validated and echoed", async () => {
    const tools = (await (await host(new Request(`${BASE}/schemas/tools`))).json()) as {
      tools: Array<{
        name: string;
        input_schema: { properties: Record<string, { prefixItems?: unknown[] }> };
      }>;
    };
    expect(tools.tools.map((t) => t.name)).toEqual(["create_order", "configure", "nested", "tree", "place"]);
    const place = tools.tools.find((t) => t.name === "place")!;
    expect(place.input_schema.properties.position!.prefixItems).toHaveLength(3);
    const sid = await episode("schemas");
    const ok = (await call(sid, { position: [10, 20.5, "front"], tags: ["a", "b"] }, "schemas", "place")) as {
      ok: true;
      output: { blocks: Array<{ text: string }> };
    };
    expect(ok.ok).toBe(true);
    expect(ok.output.blocks[0]!.text).toContain("Sticker at (10, 20.5) on the front layer, 2 tag(s).");
    expect(await call(sid, { position: [10, 20], tags: ["a", "a"] }, "schemas", "place")).toEqual({
      ok: false,
      error:
        "Invalid input: position: must NOT have fewer than 3 items; tags: must NOT have duplicate items (items ## 1 and 0 are identical)",
    });
  });
});
