// ORS → MCP in process: the playground's MCP bridge (what /api/servers/<name>/mcp serves) on a
// loopback port, played by the official SDK's Client over Streamable HTTP. Whole math episodes, one
// after another in one MCP session, recorded through the relay and tagged with the client's
// clientInfo; tools that change with the episode (list_changed); progress from the ORS pings;
// cancellation; ORS errors and bad arguments as tool errors naming the field.
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { type CallToolResult, ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createMcpHttpHandler } from "@/lib/mcp/http";
import { createOrsClient } from "@/lib/ors/client";
import { createOrsHandler } from "@/lib/ors/host";
import { defineEnvironment, defineTool, text } from "@/lib/ors/sdk";
import { handlerFetch } from "../relay/helpers";
import { type TestPlayground, testPlayground } from "../runs/helpers";
import { waitUntil } from "../support/wait";
import { CLIENT_INFO, call, httpClient, playMath, serveGateway, textOf } from "./helpers";

let t: TestPlayground;
let gateway: Awaited<ReturnType<typeof serveGateway>>;
const clients: Client[] = [];

beforeAll(async () => {
  t = testPlayground({ ORS_PING_INTERVAL_MS: "150" });
  await t.pg.ready;
  gateway = await serveGateway(t.pg.mcp);
});
afterAll(async () => {
  for (const c of clients) await c.close().catch(() => {});
  await gateway.close();
  await t.close();
});

async function connect(server = "local"): Promise<Client> {
  const c = await httpClient(gateway.url(server));
  clients.push(c);
  return c;
}

describe("the MCP bridge over Streamable HTTP, played by the SDK's Client", () => {
  it("plays several math episodes in one MCP session; each is recorded, tagged with the client", async () => {
    const client = await connect();
    const tools = (await client.listTools()).tools.map((x) => x.name);
    // Several environments and no --env: the environment's tools come with an episode.
    expect(tools).toEqual(["list_tasks", "start_episode", "end_episode"]);
    const tasks = await call(client, "list_tasks", { env: "math", split: "train", offset: 2, limit: 3 });
    expect(tasks.structuredContent).toMatchObject({ env: "math", split: "train", total: 800 });
    expect((tasks.structuredContent!.tasks as { index: number }[]).map((x) => x.index)).toEqual([2, 3, 4]);
    expect(textOf(tasks)).toMatch(/^math\/train: tasks 2–4 of 800\n2: \{"question"/);

    for (const index of [0, 1, 2]) {
      const r = await playMath(client, index);
      expect(r.isError).toBeFalsy();
      expect(r.structuredContent).toEqual({ reward: 1, finished: true, total_reward: 1, metadata: null });
      expect(textOf(r)).toBe("Correct!\nreward 1 · finished");
    }
    const ended = await call(client, "end_episode");
    expect(ended.structuredContent).toEqual({ finished: true, total_reward: 1, steps: 1 });

    await t.pg.recorder.idle();
    const list = await t.pg.store.list({ env: "math", sort: "started_at", order: "asc" });
    const mine = list.items.filter((x) => x.client?.name === CLIENT_INFO.name);
    expect(mine.map((x) => [x.task_label, x.end_reason, x.total_reward])).toEqual([
      ["train/0", "finished", 1],
      ["train/1", "finished", 1],
      ["train/2", "finished", 1],
    ]);
    const first = await t.pg.store.get(mine[0]!.id);
    expect(first).toMatchObject({
      server: "local",
      client: CLIENT_INFO,
      steps: [{ tool: "submit", reward: 1 }],
    });
    // Every session was deleted: nothing is left running.
    await waitUntil("no episode running", async () => (await t.pg.store.running()).length === 0);
  });

  it("gives a prompt's and a result's images as MCP image content, and the metadata in structuredContent", async () => {
    const client = await connect();
    const started = await call(client, "start_episode", { env: "paint", split: "train", index: 0 });
    expect(started.content.map((c) => [c.type, c.mimeType ?? null])).toEqual([
      ["text", null],
      ["image", "image/png"],
      ["text", null],
    ]);
    expect(Buffer.from(started.content[1]!.data!, "base64").subarray(1, 4).toString()).toBe("PNG");
    const shape = /a \w+ (circle|square|triangle)/.exec(textOf(started))![1]!;
    const drawn = await call(client, "draw", { shape, color: "#ff0000", size: 32 });
    expect(drawn.content.map((c) => c.type)).toEqual(["image", "text", "text"]);
    expect(drawn.structuredContent).toMatchObject({
      reward: 1,
      finished: true,
      metadata: { shape, color: "#ff0000", size: 32 },
    });
    await call(client, "end_episode");
  });

  it("refuses a call after finished, saying the episode is over; end_episode without one is an error", async () => {
    const client = await connect();
    await playMath(client, 5);
    const again = await call(client, "submit", { answer: "1" });
    expect(again.isError).toBe(true);
    expect(textOf(again)).toMatch(/^The episode is over \(finished, total reward 1\)/);
    await call(client, "end_episode");
    const none = await call(client, "end_episode");
    expect(none).toMatchObject({ isError: true });
    expect(textOf(none)).toMatch(/No episode is running/);
    const orphan = await call(client, "submit", { answer: "1" });
    expect(textOf(orphan)).toMatch(/No episode is running: call start_episode first/);
  });

  it("lists task-specific tools after start_episode and says so with notifications/tools/list_changed", async () => {
    const client = await connect();
    const changed: number[] = [];
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      changed.push(Date.now());
    });
    await client.listTools();
    const started = await call(client, "start_episode", { env: "tasktools", split: "train", index: 0 });
    expect(textOf(started)).toMatch(/You are locked in room 1/);
    await waitUntil("list_changed", () => changed.length === 1);
    const names = (await client.listTools()).tools.map((x) => x.name);
    expect(names).toEqual(["list_tasks", "start_episode", "end_episode", "look", "open_door_red", "lookup"]);
    const tools = (await client.listTools()).tools;
    expect(tools.find((x) => x.name === "open_door_red")).toMatchObject({
      inputSchema: { type: "object", properties: { code: { type: "string" } }, required: ["code"] },
      outputSchema: { required: ["reward", "finished", "total_reward"] },
    });
    const code = textOf(await call(client, "lookup")).match(/code book says: (\d+)/)![1]!;
    const opened = await call(client, "open_door_red", { code });
    expect(opened.structuredContent).toMatchObject({ reward: 1, finished: true, total_reward: 1 });
    await call(client, "end_episode");
    await waitUntil("list_changed again", () => changed.length === 2);
    expect((await client.listTools()).tools.map((x) => x.name)).toEqual([
      "list_tasks",
      "start_episode",
      "end_episode",
    ]);
  });

  it("answers ORS errors and arguments that break a schema as tool errors naming the field", async () => {
    const client = await connect();
    const noEnv = await call(client, "list_tasks", {});
    expect(textOf(noEnv)).toMatch(/^give env: the server local has \d+ environments: math, /);
    const badIndex = await call(client, "start_episode", { env: "math", split: "train", index: -1 });
    expect(badIndex.isError).toBe(true);
    expect(textOf(badIndex)).toMatch(/^Invalid arguments for start_episode: index: /);
    const both = await call(client, "start_episode", { env: "math", index: 1, task_spec: { question: "?" } });
    expect(textOf(both)).toMatch(/index: give either index \(with split\) or task_spec/);
    const unknownField = await call(client, "list_tasks", { env: "math", split: "train", limit: 1000 });
    expect(textOf(unknownField)).toMatch(/^Invalid arguments for list_tasks: limit: /);
    const outOfRange = await call(client, "start_episode", { env: "math", split: "train", index: 5000 });
    expect(outOfRange.isError).toBe(true);
    expect(textOf(outOfRange)).toMatch(/\/create: Invalid index 5000: split "train" has 800 tasks/);
    // The episode's own tool, with an answer of the wrong type: the server's message names the field.
    await call(client, "start_episode", { env: "math", split: "test", index: 0 });
    const wrongType = await call(client, "submit", { answer: 42 });
    expect(wrongType.isError).toBe(true);
    expect(textOf(wrongType)).toMatch(/answer: .*expected string/i);
    const unknown = await call(client, "nope");
    expect(textOf(unknown)).toMatch(/^Unknown tool "nope": the episode's tools are submit/);
    // A task given in full.
    const spec = await call(client, "start_episode", {
      env: "math",
      task_spec: { question: "1+1?", answer: "2" },
    });
    expect(textOf(spec)).toMatch(
      /^1\+1\?\n\(The previous episode, math\/test #0, was ended first\.\) Episode started/,
    );
    expect((await call(client, "submit", { answer: "2" })).structuredContent).toMatchObject({ reward: 1 });
    await call(client, "end_episode");
  });

  it("sends the ORS pings as progress and cancels the ORS call when the MCP client cancels", async () => {
    // A bridge of its own, whose ORS client says when a call's request is aborted.
    const aborted: string[] = [];
    const mcp = createMcpHttpHandler({
      open: (server) => ({
        server,
        client: (headers) =>
          t.pg.clientFor(server, {
            headers,
            wrapFetch: (f) => async (input, init) => {
              const url = String(input instanceof Request ? input.url : input);
              init?.signal?.addEventListener("abort", () => aborted.push(new URL(url).pathname));
              return f(input, init);
            },
          }),
      }),
    });
    const own = await serveGateway(mcp);
    const client = await httpClient(own.url("local"));
    try {
      await call(client, "start_episode", { env: "slow", split: "train", index: 0 });
      const progress: number[] = [];
      const done = await client.callTool({ name: "wait", arguments: { seconds: 0.8 } }, undefined, {
        onprogress: (p) => {
          progress.push(p.progress);
        },
      });
      expect(textOf(done as CallToolResult as never)).toMatch(/^Waited 0\.\d s\.\nreward 0/);
      expect(progress.length).toBeGreaterThanOrEqual(2);
      expect(progress).toEqual([...progress].sort((a, b) => a - b));

      const stop = new AbortController();
      const cancelled = client.callTool({ name: "wait", arguments: { seconds: 30 } }, undefined, {
        signal: stop.signal,
        onprogress: () => stop.abort(new Error("enough")),
      });
      await expect(cancelled).rejects.toThrow(/enough/);
      await waitUntil("the ORS call aborted", () => aborted.includes("/api/servers/local/slow/call"));
      // The session goes on.
      const fast = await call(client, "fast", { finish: true });
      expect(fast.structuredContent).toMatchObject({ reward: 1, finished: true });
    } finally {
      await client.close();
      await own.close();
      await mcp.close();
    }
  });
});

describe("the bridge's own tools beside an environment's of the same names", () => {
  it("are prefixed ors_ then, and only then; the environment's tools keep their names", async () => {
    const clash = defineEnvironment({
      name: "clash",
      splits: ["train"],
      listTasks: () => [{ n: 1 }],
      getPrompt: () => "Two tools share the bridge's names.",
      tools: {
        start_episode: defineTool({
          description: "The environment's own",
          run: () => ({ blocks: [text("own start")] }),
        }),
        list_tasks: defineTool({
          description: "Also its own",
          run: () => ({ blocks: [text("own list")], reward: 1, finished: true }),
        }),
      },
    });
    const host = createOrsHandler([clash]);
    const mcp = createMcpHttpHandler({
      open: (server) => ({
        server,
        env: "clash",
        client: (headers) =>
          createOrsClient({ baseUrl: "http://host.invalid", fetch: handlerFetch(host), headers }),
      }),
    });
    const own = await serveGateway(mcp);
    const client = await httpClient(own.url("clash-host"));
    try {
      // With --env, the environment's tools are listed from the start.
      expect((await client.listTools()).tools.map((x) => x.name)).toEqual([
        "ors_list_tasks",
        "ors_start_episode",
        "end_episode",
        "start_episode",
        "list_tasks",
      ]);
      const started = await call(client, "ors_start_episode", { split: "train", index: 0 });
      expect(textOf(started)).toMatch(
        /^Two tools share the bridge's names\.\nEpisode started: clash\/train #0/,
      );
      expect(textOf(await call(client, "start_episode"))).toBe("own start\nno reward");
      const listed = await call(client, "list_tasks");
      expect(listed.structuredContent).toMatchObject({ reward: 1, finished: true, total_reward: 1 });
      expect((await call(client, "ors_list_tasks", { split: "train" })).structuredContent).toMatchObject({
        total: 1,
      });
      const other = await call(client, "ors_start_episode", { env: "math", split: "train", index: 0 });
      expect(textOf(other)).toBe('this bridge serves the environment clash only, not "math"');
    } finally {
      await client.close();
      await own.close();
      await mcp.close();
      await host.close();
    }
  });
});

describe("the bridge's HTTP endpoint", () => {
  const post = (url: string, body: string, headers: Record<string, string> = {}) =>
    fetch(url, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        ...headers,
      },
      body,
    });
  const init = JSON.stringify({
    jsonrpc: "2.0",
    id: 1,
    method: "initialize",
    params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } },
  });

  it("answers an unknown server, an unknown session and a malformed message with the SDK's errors", async () => {
    const unknown = await post(gateway.url("nope"), init);
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toMatchObject({ error: { message: 'unknown server "nope"' } });
    const session = await post(gateway.url("local"), init, { "mcp-session-id": "not-a-session" });
    expect(session.status).toBe(404);
    expect(await session.json()).toMatchObject({ error: { code: -32000, message: "Session not found" } });
    const garbage = await post(gateway.url("local"), "{not json");
    expect(garbage.status).toBe(400);
    expect(await garbage.json()).toMatchObject({ jsonrpc: "2.0", error: { code: -32700 } });
    const held = t.pg.mcp.sessions;
    const notInit = await post(
      gateway.url("local"),
      JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/list" }),
    );
    expect(notInit.status).toBe(400);
    // Nothing is kept for a request that opened no session.
    expect(t.pg.mcp.sessions).toBe(held);
    const put = await fetch(gateway.url("local"), { method: "PUT" });
    expect(put.status).toBe(405);
    // And the endpoint still serves.
    const client = await connect();
    expect((await client.listTools()).tools.length).toBe(3);
  });

  it("holds at most its maximum of sessions, closes idle ones and ends their episodes", async () => {
    const mcp = createMcpHttpHandler({
      open: (server) => ({ server, client: (headers) => t.pg.clientFor(server, { headers }) }),
      maxSessions: 1,
      idleMs: 60_000,
      sweepEveryMs: 0,
    });
    const own = await serveGateway(mcp);
    try {
      const first = await httpClient(own.url("local"));
      await call(first, "start_episode", { env: "math", split: "train", index: 9 });
      await expect(httpClient(own.url("local"))).rejects.toThrow(/429|Too many MCP sessions/);
      await t.pg.recorder.idle();
      const sid = (await t.pg.store.running()).find((x) => x.task_label === "train/9")?.sid;
      expect(sid).toBeTruthy();
      await mcp.sweep(Date.now() + 61_000);
      expect(mcp.sessions).toBe(0);
      await waitUntil(
        "the idle session's episode ended",
        async () => (await t.pg.store.findBySession("local", sid!))?.end_reason === "user_closed",
      );
      const second = await httpClient(own.url("local"));
      expect((await second.listTools()).tools.length).toBe(3);
      await second.close();
      await first.close().catch(() => {});
    } finally {
      await own.close();
      await mcp.close();
    }
  });
});
