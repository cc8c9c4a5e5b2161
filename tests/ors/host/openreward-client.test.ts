// The OpenReward platform's client (its exact requests: tests/fixtures/openreward-client) plays
// whole episodes on our host without naming the environment in the path: bare paths with
// X-Deployment, an SSE /create_session before every discovery call, X-Secrets, env_name read from
// /tasks, /task and /task_range, its 30 s silence limit. On the standalone host (a real process,
// `serve --env` of a one-environment module and the built-ins) and on the in-process handler
// mounted at /api/ors (what the app's root rewrites reach). The app's server entry: e2e.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { builtinEnvironments } from "@/envs";
import { createOrsHandler, type OrsHandler } from "@/lib/ors/host";
import {
  createOpenRewardClient,
  SessionTerminatedError,
  ToolCallError,
} from "../../fixtures/openreward-client/client";
import { playSecret, solveMath } from "../../fixtures/openreward-client/episodes";
import {
  ClientResponseError,
  HeartbeatTimeoutError,
  SseErrorEvent,
} from "../../fixtures/openreward-client/http";
import { capitals, spacedText } from "../../fixtures/openreward-client/one-env";
import { spawnOrsServer } from "../../relay/helpers";

type Fetch = typeof fetch;

interface Mount {
  base: string;
  fetch?: Fetch;
  /** Paths the client sent (in-process mounts only). */
  paths: string[];
  sessions?: () => number;
  stop(): Promise<void>;
}

/** `serve` as a real process on a free loopback port. */
async function spawnServe(args: string[], env: Record<string, string> = {}): Promise<Mount> {
  const server = await spawnOrsServer(0, { ORS_API_KEYS: "", ...env }, args);
  return { base: server.url, paths: [], stop: server.stop };
}

/**
 * The in-process handler mounted at /api/ors, reached as the app's root rewrites reach it: the
 * client's root path (`/splits`) arrives as `/api/ors/splits`.
 */
function inProcess(handler: OrsHandler): Mount {
  const paths: string[] = [];
  const f: Fetch = async (input, init) => {
    const req = new Request(input, init);
    const url = new URL(req.url);
    paths.push(url.pathname);
    url.pathname = `/api/ors${url.pathname}`;
    return handler(new Request(url, req));
  };
  return {
    base: "http://app.test",
    fetch: f,
    paths,
    sessions: () => handler.host.sessionCount,
    stop: () => handler.close(),
  };
}

function client(m: Mount, o: { heartbeatMs?: number } = {}) {
  return createOpenRewardClient({ baseUrl: m.base, fetch: m.fetch, waitScale: 0.01, pingMs: 50, ...o });
}

const mounts: Record<string, Mount> = {};

beforeAll(async () => {
  const [one, builtins] = await Promise.all([
    spawnServe(["--env", "tests/fixtures/openreward-client/one-env.ts"]),
    spawnServe([], { ORS_PING_INTERVAL_MS: "100" }),
  ]);
  mounts.standaloneOne = one;
  mounts.standaloneBuiltins = builtins;
  mounts.inProcessOne = inProcess(createOrsHandler([capitals], { basePath: "/api/ors", log: () => {} }));
  mounts.inProcessBuiltins = inProcess(
    createOrsHandler(builtinEnvironments, { basePath: "/api/ors", pingIntervalMs: 100, log: () => {} }),
  );
});

afterAll(async () => {
  await Promise.all(Object.values(mounts).map((m) => m.stop()));
});

/** A whole episode on the one-environment module, the environment named nowhere in a path. */
async function capitalsEpisode(m: Mount, deployment: string) {
  const env = client(m).environments.get(deployment);
  expect(await env.listSplits()).toEqual(["train", "test"]);
  const tasks = await env.listTasks("train");
  expect(tasks.map((t) => [t.environmentName, t.taskSpec.country])).toEqual([
    ["capitals", "France"],
    ["capitals", "Japan"],
  ]);
  expect(await env.numTasks("train")).toBe(2);
  const japan = await env.getTask("train", 1);
  expect(japan).toMatchObject({ environmentName: "capitals", taskSpec: { capital: "Tokyo" } });
  expect((await env.getTaskRange("train", -1)).map((t) => t.environmentName)).toEqual(["capitals"]);
  expect((await env.listTools()).map((t) => t.name)).toEqual(["look", "token", "atlas", "answer"]);

  const session = await env.session({ task: japan }, { secrets: { MAP_TOKEN: "abcd" } }).open();
  try {
    expect(await session.getPrompt()).toEqual([
      { type: "text", text: "What is the capital of Japan?", detail: null },
    ]);
    expect((await session.listTools()).map((t) => t.name)).toEqual(["look", "token", "atlas", "answer"]);
    const look = await session.callTool("look");
    expect(look.blocks.map((b) => b.type)).toEqual(["text", "image"]);
    expect(look).toMatchObject({ reward: null, finished: false, metadata: null });
    expect((await session.callTool("token")).blocks[0]!.text).toBe("MAP_TOKEN length 4");
    // A 100 KB result in chunks, read as the client reads them (each piece lstrip()ped): whole.
    const atlas = await session.callTool("atlas", { size: 100_000 });
    expect(atlas.blocks[0]!.text).toBe(spacedText(100_000));
    await new Promise((r) => setTimeout(r, 120)); // pings go on meanwhile (every 50 ms here)
    expect(await session.callTool("answer", { city: "Tokyo" })).toMatchObject({ reward: 1, finished: true });
  } finally {
    await session.close();
  }
  const byIndex = await env.session({ split: "test", index: 0 }).open();
  try {
    expect((await byIndex.getPrompt())[0]!.text).toBe("What is the capital of Kenya?");
    expect(await byIndex.callTool("answer", { city: "Nairobi" })).toMatchObject({ reward: 1 });
    // A tool's own failure ({"ok": false}: input its schema refuses) is the client's ToolCallError;
    // an unknown tool is the spec's event: error, which it raises as a RuntimeError.
    await expect(byIndex.callTool("answer", { city: 7 })).rejects.toThrow(ToolCallError);
    await expect(byIndex.callTool("nope")).rejects.toThrow(SseErrorEvent);
    await expect(byIndex.callTool("nope")).rejects.toThrow(/^Unknown tool "nope"/);
  } finally {
    await byIndex.close();
  }
}

describe("the OpenReward client on a one-environment host", () => {
  for (const name of ["standaloneOne", "inProcessOne"]) {
    it(`plays whole episodes with bare paths (${name})`, async () => {
      const m = mounts[name]!;
      await capitalsEpisode(m, "capitals");
      // The spec's "redirected to it automatically": any deployment name reaches the only environment.
      await capitalsEpisode(m, "someone/capitals-server");
      if (m.sessions) expect(m.sessions()).toBe(0);
      if (m.fetch) {
        expect(m.paths.length).toBeGreaterThan(30);
        expect(m.paths.filter((p) => p.split("/").length > 2)).toEqual([]);
      }
    });
  }

  it("refuses the platform's toolset option with a detail naming it", async () => {
    const env = client(mounts.inProcessOne!).environments.get("capitals");
    const session = env.session({ split: "train", index: 0 }, { toolset: "claude-code" });
    const failure = await session.open().catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(ClientResponseError);
    expect(failure).toMatchObject({
      status: 400,
      detail: expect.stringMatching(
        /^toolset_name: an OpenReward platform option .* that this host does not offer/,
      ),
    });
    await session.close();
  });
});

describe("the OpenReward client on the built-in environments (several: X-Deployment routes)", () => {
  for (const name of ["standaloneBuiltins", "inProcessBuiltins"]) {
    it(`plays math, secret, bigoutput and paint episodes (${name})`, async () => {
      const m = mounts[name]!;
      const c = client(m);
      const tasks = await c.environments.get("math").getTaskRange("train", 0, 3);
      expect(tasks.map((t) => t.environmentName)).toEqual(["math", "math", "math"]);
      await solveMath(c, 2, expect);

      expect(await playSecret(c, "t0ken")).toMatchObject({ reward: 1, metadata: { length: 5 } });

      const big = await c.environments.get("bigoutput").session({ split: "train", index: 0 }).open();
      const dump = await big.callTool("dump");
      expect(dump.blocks[0]!.text!.length).toBeGreaterThan(100_000);
      await big.close();

      const paint = await c.environments.get("paint").session({ split: "train", index: 0 }).open();
      const tools = await paint.listTools();
      const drawn = await paint.callTool(tools[0]!.name, { shape: "circle", color: "#f00" });
      expect(drawn.blocks.map((b) => b.type)).toContain("image");
      await paint.close();

      if (m.sessions) expect(m.sessions()).toBe(0);
      if (m.fetch) expect(m.paths.filter((p) => p.split("/").length > 2)).toEqual([]);
    });
  }

  it("names the problem when a bare path names no environment on a host with several", async () => {
    const m = mounts.standaloneBuiltins!;
    const res = await fetch(`${m.base}/splits`);
    expect(res.status).toBe(404);
    expect(((await res.json()) as { detail: string }).detail).toMatch(
      /^\/splits names no environment and this server hosts several \(math, .*\): use \/\{env\}\/splits, or name it in an X-Deployment header$/,
    );
    const unknown = await fetch(`${m.base}/splits`, { headers: { "x-deployment": "nope" } });
    expect(unknown.status).toBe(404);
    expect(((await unknown.json()) as { detail: string }).detail).toMatch(
      /^Unknown environment "nope" \(X-Deployment header\)/,
    );
    // What the client makes of it: an error, not a hang.
    await expect(client(m).environments.get("nope").listSplits()).rejects.toMatchObject({ status: 404 });
  });

  it("keeps a slow call alive with pings well inside the client's silence limit", async () => {
    const m = mounts.standaloneBuiltins!;
    const s = await client(m, { heartbeatMs: 600 })
      .environments.get("slow")
      .session({ split: "train", index: 0 })
      .open();
    const out = await s.callTool("wait", { seconds: 1.5 });
    expect(out.blocks[0]!.text).toMatch(/^Waited 1\.5/);
    await s.close();
  });

  it("gives up on a stream silent for longer than its limit (what a ping interval must stay under)", async () => {
    const handler = createOrsHandler(builtinEnvironments, {
      basePath: "/api/ors",
      pingIntervalMs: 5_000,
      log: () => {},
    });
    const m = inProcess(handler);
    try {
      const s = await client(m, { heartbeatMs: 300 })
        .environments.get("slow")
        .session({ split: "train", index: 0 })
        .open();
      await expect(s.callTool("wait", { seconds: 1 })).rejects.toBeInstanceOf(HeartbeatTimeoutError);
      await s.close();
    } finally {
      await m.stop();
    }
  });

  it("the session dies when its pings fail (the host lost it)", async () => {
    const handler = createOrsHandler(builtinEnvironments, { basePath: "/api/ors", log: () => {} });
    const m = inProcess(handler);
    const s = await client(m).environments.get("math").session({ split: "train", index: 0 }).open();
    await handler.close();
    await new Promise((r) => setTimeout(r, 300));
    await expect(s.getPrompt()).rejects.toBeInstanceOf(SessionTerminatedError);
    await s.close();
  });
});
