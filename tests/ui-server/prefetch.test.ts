// The pages' server-side prefetch (lib/ui-server/prefetch.ts): against the real host on a loopback
// port it dehydrates the environment page's tool list, splits and task counts, and an episode
// page's session tools, under the browser's query keys (what the page hydrates); a failing answer
// is left out; a server that never answers costs the deadline, not a hung page.
import net from "node:net";
import { hydrate, QueryClient } from "@tanstack/react-query";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { builtinEnvironments } from "@/envs/index";
import { createOrsClient } from "@/lib/ors/client";
import { createOrsHandler, serveNode } from "@/lib/ors/host";
import { orsKeys } from "@/lib/ui/query-keys";
import { prefetchEnvironment, prefetchSessionTools } from "@/lib/ui-server/prefetch";

let served: Awaited<ReturnType<typeof serveNode>>;
/** Accepts connections and never answers (a hung upstream). */
let silent: net.Server;
let silentUrl: string;
const sockets = new Set<net.Socket>();

beforeAll(async () => {
  served = await serveNode(createOrsHandler(builtinEnvironments, { pingIntervalMs: 1000 }), {
    port: 0,
    host: "127.0.0.1",
  });
  silent = net.createServer((s) => {
    sockets.add(s);
    s.on("close", () => sockets.delete(s));
  });
  await new Promise<void>((r) => silent.listen(0, "127.0.0.1", r));
  silentUrl = `http://127.0.0.1:${(silent.address() as net.AddressInfo).port}`;
});
afterAll(async () => {
  for (const s of sockets) s.destroy();
  await new Promise((r) => silent.close(r));
  await served.close();
});

/** What the browser's cache holds after the page's HydrationBoundary. */
function hydrated(state: Parameters<typeof hydrate>[1]): QueryClient {
  const qc = new QueryClient();
  hydrate(qc, state);
  return qc;
}

describe("prefetchEnvironment", () => {
  it("carries the envs, tools, splits and each split's task count under the browser's keys", async () => {
    const client = createOrsClient({ baseUrl: served.url });
    const qc = hydrated(await prefetchEnvironment("local", "math", { client, timeoutMs: 10_000 }));
    const tools = (await client.tools("math")).tools;
    const splits = await client.splits("math");
    expect(splits.length).toBeGreaterThan(0);
    expect(qc.getQueryData(orsKeys.envs("local"))).toEqual(await client.listEnvironments());
    expect(qc.getQueryData(orsKeys.tools("local", "math"))).toEqual(tools);
    expect(qc.getQueryData(orsKeys.splits("local", "math"))).toEqual(splits);
    for (const s of splits)
      expect(qc.getQueryData(orsKeys.numTasks("local", "math", s.name))).toBe(
        (await client.numTasks("math", s.name)).num_tasks,
      );
  });

  it("leaves out what failed and keeps the rest (an unknown environment)", async () => {
    const client = createOrsClient({ baseUrl: served.url });
    const qc = hydrated(await prefetchEnvironment("local", "no-such-env", { client, timeoutMs: 10_000 }));
    expect(qc.getQueryData(orsKeys.envs("local"))).toContain("math");
    expect(qc.getQueryData(orsKeys.tools("local", "no-such-env"))).toBeUndefined();
    expect(qc.getQueryData(orsKeys.splits("local", "no-such-env"))).toBeUndefined();
    expect(qc.getQueryCache().getAll()).toHaveLength(1);
  });

  it("gives up on a server that never answers at the deadline, with nothing prefetched", async () => {
    const client = createOrsClient({ baseUrl: silentUrl });
    const started = Date.now();
    const state = await prefetchEnvironment("slow", "math", { client, timeoutMs: 300 });
    // Bounded by the deadline (a generous margin for a loaded machine), not by the server.
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(state.queries).toEqual([]);
    expect(sockets.size).toBeGreaterThan(0); // it did ask
  });
});

describe("prefetchSessionTools", () => {
  it("carries an open session's task_tools under the tool panel's key", async () => {
    const client = createOrsClient({ baseUrl: served.url });
    const { sid } = await client.createSession();
    await client.create(sid, { env_name: "tasktools", split: "train", index: 0 });
    const qc = hydrated(await prefetchSessionTools("local", "tasktools", sid, { client, timeoutMs: 10_000 }));
    const expected = (await client.taskTools("tasktools", sid)).tools;
    expect(expected.length).toBeGreaterThan((await client.tools("tasktools")).tools.length);
    expect(qc.getQueryData(orsKeys.taskTools("local", "tasktools", sid))).toEqual({
      tools: expected,
      source: "task_tools",
    });
    await client.delete(sid);
  });

  it("leaves a session the server does not know to the browser", async () => {
    const client = createOrsClient({ baseUrl: served.url });
    const state = await prefetchSessionTools("local", "math", "no-such-session", {
      client,
      timeoutMs: 10_000,
    });
    expect(state.queries).toEqual([]);
  });
});
