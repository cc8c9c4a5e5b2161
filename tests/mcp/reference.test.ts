// ORS → MCP against the reference-shaped server (a Python-style ORS server: SSE /create_session,
// Pydantic schemas, results cut every 4096 characters wherever the cut falls), through the
// playground's relay as `py`: its task-specific tool appears after start_episode (list_changed), a
// result over 100 KB reaches the MCP client whole, Python-float rewards read as numbers, and the
// episode is recorded, tagged with the client.
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningReferenceServer, startReferenceServer } from "../fixtures/reference-server/spawn";
import { type TestPlayground, testPlayground } from "../runs/helpers";
import { waitUntil } from "../support/wait";
import { CLIENT_INFO, call, httpClient, serveGateway, textOf } from "./helpers";

let ref: RunningReferenceServer;
let t: TestPlayground;
let gateway: Awaited<ReturnType<typeof serveGateway>>;
let client: Client;

beforeAll(async () => {
  ref = await startReferenceServer({ envs: ["archive", "farmplanner"], pingMs: 300 });
  t = testPlayground({ ORS_SERVERS: `py=${ref.url}` });
  await t.pg.ready;
  gateway = await serveGateway(t.pg.mcp);
  client = await httpClient(gateway.url("py"));
}, 60_000);
afterAll(async () => {
  await client?.close();
  await gateway?.close();
  await t?.close();
  await ref?.stop();
});

describe("the MCP bridge on the reference-shaped server", () => {
  it("shows a task-specific tool after start_episode, a result over 100 KB whole, and records the episode", async () => {
    let changed = 0;
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      changed++;
    });
    const tasks = await call(client, "list_tasks", { env: "archive", split: "train" });
    expect(tasks.structuredContent).toMatchObject({ total: 2, tasks: [{ index: 0 }, { index: 1 }] });
    const started = await call(client, "start_episode", { env: "archive", split: "train", index: 0 });
    expect(textOf(started)).toMatch(/^Find the blue box in the archive's catalogue/);
    expect(started.structuredContent).toMatchObject({ env: "archive", tools: ["catalogue", "open_box"] });
    await waitUntil("list_changed", () => changed === 1);
    const tools = (await client.listTools()).tools;
    expect(tools.map((x) => x.name)).toEqual([
      "list_tasks",
      "start_episode",
      "end_episode",
      "catalogue",
      "open_box",
    ]);
    // The Pydantic schema as the server wrote it; no input at all is an empty object schema.
    expect(tools.find((x) => x.name === "open_box")?.inputSchema).toEqual({
      properties: { key: { description: "The key, e.g. k-17", title: "Key", type: "string" } },
      required: ["key"],
      title: "OpenBoxInput",
      type: "object",
    });
    expect(tools.find((x) => x.name === "catalogue")?.inputSchema).toEqual({
      type: "object",
      properties: {},
    });

    const catalogue = await call(client, "catalogue");
    const text = textOf(catalogue);
    expect(text.length).toBeGreaterThan(100_000);
    expect(text.split("\n").filter((l) => l.startsWith("shelf "))).toHaveLength(2400);
    const key = /the blue box \(key (k-\d+)\)/.exec(text)![1]!;
    expect(catalogue.structuredContent).toMatchObject({ reward: null, finished: false, total_reward: 0 });

    const wrong = await call(client, "open_box", { key: "k-0" });
    expect(wrong.structuredContent).toMatchObject({ reward: 0, finished: false });
    const badInput = await call(client, "open_box", {});
    expect(badInput.isError).toBe(true);
    expect(textOf(badInput)).toMatch(/'missing'.*'key'/);
    const opened = await call(client, "open_box", { key });
    expect(opened.structuredContent).toMatchObject({ reward: 1, finished: true, total_reward: 1 });
    expect(textOf(opened)).toBe("The box opens.\nreward 1 · finished");

    await call(client, "end_episode");
    await t.pg.recorder.idle();
    const [episode] = (await t.pg.store.list({ server: "py" })).items;
    expect(episode).toMatchObject({
      env: "archive",
      end_reason: "finished",
      total_reward: 1,
      client: CLIENT_INFO,
    });
    const recorded = await t.pg.store.get(episode!.id);
    expect(recorded?.steps.map((s) => s.tool)).toEqual(["catalogue", "open_box", "open_box", "open_box"]);
    expect((recorded!.steps[0]!.blocks[0] as { text: string }).text.length).toBeGreaterThan(100_000);
  });
});
