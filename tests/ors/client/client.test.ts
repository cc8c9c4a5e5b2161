// The typed client against the built-in host in process, and against tiny node:http servers that
// misbehave on purpose: dropped streams (reconnection by task_id), silence (idle timeout), HTML
// pages, FastAPI validation lists, refused connections. Free ports.
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from "vitest";
import { builtinEnvironments } from "@/envs";
import { type CallEvent, createOrsClient, OrsClientError, startKeepAlive } from "@/lib/ors/client";
import { createOrsHandler, type OrsHandler } from "@/lib/ors/host";
import { formatSseEvent } from "@/lib/ors/protocol";
import { handlerFetch, proxyToHandler, readBody, startHttpServer, unusedPort } from "../../relay/helpers";
import { callInNewSession, callWithEvents } from "../../support/calls";
import { rejection } from "./helpers";

let host: OrsHandler;

beforeAll(() => {
  host = createOrsHandler(builtinEnvironments, { pingIntervalMs: 100 });
});
afterAll(async () => {
  await host.close();
});

function local(extra: Partial<Parameters<typeof createOrsClient>[0]> = {}) {
  return createOrsClient({ baseUrl: "http://host.test", fetch: handlerFetch(host), ...extra });
}

describe("client against the built-in host (in process)", () => {
  it("walks a whole math episode: discovery, create, prompt, call, ping, delete", async () => {
    const ors = local();
    expect(await ors.health()).toEqual({ status: "ok" });
    expect(await ors.listEnvironments()).toContain("math");
    const tools = await ors.tools("math");
    expect(tools.tools.map((t) => t.name)).toEqual(["submit"]);
    expect((await ors.splits("math")).map((s) => s.name)).toEqual(["train", "test"]);
    expect((await ors.numTasks("math", "test")).num_tasks).toBe(200);
    const { task } = await ors.task("math", "train", 3);
    expect((await ors.taskRange("math", "train", 3, 4)).tasks).toEqual([task]);
    expect((await ors.taskRange("math", "train", -1)).tasks).toHaveLength(1);
    expect((await ors.tasks("math", "test")).tasks).toHaveLength(200);

    const { sid } = await ors.createSession();
    expect(sid).toMatch(/\S/);
    expect(await ors.create(sid, { env_name: "math", split: "train", index: 3 })).toEqual({ sid });
    const prompt = await ors.prompt("math", sid);
    expect(prompt).toEqual([expect.objectContaining({ type: "text", text: task.question })]);
    expect((await ors.taskTools("math", sid)).tools.map((t) => t.name)).toEqual(["submit"]);
    expect(await ors.ping(sid)).toEqual({ status: "ok" });

    const { out, events } = await callWithEvents(ors, "math", sid, {
      name: "submit",
      input: { answer: String(task.answer) },
    });
    expect(out).toEqual({
      ok: true,
      output: expect.objectContaining({ reward: 1, finished: true }),
    });
    expect(events.map((e) => e.type)).toEqual(["task_id", "end"]);
    expect(events[0]!.data).toMatch(/\S/);
    expect(events[1]!.size).toBe(events[1]!.data!.length);
    for (const e of events) expect(Math.abs(e.at - Date.now())).toBeLessThan(10_000);

    expect(await ors.delete(sid)).toEqual({ sid });
    const gone = await rejection(ors.prompt("math", sid));
    expect(gone).toMatchObject({ kind: "http", status: 410 });
    expect(gone.detail).toMatch(/\S/);
  });

  it("reassembles a chunked result and reports each chunk with its size", async () => {
    const ors = local();
    const { sid, out, events } = await callInNewSession(ors, "bigoutput", { name: "dump", input: {} });
    expect(out.ok).toBe(true);
    if (!out.ok) return;
    const block = out.output.blocks[0]!;
    expect(block.type === "text" && block.text.length).toBe(150_000);
    const chunks = events.filter((e) => e.type === "chunk");
    expect(chunks.length).toBeGreaterThan(30);
    for (const c of chunks) {
      expect(c.size).toBe(c.data!.length);
      expect(c.size).toBeLessThanOrEqual(4096);
    }
    expect(events.at(-1)!.type).toBe("end");
    await ors.delete(sid);
  });

  it("tool-level failures are an {ok:false} result; an unknown tool's event: error is thrown", async () => {
    const ors = local();
    const { sid } = await ors.createSession();
    await ors.create(sid, { env_name: "math", split: "train", index: 0 });
    const out = await ors.callTool("math", sid, { name: "submit", input: { answer: 42 } });
    expect(out).toMatchObject({ ok: false, error: expect.stringMatching(/^Invalid input: answer: /) });
    await expect(ors.callTool("math", sid, { name: "nope", input: {} })).rejects.toMatchObject({
      kind: "stream",
      detail: expect.stringMatching(/^Unknown tool "nope"/),
    });
    await ors.delete(sid);
  });

  it("createSession reads an SSE answer (task_id + end) as the reference server sends it", async () => {
    const forceSse: typeof fetch = (input, init) => {
      const req = new Request(input, init);
      if (req.url.endsWith("/create_session")) req.headers.set("accept", "text/event-stream");
      return host(req);
    };
    const ors = createOrsClient({ baseUrl: "http://host.test", fetch: forceSse });
    const { sid } = await ors.createSession();
    expect(sid).toMatch(/\S/);
    await ors.create(sid, { env_name: "math", split: "test", index: 0 });
    expect(await ors.prompt("math", sid)).toHaveLength(1);
    await ors.delete(sid);
  });

  it("a non-2xx answer is an OrsClientError with the status and the server's detail", async () => {
    const ors = local();
    const e404 = await rejection(ors.tools("no-such-env"));
    expect(e404).toMatchObject({ kind: "http", status: 404 });
    expect(e404.detail).toMatch(/no-such-env/);
    const e400 = await rejection(ors.task("math", "train", -1));
    expect(e400).toMatchObject({ kind: "http", status: 400 });
    const { sid } = await ors.createSession();
    const e400b = await rejection(ors.create(sid, { env_name: "math" }));
    expect(e400b.status).toBe(400);
    expect(e400b.detail).toMatch(/task_spec|split/);
  });

  it("cancels a call with an AbortSignal", async () => {
    const ors = local();
    const { sid } = await ors.createSession();
    await ors.create(sid, { env_name: "slow", split: "train", index: 0 });
    const ctrl = new AbortController();
    const started = Date.now();
    const p = ors.callTool(
      "slow",
      sid,
      { name: "wait", input: { seconds: 20 } },
      { signal: ctrl.signal, onEvent: (e) => e.type === "task_id" && ctrl.abort() },
    );
    await expect(p).rejects.toMatchObject({ name: "AbortError" });
    expect(Date.now() - started).toBeLessThan(5_000);
    await ors.delete(sid);
  });

  it("keep-alive pings on its interval and reports a failed ping at once", async () => {
    const ors = local();
    const { sid } = await ors.createSession();
    await ors.create(sid, { env_name: "math", split: "train", index: 0 });
    let pings = 0;
    const failed = new Promise<Error>((resolve) => {
      startKeepAlive(ors, sid, {
        intervalMs: 30,
        onPing: () => {
          pings++;
          if (pings === 3) void ors.delete(sid);
        },
        onError: resolve,
      });
    });
    const err = await failed;
    expect(pings).toBeGreaterThanOrEqual(3);
    expect(err).toBeInstanceOf(OrsClientError);
    expect((err as OrsClientError).status).toBeGreaterThanOrEqual(400);
  });

  it("keep-alive stops when stopped", async () => {
    const ors = local();
    const { sid } = await ors.createSession();
    await ors.create(sid, { env_name: "math", split: "train", index: 0 });
    let pings = 0;
    const stop = startKeepAlive(ors, sid, { intervalMs: 20, onPing: () => pings++ });
    await new Promise<void>((r) => {
      const t = setInterval(() => {
        if (pings >= 2) {
          clearInterval(t);
          r();
        }
      }, 5);
    });
    stop();
    const seen = pings;
    await new Promise((r) => setTimeout(r, 100));
    expect(pings).toBeLessThanOrEqual(seen + 1);
    await ors.delete(sid);
  });
});

/** A loopback server answering with `handle` for this test; it closes when the test ends. */
async function testServer(handle: Parameters<typeof startHttpServer>[1]) {
  const srv = await startHttpServer(0, handle);
  onTestFinished(() => srv.close());
  return srv;
}

describe("client against misbehaving servers (node:http on loopback)", () => {
  it("reconnects with the saved task_id after the connection is cut mid-call", async () => {
    let calls = 0;
    const bodies: unknown[] = [];
    const srv = await testServer((req, res) => {
      const isCall = req.url?.endsWith("/call");
      if (!isCall) return void proxyToHandler(host, req, res);
      calls++;
      const first = calls === 1;
      let sawTaskId = false;
      // Peek at the body to record what the client re-posted, then hand it to the host.
      void readBody(req).then((buf) => {
        bodies.push(JSON.parse(buf.toString()));
        void proxyToHandler(
          host,
          req,
          res,
          (text) => {
            if (!first) return undefined;
            if (sawTaskId) return "drop";
            if (text.includes("event: task_id")) sawTaskId = true;
            return undefined;
          },
          buf,
        );
      });
    });
    const ors = createOrsClient({ baseUrl: srv.url, backoffBaseMs: 20 });
    const { sid, out, events } = await callInNewSession(ors, "slow", {
      name: "wait",
      input: { seconds: 0.4 },
    });
    expect(out).toMatchObject({ ok: true, output: { metadata: { seconds: 0.4 } } });
    const types = events.map((e) => e.type);
    expect(types).toContain("reconnect");
    expect(types.at(-1)).toBe("end");
    const reconnect = events.find((e) => e.type === "reconnect")!;
    expect(reconnect.attempt).toBe(1);
    const taskId = events.find((e) => e.type === "task_id")!.data;
    expect(calls).toBe(2);
    expect(bodies[0]).not.toHaveProperty("task_id");
    expect(bodies[1]).toMatchObject({ name: "wait", task_id: taskId });
    await ors.delete(sid);
  });

  it("gives up with a clear error after a bounded number of reconnections", async () => {
    let calls = 0;
    const srv = await testServer((_req, res) => {
      calls++;
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.write(formatSseEvent("task_id", "t-1"));
      setTimeout(() => res.socket?.destroy(), 10);
    });
    const ors = createOrsClient({ baseUrl: srv.url, backoffBaseMs: 10, maxRetries: 2 });
    const events: CallEvent[] = [];
    const err = await rejection(
      ors.callTool("e", "sid", { name: "t", input: {} }, { onEvent: (e) => events.push(e) }),
    );
    expect(err.kind).toBe("stream");
    expect(err.detail).toMatch(/gave up after 2 reconnections \(task_id t-1\)/);
    expect(calls).toBe(3);
    expect(events.filter((e) => e.type === "reconnect").map((e) => e.attempt)).toEqual([1, 2]);
    expect(events.at(-1)!.type).toBe("give-up");
  });

  it("gives up when nothing, not even a ping, arrives for the idle timeout", async () => {
    const srv = await testServer((_req, res) => {
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.write(formatSseEvent("task_id", "t-2"));
      res.write(": ping\n\n");
      // then silence
    });
    const ors = createOrsClient({ baseUrl: srv.url, idleTimeoutMs: 300 });
    const events: CallEvent[] = [];
    const started = Date.now();
    const err = await rejection(
      ors.callTool("e", "sid", { name: "t", input: {} }, { onEvent: (e) => events.push(e) }),
    );
    expect(err.kind).toBe("timeout");
    expect(err.detail).toMatch(/not even a ping/);
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(events.map((e) => e.type)).toEqual(["task_id", "ping", "give-up"]);
  });

  it("an `event: error` ends the call with a stream error and no retry", async () => {
    let calls = 0;
    const srv = await testServer((_req, res) => {
      calls++;
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.end(formatSseEvent("task_id", "t-3") + formatSseEvent("error", "unknown task_id t-3"));
    });
    const err = await rejection(
      createOrsClient({ baseUrl: srv.url }).callTool("e", "sid", { name: "t", input: {}, task_id: "t-3" }),
    );
    expect(err).toMatchObject({ kind: "stream", detail: "unknown task_id t-3" });
    expect(calls).toBe(1);
  });

  it("says not-ors for an HTML page, and joins FastAPI's 422 list detail", async () => {
    const srv = await testServer((req, res) => {
      if (req.url === "/health") {
        res.writeHead(200, { "content-type": "text/html" });
        return void res.end("<!doctype html><title>Welcome to nginx</title>");
      }
      res.writeHead(422, { "content-type": "application/json" });
      res.end(
        JSON.stringify({
          detail: [{ type: "missing", loc: ["body", "split"], msg: "Field required", input: {} }],
        }),
      );
    });
    const ors = createOrsClient({ baseUrl: srv.url });
    const html = await rejection(ors.health());
    expect(html.kind).toBe("not-ors");
    expect(html.detail).toMatch(/not an ORS server.*HTML page/);
    const e422 = await rejection(ors.numTasks("math", "x"));
    expect(e422).toMatchObject({ kind: "http", status: 422, detail: "body.split: Field required" });
  });

  it("says unreachable when nothing listens, and timeout when nothing answers", async () => {
    const down = await rejection(
      createOrsClient({ baseUrl: `http://127.0.0.1:${await unusedPort()}` }).health(),
    );
    expect(down.kind).toBe("unreachable");
    expect(down.detail).toMatch(/connection refused/);
    const srv = await testServer(() => {
      // never answers
    });
    const slow = await rejection(createOrsClient({ baseUrl: srv.url, timeoutMs: 200 }).health());
    expect(slow.kind).toBe("timeout");
  });
});
