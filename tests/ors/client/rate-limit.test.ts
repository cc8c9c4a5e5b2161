// The client honours capacity answers: a 429 is sent again after its Retry-After (bounded, and
// abortable), against the real host at its session limit and against a tiny server that answers
// 429 to /create_session and /call first.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { builtinEnvironments } from "@/envs";
import { createOrsClient, retryAfterMs } from "@/lib/ors/client";
import { createOrsHandler, type OrsHandler } from "@/lib/ors/host";
import { formatSseEvent } from "@/lib/ors/protocol";
import { handlerFetch } from "../../relay/helpers";
import { rejection } from "./helpers";

const open: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((o) => o.close()));
});

function hostAtLimit(): OrsHandler {
  const h = createOrsHandler(builtinEnvironments, { maxSessions: 1, retryAfterS: 1, log: () => {} });
  open.push(h);
  return h;
}

async function tinyServer(handle: Parameters<typeof createServer>[1]): Promise<string> {
  const server: Server = createServer(handle);
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
  open.push({
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  });
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

describe("Retry-After", () => {
  it("reads delta-seconds and HTTP dates", () => {
    expect(retryAfterMs("3")).toBe(3000);
    expect(retryAfterMs(new Date(Date.now() + 5000).toUTCString())).toBeGreaterThan(3500);
    expect(retryAfterMs("soon")).toBeNull();
    expect(retryAfterMs(null)).toBeNull();
  });
});

describe("the client against the host at its session limit", () => {
  it("waits for Retry-After and creates the session once there is room", async () => {
    const h = hostAtLimit();
    const ors = createOrsClient({ baseUrl: "http://host.test", fetch: handlerFetch(h) });
    const a = (await ors.createSession()).sid;
    await ors.create(a, { env_name: "math", split: "train", index: 0 });
    const b = (await ors.createSession()).sid;
    const started = Date.now();
    const created = ors.create(b, { env_name: "math", split: "train", index: 1 });
    setTimeout(() => void ors.delete(a), 300);
    expect(await created).toEqual({ sid: b });
    expect(Date.now() - started).toBeGreaterThanOrEqual(950);
    expect(h.host.sessionCount).toBe(1);
  });

  it("gives up after its retries with the host's 429 and detail", async () => {
    const h = hostAtLimit();
    const ors = createOrsClient({ baseUrl: "http://host.test", fetch: handlerFetch(h), rateLimitRetries: 1 });
    await ors.create((await ors.createSession()).sid, { env_name: "math", split: "train", index: 0 });
    const started = Date.now();
    const err = await rejection(ors.create("second", { env_name: "math", split: "train", index: 1 }));
    expect(err).toMatchObject({ kind: "http", status: 429 });
    expect(err.detail).toMatch(/^Too many sessions: .*retry after 1 s$/);
    expect(Date.now() - started).toBeGreaterThanOrEqual(950);
    // A Retry-After longer than the client waits at all: the 429 at once.
    const impatient = createOrsClient({
      baseUrl: "http://host.test",
      fetch: handlerFetch(h),
      maxRetryAfterMs: 500,
    });
    const t0 = Date.now();
    expect(
      (await rejection(impatient.create("third", { env_name: "math", split: "train", index: 1 }))).status,
    ).toBe(429);
    expect(Date.now() - t0).toBeLessThan(500);
  });

  it("stops waiting when its signal aborts", async () => {
    const h = hostAtLimit();
    const ors = createOrsClient({ baseUrl: "http://host.test", fetch: handlerFetch(h) });
    await ors.create((await ors.createSession()).sid, { env_name: "math", split: "train", index: 0 });
    const ctrl = new AbortController();
    setTimeout(() => ctrl.abort(new Error("stop")), 100);
    const t0 = Date.now();
    await expect(
      ors.create("x", { env_name: "math", split: "train", index: 1 }, { signal: ctrl.signal }),
    ).rejects.toThrow("stop");
    expect(Date.now() - t0).toBeLessThan(800);
  });
});

describe("the client against a server that answers 429 first", () => {
  it("retries /create_session and /call after their Retry-After", async () => {
    const seen: string[] = [];
    const base = await tinyServer((req, res) => {
      seen.push(req.url!);
      const first = seen.filter((u) => u === req.url).length === 1;
      if (first) {
        res.writeHead(429, { "content-type": "application/json", "retry-after": "1" });
        res.end('{"detail":"busy"}');
        return;
      }
      res.writeHead(200, { "content-type": "text/event-stream" });
      if (req.url === "/create_session")
        res.end(formatSseEvent("task_id", "s-1") + formatSseEvent("end", ""));
      else
        res.end(
          formatSseEvent("task_id", "t") +
            formatSseEvent("end", '{"ok":true,"output":{"blocks":[],"reward":1,"finished":true}}'),
        );
    });
    const ors = createOrsClient({ baseUrl: base });
    const t0 = Date.now();
    expect(await ors.createSession()).toEqual({ sid: "s-1" });
    expect(Date.now() - t0).toBeGreaterThanOrEqual(950);
    const t1 = Date.now();
    const out = await ors.callTool("x", "s-1", { name: "go", input: {} });
    expect(out).toMatchObject({ ok: true, output: { reward: 1 } });
    expect(Date.now() - t1).toBeGreaterThanOrEqual(950);
    expect(seen).toEqual(["/create_session", "/create_session", "/x/call", "/x/call"]);
  });
});
