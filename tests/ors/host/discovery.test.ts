// Discovery endpoints (ors-http-api.txt "Discovery Endpoints") and routing: exact bodies, 400s
// naming the field, 404 for unknown environments and paths, 405 for wrong methods, basePath.
import { afterEach, describe, expect, it } from "vitest";
import { closeHandlers, makeHandler, tasks } from "./helpers";
import { expectError, jsonOf, send } from "./wire";

afterEach(closeHandlers);

describe("health and list_environments", () => {
  it("answers health and lists environments in registration order", async () => {
    const h = makeHandler();
    expect(await jsonOf(await send(h, "/health"))).toEqual({ status: "ok" });
    expect(await jsonOf(await send(h, "/list_environments"))).toEqual([
      "qa",
      "slowsetup",
      "broken",
      "indexed",
      "throwsinlist",
    ]);
  });

  it("serves the same endpoints with and without the base path", async () => {
    const h = makeHandler({ basePath: "/api/ors" });
    expect(await jsonOf(await send(h, "/api/ors/health"))).toEqual({ status: "ok" });
    expect(await jsonOf(await send(h, "/health"))).toEqual({ status: "ok" });
    expect(((await jsonOf(await send(h, "/api/ors/qa/splits"))) as unknown[]).length).toBe(2);
    await expectError(send(h, "/api/ors"), 404, /not an ORS endpoint/);
    await expectError(send(h, "/api/orsx/health"), 404, /not an ORS endpoint/);
  });
});

describe("tools and splits", () => {
  it("lists shared tools with JSON Schema inputs, null for no input", async () => {
    const h = makeHandler();
    const { tools } = (await jsonOf(await send(h, "/qa/tools"))) as {
      tools: { name: string; description: string; input_schema: unknown }[];
    };
    expect(tools.map((t) => t.name)).toEqual([
      "submit",
      "counter",
      "big",
      "held",
      "boom",
      "malformed",
      "peek",
    ]);
    expect(tools[0]).toEqual({
      name: "submit",
      description: "Submit an answer",
      input_schema: {
        type: "object",
        properties: { answer: { type: "string" } },
        required: ["answer"],
      },
    });
    expect(tools[1]!.input_schema).toBeNull();
    const indexed = (await jsonOf(await send(h, "/indexed/tools"))) as { tools: { name: string }[] };
    expect(indexed.tools.map((t) => t.name)).toEqual(["noop"]);
  });

  it("lists splits", async () => {
    const h = makeHandler();
    expect(await jsonOf(await send(h, "/qa/splits"))).toEqual([
      { name: "train", type: "train" },
      { name: "test", type: "test" },
    ]);
    expect(await jsonOf(await send(h, "/indexed/splits"))).toEqual([{ name: "huge", type: "train" }]);
  });

  it("answers 404 for an unknown environment, naming it and the hosted ones", async () => {
    const h = makeHandler();
    await expectError(send(h, "/nope/tools"), 404, /Unknown environment "nope".*qa, slowsetup/);
    await expectError(send(h, "/nope/call", { body: { name: "x", input: {} }, sid: "s" }), 404, /nope/);
  });

  it("matches environment names case-insensitively, like the reference", async () => {
    const h = makeHandler();
    expect((await send(h, "/QA/splits")).status).toBe(200);
  });
});

describe("tasks", () => {
  it("lists tasks, counts them, and gets one by index", async () => {
    const h = makeHandler();
    expect(await jsonOf(await send(h, "/qa/tasks", { body: { split: "test" } }))).toEqual({
      tasks: tasks.test,
      env_name: "qa",
    });
    expect(await jsonOf(await send(h, "/qa/num_tasks", { body: { split: "train" } }))).toEqual({
      num_tasks: 10,
    });
    expect(await jsonOf(await send(h, "/qa/task", { body: { split: "train", index: 3 } }))).toEqual({
      task: tasks.train![3],
      env_name: "qa",
    });
    expect(await jsonOf(await send(h, "/indexed/num_tasks", { body: { split: "huge" } }))).toEqual({
      num_tasks: 100_000,
    });
    expect(await jsonOf(await send(h, "/indexed/task", { body: { split: "huge", index: 99_999 } }))).toEqual({
      task: { i: 99_999 },
      env_name: "indexed",
    });
  });

  it("follows Python slice semantics in task_range", async () => {
    const h = makeHandler();
    const range = async (body: object) =>
      (
        (await jsonOf(await send(h, "/qa/task_range", { body: { split: "train", ...body } }))) as {
          tasks: unknown[];
        }
      ).tasks;
    expect(await range({})).toEqual(tasks.train);
    expect(await range({ start: 2, stop: 4 })).toEqual(tasks.train!.slice(2, 4));
    expect(await range({ start: -3 })).toEqual(tasks.train!.slice(-3));
    expect(await range({ start: 1, stop: -8 })).toEqual(tasks.train!.slice(1, -8));
    expect(await range({ start: 8, stop: 2 })).toEqual([]);
    expect(await range({ start: -100, stop: 100 })).toEqual(tasks.train);
    expect(await range({ start: null, stop: null })).toEqual(tasks.train);
    const big = (await jsonOf(
      await send(h, "/indexed/task_range", { body: { split: "huge", start: -2 } }),
    )) as { tasks: unknown[] };
    expect(big).toEqual({ tasks: [{ i: 99_998 }, { i: 99_999 }], env_name: "indexed" });
  });

  it("answers 400 naming the field for invalid splits, indices, types and bodies", async () => {
    const h = makeHandler();
    await expectError(
      send(h, "/qa/tasks", { body: { split: "dev" } }),
      400,
      /Invalid split "dev".*train, test/,
    );
    await expectError(send(h, "/qa/num_tasks", { body: { split: "dev" } }), 400, /Invalid split/);
    await expectError(send(h, "/qa/task_range", { body: { split: "dev" } }), 400, /Invalid split/);
    await expectError(
      send(h, "/qa/task", { body: { split: "train", index: -1 } }),
      400,
      /index: must be 0 or more/,
    );
    await expectError(
      send(h, "/qa/task", { body: { split: "train", index: 10 } }),
      400,
      /Invalid index 10.*10 tasks/,
    );
    await expectError(send(h, "/qa/task", { body: { split: "train", index: 1.5 } }), 400, /^index: /);
    await expectError(send(h, "/qa/task", { body: { split: "train" } }), 400, /^index: /);
    await expectError(send(h, "/qa/tasks", { body: { split: 3 } }), 400, /^split: .*string/);
    await expectError(send(h, "/qa/tasks", { body: { split: "train", extra: 1 } }), 400, /extra/);
    await expectError(send(h, "/qa/task_range", { body: { split: "train", start: "0" } }), 400, /^start: /);
    await expectError(
      send(h, "/qa/tasks", { rawBody: "{not json", method: "POST" }),
      400,
      /^body: malformed JSON/,
    );
    await expectError(
      send(h, "/qa/tasks", { rawBody: "", method: "POST" }),
      400,
      /^body: expected a JSON object/,
    );
    await expectError(
      send(h, "/qa/tasks", { rawBody: "[1]", method: "POST" }),
      400,
      /^body: expected a JSON object/,
    );
  });
});

describe("routing", () => {
  it("answers 405 with Allow for a wrong method, 404 for unknown paths", async () => {
    const h = makeHandler();
    const r = await send(h, "/health", { method: "POST" });
    expect(r.status).toBe(405);
    expect(r.headers.get("allow")).toBe("GET");
    expect(await r.json()).toEqual({ detail: "Method POST not allowed on /health: use GET" });
    await expectError(send(h, "/qa/call"), 405, /use POST/);
    await expectError(send(h, "/create", { method: "DELETE" }), 405, /use POST/);
    await expectError(send(h, "/"), 404, /not an ORS endpoint/);
    await expectError(send(h, "/qa/unknown"), 404, /"\/qa\/unknown" is not an ORS endpoint/);
    await expectError(send(h, "/a/b/c"), 404, /not an ORS endpoint/);
  });

  it("answers a generic 500 for an unexpected error and logs it without the detail leaking", async () => {
    const logged: string[] = [];
    const h = makeHandler({ log: (m, e) => logged.push(`${m} ${String(e)}`) });
    const r = await send(h, "/throwsinlist/tasks", { body: { split: "train" } });
    expect(r.status).toBe(500);
    expect(await r.json()).toEqual({ detail: "Internal server error" });
    expect(logged.join("\n")).toMatch(/throwsinlist\/tasks/);
    // The host still answers afterwards.
    expect((await send(h, "/health")).status).toBe(200);
  });
});
