import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { installOrsFastPath, isOrsRequestPath } from "@/lib/ors/host/fast-path";
import { createOrsHandler } from "@/lib/ors/host/handler";
import { defineEnvironment, defineTool, text } from "@/lib/ors/sdk";

const env = defineEnvironment({
  name: "echo",
  splits: ["train"],
  listTasks: () => [{ q: "hi" }],
  getPrompt: ({ task }) => String(task.q),
  tools: { say: defineTool({ description: "say", run: () => ({ blocks: [text("said")] }) }) },
});

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function listen(server: Server): Promise<string> {
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  cleanups.push(() => new Promise((r) => server.close(r)));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

describe("isOrsRequestPath", () => {
  it("takes everything under the base path, and the root ORS shapes only when asked", () => {
    expect(isOrsRequestPath("/api/ors/health", "/api/ors", false)).toBe(true);
    expect(isOrsRequestPath("/api/ors/whatever/else", "/api/ors", false)).toBe(true);
    expect(isOrsRequestPath("/api/orsx/health", "/api/ors", true)).toBe(false);
    expect(isOrsRequestPath("/health", "/api/ors", false)).toBe(false);
    expect(isOrsRequestPath("/health", "/api/ors", true)).toBe(true);
    expect(isOrsRequestPath("/math/call", "/api/ors", true)).toBe(true);
    expect(isOrsRequestPath("/s/local", "/api/ors", true)).toBe(false);
    expect(isOrsRequestPath("/trajectories/compare", "/api/ors", true)).toBe(false);
    expect(isOrsRequestPath("/", "/api/ors", true)).toBe(false);
  });
});

describe("installOrsFastPath", () => {
  it("serves ORS paths from the host before the server's own listener, and uninstalls", async () => {
    const handler = createOrsHandler([env], { basePath: "/api/ors", log: () => {} });
    cleanups.push(() => handler.close());
    const seen: string[] = [];
    const server = createServer((req, res) => {
      seen.push(req.url ?? "");
      res.end("app");
    });
    const base = await listen(server);
    const uninstall = installOrsFastPath({ handler: () => handler, basePath: "/api/ors", root: true });
    cleanups.push(uninstall);
    expect(installOrsFastPath({ handler: () => handler, basePath: "/x", root: false })).toBe(uninstall);

    expect(await (await fetch(`${base}/api/ors/health`)).json()).toEqual({ status: "ok" });
    expect(await (await fetch(`${base}/list_environments`)).json()).toEqual(["echo"]);
    const { sid } = (await (await fetch(`${base}/create_session`, { method: "POST" })).json()) as {
      sid: string;
    };
    const h = { "x-session-id": sid, "content-type": "application/json" };
    await fetch(`${base}/create`, {
      method: "POST",
      headers: h,
      body: JSON.stringify({ split: "train", index: 0 }),
    });
    const call = await fetch(`${base}/api/ors/echo/call`, {
      method: "POST",
      headers: h,
      body: JSON.stringify({ name: "say", input: {} }),
    });
    expect(await call.text()).toMatch(/event: end\ndata: \{"ok":true/);
    expect((await fetch(`${base}/api/ors/nope`)).status).toBe(404);
    expect(await (await fetch(`${base}/s/local`)).text()).toBe("app");
    expect(seen).toEqual(["/s/local"]);

    uninstall();
    expect(await (await fetch(`${base}/health`)).text()).toBe("app");
    expect(seen).toEqual(["/s/local", "/health"]);
  });
});
