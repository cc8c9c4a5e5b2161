// MCP → ORS in process: defineMcpEnvironment on the fixture MCP server (tests/fixtures/mcp-server,
// a real child process per session, or a real HTTP server), hosted by our ORS host. The server's
// tools as ORS tools, MCP content as blocks, secrets as variables (never logged), the child ended at
// /delete and on idle expiry, a child killed mid-call, a hung call, and a run with the random policy.

import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { staticEnvironmentSource } from "@/lib/environments/source";
import { defineMcpEnvironment, type McpEnvironmentDefinition } from "@/lib/mcp/environment";
import { createOrsClient, type OrsClient } from "@/lib/ors/client";
import { createOrsHandler, type OrsHandler, type OrsHostOptions } from "@/lib/ors/host";
import type { AnyEnvironment } from "@/lib/ors/sdk";
import { defineTool, text } from "@/lib/ors/sdk";
import { createPlayground } from "@/lib/playground";
import { lineMatch } from "../relay/helpers";
import { tempDir } from "../runs/helpers";
import { waitUntil } from "../support/wait";
import { alive, FIXTURE_SERVER, FIXTURE_TOOLS } from "./helpers";

type Sum = { a: number; b: number };
const SECRET = "s3cret-value-never-logged";

function definition(o: Partial<McpEnvironmentDefinition<Sum>> = {}): McpEnvironmentDefinition<Sum> {
  return {
    name: "adder",
    server: { command: process.execPath, args: [FIXTURE_SERVER] },
    secrets: { token: "FIXTURE_TOKEN" },
    splits: {
      train: [
        { a: 2, b: 3 },
        { a: 4, b: 5 },
      ],
    },
    prompt: (task) => `What is ${task.a} + ${task.b}?`,
    reward: (task, calls) => (calls.at(-1)?.text === String(task.a + task.b) ? 1 : 0),
    finished: (_task, calls) => calls.filter((c) => c.tool === "add").length >= 2,
    tools: {
      submit: defineTool({ description: "Submit", run: () => ({ blocks: [text("ok")], finished: true }) }),
    },
    toolTimeoutMs: 10_000,
    ...o,
  };
}

/** The fixture servers this process runs now (children of this process, zombies included). */
function fixtureChildren(): { pid: number; state: string }[] {
  const out: { pid: number; state: string }[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const [state, ppid] = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      if (Number(ppid) !== process.pid) continue;
      const cmd = readFileSync(`/proc/${entry}/cmdline`, "utf8");
      if (cmd.includes(FIXTURE_SERVER)) out.push({ pid: Number(entry), state: state! });
    } catch {
      // gone meanwhile
    }
  }
  return out;
}

const logs: string[] = [];
let env: AnyEnvironment;
const hosts: OrsHandler[] = [];

function hostOf(e: AnyEnvironment, o: Partial<OrsHostOptions> = {}): OrsClient {
  const host = createOrsHandler([e], {
    pingIntervalMs: 200,
    log: (m, err) => logs.push(`${m} ${String(err ?? "")}`),
    ...o,
  });
  hosts.push(host);
  return createOrsClient({ baseUrl: "http://host.invalid", fetch: (i, init) => host(new Request(i, init)) });
}

async function session(ors: OrsClient, index = 0, secrets?: Record<string, string>): Promise<string> {
  const { sid } = await ors.createSession();
  await ors.create(sid, { env_name: "adder", split: "train", index, ...(secrets ? { secrets } : {}) });
  return sid;
}

async function pidOf(ors: OrsClient, sid: string): Promise<number> {
  const out = await ors.callTool("adder", sid, { name: "whoami", input: {} });
  if (!out.ok) throw new Error(out.error);
  return (JSON.parse((out.output.blocks[0] as { text: string }).text) as { pid: number }).pid;
}

beforeAll(async () => {
  env = await defineMcpEnvironment(definition());
});
afterEach(() => {
  for (const l of logs) expect(l).not.toContain(SECRET);
});
afterAll(async () => {
  for (const h of hosts) await h.close();
  await waitUntil("no fixture server left", () => fixtureChildren().length === 0, 15_000);
});

describe("defineMcpEnvironment", () => {
  it("serves the MCP server's tools as ORS tools beside the extra ones; the probe's child is gone", async () => {
    const ors = hostOf(env);
    const tools = (await ors.tools("adder")).tools;
    expect(tools.map((t) => t.name)).toEqual([...FIXTURE_TOOLS, "submit"]);
    expect(tools[0]).toMatchObject({
      description: "Adds two numbers",
      input_schema: {
        type: "object",
        properties: { a: { type: "number" }, b: { type: "number" } },
        required: ["a", "b"],
      },
    });
    expect(fixtureChildren()).toEqual([]);
  });

  it("plays an episode: MCP content as blocks, the module's reward and finished; /delete ends the child", async () => {
    const ors = hostOf(env);
    const sid = await session(ors);
    expect(await ors.prompt("adder", sid)).toEqual([{ type: "text", text: "What is 2 + 3?", detail: null }]);
    const pid = await pidOf(ors, sid);
    expect(alive(pid)).toBe(true);
    const call = (name: string, input: Record<string, unknown> = {}) =>
      ors.callTool("adder", sid, { name, input });
    expect(await call("add", { a: 2, b: 3 })).toEqual({
      ok: true,
      output: {
        blocks: [{ type: "text", text: "5", detail: null }],
        reward: 1,
        finished: false,
        metadata: null,
      },
    });
    expect(await call("picture")).toMatchObject({
      ok: true,
      output: {
        blocks: [
          { type: "image", mimeType: "image/png" },
          { type: "text", text: "a red pixel" },
        ],
      },
    });
    expect(await call("resource")).toMatchObject({
      ok: true,
      output: {
        blocks: [
          { type: "text", text: "[resource file:///notes.txt (text/plain)]\nthe notes" },
          { type: "text", text: "[resource_link] other — file:///other.txt" },
        ],
        metadata: { files: 2 },
      },
    });
    expect(await call("fail")).toEqual({ ok: false, error: "the fixture's tool failed on purpose" });
    expect(await call("add", { a: "two" })).toMatchObject({
      ok: false,
      error: expect.stringMatching(/^Invalid input: b: required; a: must be number$/),
    });
    expect(await call("add", { a: 1, b: 1 })).toMatchObject({
      ok: true,
      output: { reward: 0, finished: true },
    });
    await ors.delete(sid);
    await waitUntil("the child gone after /delete", () => !alive(pid), 15_000);
  });

  it("gives the secrets to the server as the variables the module names, never logs them; the session's own tools are its task tools", async () => {
    const ors = hostOf(env);
    const sid = await session(ors, 1, { token: SECRET, other: "not-for-the-server" });
    const hash = async (name: string) => {
      const out = await ors.callTool("adder", sid, { name: "secret_hash", input: { name } });
      return out.ok ? (out.output.blocks[0] as { text: string }).text : out.error;
    };
    expect(await hash("FIXTURE_TOKEN")).toBe(createHash("sha256").update(SECRET).digest("hex"));
    expect(await hash("other")).toBe("unset");
    expect(await hash("token")).toBe("unset");
    // The fixture lists private_echo only with FIXTURE_TOKEN: this session's task tool, not a shared one.
    expect((await ors.taskTools("adder", sid)).tools.map((t) => t.name)).toContain("private_echo");
    expect((await ors.tools("adder")).tools.map((t) => t.name)).not.toContain("private_echo");
    expect(await ors.callTool("adder", sid, { name: "private_echo", input: { say: "hi" } })).toMatchObject({
      ok: true,
      output: { blocks: [{ text: "hi" }] },
    });
    await ors.delete(sid);
  });

  it("fails the call of a server killed mid-call, at once and clearly, and every call after; no process is left", async () => {
    const ors = hostOf(env);
    const sid = await session(ors);
    const pid = await pidOf(ors, sid);
    const started = Date.now();
    const sleeping = ors.callTool("adder", sid, { name: "sleep", input: { ms: 60_000 } });
    await new Promise((r) => setTimeout(r, 300));
    process.kill(pid, "SIGKILL");
    const out = await sleeping;
    expect(Date.now() - started).toBeLessThan(20_000);
    expect(out).toEqual({
      ok: false,
      error: expect.stringMatching(
        /^sleep did not finish: the MCP server of adder \(.*server\.mjs\) ended the connection: it exited or was stopped \(its stderr ends: fixture MCP server \d+ ready\)$/,
      ),
    });
    const after = await ors.callTool("adder", sid, { name: "add", input: { a: 1, b: 2 } });
    expect(after).toMatchObject({
      ok: false,
      error: expect.stringMatching(/ended the connection: it exited or was stopped/),
    });
    await ors.delete(sid);
    await waitUntil("the killed child reaped", () => fixtureChildren().every((c) => c.pid !== pid));
  });

  it("ends a hung call at the tool time limit, the module's or the host's, and the session goes on", async () => {
    const quick = await defineMcpEnvironment(definition({ toolTimeoutMs: 400 }));
    const ors = hostOf(quick);
    const sid = await session(ors);
    expect(await ors.callTool("adder", sid, { name: "sleep", input: { ms: 30_000 } })).toEqual({
      ok: false,
      error: expect.stringMatching(
        /^the MCP server of adder \(.*\) did not answer sleep within 0\.4 s \(toolTimeoutMs\)$/,
      ),
    });
    expect(await ors.callTool("adder", sid, { name: "add", input: { a: 2, b: 3 } })).toMatchObject({
      ok: true,
    });
    const hostLimited = hostOf(env, { callTimeoutMs: 300 });
    const sid2 = await session(hostLimited);
    await expect(
      hostLimited.callTool("adder", sid2, { name: "sleep", input: { ms: 30_000 } }),
    ).rejects.toThrow(/Tool call "sleep" exceeded the time limit of 300 ms \(ORS_CALL_TIMEOUT_MS\)/);
    expect(await hostLimited.callTool("adder", sid2, { name: "add", input: { a: 2, b: 3 } })).toMatchObject({
      ok: true,
    });
    await ors.delete(sid);
    await hostLimited.delete(sid2);
  });

  it("ends the child when the session expires idle", async () => {
    const ors = hostOf(env, { idleTimeoutMs: 500, sweepIntervalMs: 100 });
    const sid = await session(ors);
    const pid = await pidOf(ors, sid);
    await waitUntil("the idle session's child gone", () => !alive(pid), 15_000);
    await expect(ors.ping(sid)).rejects.toThrow(/expired/);
  });

  it("says why a server cannot start: at definition, and in a session's setup", async () => {
    await expect(
      defineMcpEnvironment(definition({ name: "broken", server: { command: "/nonexistent/mcp-server" } })),
    ).rejects.toThrow(/^could not start the MCP server of broken \(\/nonexistent\/mcp-server\): .*ENOENT/);
    await expect(defineMcpEnvironment(definition({ server: {} as never }))).rejects.toThrow(
      /server must be \{ command, args, env \} or \{ url \}/,
    );
    await expect(
      defineMcpEnvironment(
        definition({ tools: { add: defineTool({ description: "x", run: () => ({ blocks: [] }) }) } }),
      ),
    ).rejects.toThrow(/the extra tool "add" has the name of a tool of/);
  });

  it("opens a Streamable HTTP server's session instead of a child", async () => {
    const child = spawn(process.execPath, [FIXTURE_SERVER, "--http"], { stdio: ["ignore", "pipe", "pipe"] });
    try {
      const url = await lineMatch(child, /listening on (http:\/\/\S+)/, 30_000, () => "");
      const remote = await defineMcpEnvironment(definition({ name: "remote", server: { url } }));
      const host = createOrsHandler([remote]);
      hosts.push(host);
      const ors = createOrsClient({
        baseUrl: "http://host.invalid",
        fetch: (i, init) => host(new Request(i, init)),
      });
      const { sid } = await ors.createSession();
      await ors.create(sid, { env_name: "remote", split: "train", index: 1 });
      expect(await ors.callTool("remote", sid, { name: "add", input: { a: 4, b: 5 } })).toMatchObject({
        ok: true,
        output: { blocks: [{ text: "9" }], reward: 1 },
      });
      await ors.delete(sid);
    } finally {
      child.kill();
    }
  });

  it("plays a run with the random policy; every episode ends, every child with it", async () => {
    const quick = await defineMcpEnvironment(definition({ toolTimeoutMs: 500 }));
    const before = new Set(fixtureChildren().map((c) => c.pid));
    const dir = tempDir("mcp-run-");
    const pg = createPlayground(
      { PLAYGROUND_DATA_DIR: dir },
      { environments: staticEnvironmentSource([quick]) },
    );
    try {
      await pg.ready;
      const run = await pg.runs.start({
        server: "local",
        env: "adder",
        split: "train",
        repeats: 2,
        concurrency: 2,
        policy: { kind: "random", seed: 7, maxTurns: 4 },
      });
      const ended = await pg.runs.settled(run.id);
      expect(ended?.status).toBe("done");
      const episodes = await pg.store.runEpisodes(run.id);
      expect(episodes.map((e) => e.status)).toEqual(["done", "done", "done", "done"]);
      const trajectories = await pg.store.list({ run: run.id });
      expect(trajectories.items.length).toBe(4);
      expect(trajectories.items.every((t) => t.num_steps > 0 && t.end_reason !== null)).toBe(true);
      await waitUntil(
        "every episode's child gone",
        () => fixtureChildren().every((c) => before.has(c.pid)),
        15_000,
      );
    } finally {
      await pg.close();
    }
  });
});
