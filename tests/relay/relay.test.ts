// The relay in process (its fetch handler with plain Requests), mounted over the built-in host and
// over a second, independent ORS server process (scripts/serve.ts) on loopback, plus tiny node:http
// servers that redirect, serve HTML, never answer, or drop streams; every one on a free port.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { builtinEnvironments } from "@/envs";
import { createOrsClient, OrsClientError, startKeepAlive } from "@/lib/ors/client";
import { createOrsHandler, type OrsHandler } from "@/lib/ors/host";
import { readSseFrames, type SseFrame } from "@/lib/ors/protocol";
import { checkServerHealth } from "@/lib/registry";
import type { RelayEvent } from "@/lib/relay/events";
import { callWithEvents } from "../support/calls";
import {
  makeRelay,
  proxyToHandler,
  readBody,
  relayFetch,
  type SpawnedServer,
  spawnOrsServer,
  startHttpServer,
  type TestRelay,
  unusedPort,
} from "./helpers";

const APP = "http://app.test";

let local: OrsHandler;
let second: SpawnedServer;
let keyed: SpawnedServer;
let t: TestRelay;
const closers: Array<() => Promise<void>> = [];
let dropNext = false;
/** Ports nothing listens on: a redirect's target elsewhere, and a server that is down. */
let ELSEWHERE: number;
let DOWN: number;

beforeAll(async () => {
  local = createOrsHandler(builtinEnvironments, { pingIntervalMs: 100 });
  [second, keyed] = await Promise.all([
    spawnOrsServer(0, { ORS_PING_INTERVAL_MS: "100" }),
    spawnOrsServer(0, { ORS_API_KEYS: "k-good,k-other" }),
  ]);
  [ELSEWHERE, DOWN] = [await unusedPort(), await unusedPort()];
  const redirect = await startHttpServer(0, (req, res) => {
    if (req.url === "/math/tools") {
      res.writeHead(308, { location: "/other/tools" });
    } else if (req.url === "/health") {
      res.writeHead(307, { location: `${redirect.url}/list_environments?x=1` });
    } else {
      res.writeHead(302, { location: `http://127.0.0.1:${ELSEWHERE}/health` });
    }
    res.end();
  });
  const html = await startHttpServer(0, (_req, res) => {
    res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
    res.end("<!doctype html><html><body>Welcome to nginx!</body></html>");
  });
  const silent = await startHttpServer(0, () => {
    // accepts the connection and never answers
  });
  // Proxies to the built-in host; drops the socket once mid-call after the task_id when asked.
  const drop = await startHttpServer(0, (req, res) => {
    if (!req.url?.endsWith("/call") || !dropNext) return void proxyToHandler(local, req, res);
    dropNext = false;
    let sawTaskId = false;
    void readBody(req).then((buf) =>
      proxyToHandler(
        local,
        req,
        res,
        (text) => {
          if (sawTaskId) return "drop";
          if (text.includes("event: task_id")) sawTaskId = true;
          return undefined;
        },
        buf,
      ),
    );
  });
  closers.push(redirect.close, html.close, silent.close, drop.close);
  t = makeRelay(
    local,
    {
      second: second.url,
      keyed: keyed.url,
      keyed2: keyed.url,
      redir: redirect.url,
      html: html.url,
      silent: silent.url,
      drop: drop.url,
      down: `http://127.0.0.1:${DOWN}`,
      meta: "http://169.254.169.254",
      linklocal: "http://169.254.10.20:8080",
      linklocal6: "http://[fe80::1]:8080",
      metaname: "http://metadata.google.internal",
    },
    { timeoutMs: 1_000, env: { ORS_SERVER_API_KEY_KEYED2: "k-other" } },
  );
});

afterAll(async () => {
  await Promise.all([second?.stop(), keyed?.stop(), ...closers.map((c) => c())]);
  await local?.close();
  t?.cleanup();
});

function viaRelay(server: string, extra: Partial<Parameters<typeof createOrsClient>[0]> = {}) {
  return createOrsClient({ baseUrl: `${APP}/api/servers/${server}`, fetch: relayFetch(t.relay), ...extra });
}

function relayRequest(path: string, init?: RequestInit): Promise<Response> {
  return relayFetch(t.relay)(`${APP}${path}`, init);
}

function record(): { events: RelayEvent[]; stop: () => void } {
  const events: RelayEvent[] = [];
  const stop = t.relay.events.subscribe((e) => events.push(e));
  return { events, stop };
}

/** Runs `body` with the relay's events recorded, and stops recording after, whatever happens. */
async function recording(body: (rec: ReturnType<typeof record>) => Promise<void>): Promise<void> {
  const rec = record();
  try {
    await body(rec);
  } finally {
    rec.stop();
  }
}

/** A session on `server` through the relay, with an episode of `env` (train, task 0) created. */
async function episodeVia(server: string, env: string, extra: Parameters<typeof viaRelay>[1] = {}) {
  const ors = viaRelay(server, extra);
  const { sid } = await ors.createSession();
  await ors.create(sid, { env_name: env, split: "train", index: 0 });
  return { ors, sid };
}

async function expectDetail(res: Response, status: number, pattern: RegExp): Promise<string> {
  expect(res.status).toBe(status);
  const body = (await res.json()) as { detail: string };
  expect(body.detail).toMatch(pattern);
  return body.detail;
}

async function waitFor<T>(fn: () => T | undefined, ms = 5_000): Promise<T> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    const v = fn();
    if (v !== undefined) return v;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error("condition not met in time");
}

describe("relay to a second ORS server process", () => {
  it("walks a whole episode and publishes every step as relay events (no secrets)", async () => {
    await recording(async (rec) => {
      const ors = viaRelay("second");
      expect(await ors.health()).toEqual({ status: "ok" });
      expect(await ors.listEnvironments()).toContain("secret");
      const { sid } = await ors.createSession();
      const SECRET = "s3cr3t-value-never-recorded";
      await ors.create(sid, { env_name: "secret", split: "train", index: 0, secrets: { API_TOKEN: SECRET } });
      const prompt = await ors.prompt("secret", sid);
      expect(prompt[0]).toMatchObject({ type: "text" });
      await ors.ping(sid);
      const out = await ors.callTool("secret", sid, { name: "whoami", input: {} });
      expect(out).toMatchObject({ ok: true, output: { reward: 1, finished: true } });
      await ors.delete(sid);
      const gone = await ors.prompt("secret", sid).catch((e: OrsClientError) => e);
      expect(gone).toMatchObject({ kind: "http", status: 410 });

      await waitFor(() => rec.events.find((e) => e.type === "request_failed"));
      // The protocol log's `exchange` events are checked below; these are the episode's.
      const steps = rec.events.filter((e) => e.type !== "exchange");
      const types = steps.map((e) => e.type);
      expect(types).toEqual([
        "session_created",
        "episode_created",
        "prompt",
        "ping",
        "call_started",
        "call_frame",
        "call_frame",
        "call_finished",
        "session_deleted",
        "request_failed",
      ]);
      for (const e of steps) {
        expect(e.server).toBe("second");
        expect(typeof e.at).toBe("number");
        if ("sid" in e) expect(e.sid).toBe(sid);
      }
      expect(steps[1]).toMatchObject({ env: "secret", task: { split: "train", index: 0 } });
      expect(steps[2]).toMatchObject({ env: "secret", blocks: prompt });
      const started = steps[4] as Extract<RelayEvent, { type: "call_started" }>;
      expect(started).toMatchObject({ env: "secret", tool: "whoami", input: {} });
      const finished = steps[7] as Extract<RelayEvent, { type: "call_finished" }>;
      expect(finished).toMatchObject({ callId: started.callId, result: out });
      expect(finished.taskId).toMatch(/\S/);
      expect(steps[9]).toMatchObject({ endpoint: "prompt", status: 410 });
      // Every request of the session is logged once its answer ended, after the events of that answer.
      await waitFor(() => rec.events.filter((e) => e.type === "exchange").length >= 9 || undefined);
      const log = rec.events.flatMap((e) => (e.type === "exchange" ? [e] : []));
      expect(log.map((e) => [e.endpoint, e.exchange.method, e.exchange.path, e.exchange.status])).toEqual([
        ["health", "GET", "/health", 200],
        ["list_environments", "GET", "/list_environments", 200],
        ["create_session", "POST", "/create_session", 200],
        ["create", "POST", "/create", 200],
        ["prompt", "GET", "/secret/prompt", 200],
        ["ping", "POST", "/ping", 200],
        ["call", "POST", "/secret/call", 200],
        ["delete", "POST", "/delete", 200],
        ["prompt", "GET", "/secret/prompt", 410],
      ]);
      expect(log[2]!.sessionCreated).toBe(sid);
      expect(log.slice(3).every((e) => e.sid === sid)).toBe(true);
      expect(log[6]!.callId).toBe(started.callId);
      // After the call's own events; the whole SSE answer as the client saw it.
      expect(rec.events.indexOf(log[6]!)).toBeGreaterThan(rec.events.indexOf(finished));
      expect(log[6]!.exchange.response.contentType).toContain("text/event-stream");
      expect(log[6]!.exchange.response.body).toMatch(
        /^event: task_id\ndata: .+\n\n(event: chunk\n|event: end\n)/,
      );
      expect(log[6]!.exchange.response.size).toBe(Buffer.byteLength(log[6]!.exchange.response.body));
      expect(JSON.parse(log[6]!.exchange.request.body)).toEqual({ name: "whoami", input: {} });
      // The /create body keeps its secrets' names, never their values.
      expect(JSON.parse(log[3]!.exchange.request.body)).toEqual({
        env_name: "secret",
        split: "train",
        index: 0,
        secrets: { API_TOKEN: "***" },
      });
      expect(log[3]!.exchange.request.headers["x-session-id"]).toBe(sid);
      expect(log[8]!.exchange.response.body).toContain("detail");
      for (const e of log) {
        expect(e.exchange.at).toBeLessThanOrEqual(e.at);
        expect(e.exchange.ms).toBeGreaterThanOrEqual(0);
      }
      expect(JSON.stringify(rec.events)).not.toContain(SECRET);
    });
  });

  it("forwards X-Secrets without ever publishing it", async () => {
    await recording(async (rec) => {
      const SECRET = "header-secret-abc";
      const header = Buffer.from(JSON.stringify({ API_TOKEN: { value: SECRET } })).toString("base64");
      const { ors, sid } = await episodeVia("second", "secret", { headers: { "X-Secrets": header } });
      const out = await ors.callTool("secret", sid, { name: "whoami", input: {} });
      expect(out).toMatchObject({ ok: true, output: { reward: 1 } });
      await ors.delete(sid);
      // The protocol log shows which secrets were sent, by name.
      const create = await waitFor(() =>
        rec.events.find(
          (e): e is Extract<RelayEvent, { type: "exchange" }> =>
            e.type === "exchange" && e.endpoint === "create",
        ),
      );
      expect(create.exchange.request.headers["x-secrets"]).toBe("*** (secrets: API_TOKEN)");
      await waitFor(() => rec.events.find((e) => e.type === "exchange" && e.endpoint === "delete"));
      expect(JSON.stringify(rec.events)).not.toContain(SECRET);
      expect(JSON.stringify(rec.events)).not.toContain(header);
    });
  });

  it("relays a chunked result and publishes each chunk frame", async () => {
    await recording(async (rec) => {
      const { ors, sid } = await episodeVia("second", "bigoutput");
      const { out, events: seen } = await callWithEvents(ors, "bigoutput", sid, { name: "dump", input: {} });
      expect(out.ok && out.output.blocks[0]!.type === "text" && out.output.blocks[0]!.text.length).toBe(
        150_000,
      );
      const chunks = seen.filter((e) => e.type === "chunk").length;
      expect(chunks).toBeGreaterThan(30);
      const finished = await waitFor(() => rec.events.find((e) => e.type === "call_finished"));
      expect(finished).toMatchObject({ result: out });
      const frames = rec.events.filter(
        (e) => e.type === "call_frame" && e.frame.kind === "event" && e.frame.event === "chunk",
      );
      expect(frames).toHaveLength(chunks);
      await ors.delete(sid);
    });
  });

  it("streams `: ping` comments through while a slow tool runs, as they are sent", async () => {
    await recording(async (rec) => {
      const { ors, sid } = await episodeVia("second", "slow");
      const res = await relayRequest("/api/servers/second/slow/call", {
        method: "POST",
        headers: { "X-Session-ID": sid, "Content-Type": "application/json", Accept: "text/event-stream" },
        body: JSON.stringify({ name: "wait", input: { seconds: 1.2 } }),
      });
      expect(res.status).toBe(200);
      expect(res.headers.get("content-type")).toContain("text/event-stream");
      expect(res.headers.get("cache-control")).toContain("no-transform");
      const t0 = Date.now();
      const got: Array<{ frame: SseFrame; at: number }> = [];
      for await (const frame of readSseFrames(res.body!)) got.push({ frame, at: Date.now() - t0 });
      const pings = got.filter((g) => g.frame.kind === "comment");
      const end = got.find((g) => g.frame.kind === "event" && g.frame.event === "end")!;
      expect(pings.length).toBeGreaterThanOrEqual(3);
      // The first ping reached us long before the result: nothing was buffered on the way.
      expect(end.at - pings[0]!.at).toBeGreaterThan(600);
      const recorded = await waitFor(() => {
        const f = rec.events.filter((e) => e.type === "call_frame" && e.frame.kind === "comment");
        return rec.events.some((e) => e.type === "call_finished") ? f : undefined;
      });
      expect(recorded.length).toBe(pings.length);
      await ors.delete(sid);
    });
  });

  it("keeps a session alive through the relay and reports the failed ping once it is gone", async () => {
    await recording(async (rec) => {
      const { ors, sid } = await episodeVia("second", "math");
      let pings = 0;
      const err = await new Promise<Error>((resolve) => {
        startKeepAlive(ors, sid, {
          intervalMs: 40,
          onPing: () => {
            if (++pings === 3) void ors.delete(sid);
          },
          onError: resolve,
        });
      });
      expect(err).toBeInstanceOf(OrsClientError);
      expect((err as OrsClientError).status).toBeGreaterThanOrEqual(400);
      const pingEvents = rec.events.filter((e) => e.type === "ping");
      expect(pingEvents.filter((e) => e.ok)).toHaveLength(pings);
      expect(pingEvents.at(-1)).toMatchObject({ ok: false, sid });
      expect(rec.events.filter((e) => e.type !== "exchange").at(-1)).toMatchObject({
        type: "request_failed",
        endpoint: "ping",
        sid,
      });
    });
  });

  it("passes API-key rejection through unchanged, and the client's or the configured key", async () => {
    const noKey = await viaRelay("keyed")
      .listEnvironments()
      .catch((e: OrsClientError) => e);
    expect(noKey).toMatchObject({ kind: "http", status: 401 });
    const direct = await createOrsClient({ baseUrl: keyed.url })
      .listEnvironments()
      .catch((e: OrsClientError) => e);
    expect((noKey as OrsClientError).detail).toBe((direct as OrsClientError).detail);
    const wrong = await viaRelay("keyed", { apiKey: "k-bad" })
      .listEnvironments()
      .catch((e: OrsClientError) => e);
    expect(wrong).toMatchObject({ status: 401 });
    expect(await viaRelay("keyed", { apiKey: "k-good" }).listEnvironments()).toContain("math");
    expect(await viaRelay("keyed2").listEnvironments()).toContain("math");
    expect(await viaRelay("keyed").health()).toEqual({ status: "ok" });
  });

  it("a call cut mid-stream ends with an error naming its task_id; a re-post resumes it, and says which call", async () => {
    await recording(async (rec) => {
      const { ors, sid } = await episodeVia("drop", "slow", { backoffBaseMs: 20 });
      dropNext = true;
      const call = { name: "wait", input: { seconds: 0.4 } };
      const { out, events: seen } = await callWithEvents(ors, "slow", sid, call);
      // The server stopped answering in the middle: the client is told so, with what resumes the
      // call, and (knowing the relay's mark) re-posts it with its task_id by itself.
      const taskId = seen.find((e) => e.type === "task_id")!.data;
      const reconnect = seen.find((e) => e.type === "reconnect")?.data;
      expect(reconnect).toMatch(/relay: server "drop": the stream broke before `end`/);
      expect(reconnect).toContain(`re-post the call with task_id ${taskId}`);
      expect(seen.some((e) => e.type === "error")).toBe(false);
      expect(out).toMatchObject({ ok: true });
      await waitFor(() =>
        rec.events.filter((e) => e.type === "call_finished").length === 2 ? true : undefined,
      );
      const starts = rec.events.filter((e) => e.type === "call_started");
      const ends = rec.events.filter((e) => e.type === "call_finished");
      expect(starts).toHaveLength(2);
      expect(ends[0]).toMatchObject({
        callId: starts[0]!.callId,
        error: expect.stringMatching(/before `end`/),
      });
      expect(starts[1]).toMatchObject({ resumeOf: starts[0]!.callId, taskId: ends[0]!.taskId });
      expect(ends[1]).toMatchObject({ callId: starts[1]!.callId, result: out });
      await ors.delete(sid);
    });
  });
});

describe("relay to the built-in host (in process)", () => {
  it("runs a math episode on `local` and keeps statuses", async () => {
    const ors = viaRelay("local");
    const { task } = await ors.task("math", "test", 1);
    const { sid } = await ors.createSession();
    await ors.create(sid, { env_name: "math", split: "test", index: 1 });
    const out = await ors.callTool("math", sid, { name: "submit", input: { answer: String(task.answer) } });
    expect(out).toMatchObject({ ok: true, output: { reward: 1, finished: true } });
    await ors.delete(sid);
    const res = await relayRequest("/api/servers/local/no-such-env/tools");
    await expectDetail(res, 404, /no-such-env/);
  });

  it("a /create body nested thousands of levels deep is answered as the host answers it, never a 5xx", async () => {
    await recording(async (rec) => {
      const session = async () =>
        (
          (await (await relayRequest("/api/servers/local/create_session", { method: "POST" })).json()) as {
            sid: string;
          }
        ).sid;
      for (const nested of ['{"a":', "["]) {
        const close = nested === "[" ? "]" : "}";
        const deep = `{"env_name":"math","task_spec":${nested.repeat(6000)}1${close.repeat(6000)}}`;
        const init = (sid: string) => ({
          method: "POST",
          headers: { "content-type": "application/json", "x-session-id": sid },
          body: deep,
        });
        const direct = await local(new Request("http://host.test/create", init(await session())));
        const relayed = await relayRequest("/api/servers/local/create", init(await session()));
        expect(relayed.status).toBeLessThan(500);
        expect(relayed.status).toBe(direct.status);
        expect(Object.keys(await relayed.json())).toEqual(Object.keys(await direct.json()));
      }
      // Logged like any other answer.
      await waitFor(
        () => rec.events.filter((e) => e.type === "exchange" && e.endpoint === "create").length === 2,
      );
    });
  });

  it("createSession through the relay works whether the server answers JSON or SSE", async () => {
    await recording(async (rec) => {
      const res = await relayRequest("/api/servers/local/create_session", {
        method: "POST",
        headers: { Accept: "text/event-stream" },
      });
      expect(res.headers.get("content-type")).toContain("text/event-stream");
      const frames: SseFrame[] = [];
      for await (const f of readSseFrames(res.body!)) frames.push(f);
      const sid = (frames[0] as { data: string }).data;
      const created = await waitFor(() => rec.events.find((e) => e.type === "session_created"));
      expect(created).toMatchObject({ sid, server: "local" });
    });
  });
});

describe("relay refusals and broken servers", () => {
  it("unknown server name → 404", async () => {
    await expectDetail(await relayRequest("/api/servers/nope/health"), 404, /unknown server "nope"/);
  });

  it("link-local and metadata addresses → 403 with the reason", async () => {
    await expectDetail(await relayRequest("/api/servers/meta/health"), 403, /metadata/);
    await expectDetail(await relayRequest("/api/servers/metaname/health"), 403, /metadata/);
    await expectDetail(await relayRequest("/api/servers/linklocal/health"), 403, /link-local/);
    await expectDetail(await relayRequest("/api/servers/linklocal6/health"), 403, /link-local/);
  });

  it("a redirect to the same server is mapped into the relay; elsewhere → 502", async () => {
    const same = await relayRequest("/api/servers/redir/math/tools");
    expect(same.status).toBe(308);
    expect(same.headers.get("location")).toBe("/api/servers/redir/other/tools");
    const abs = await relayRequest("/api/servers/redir/health");
    expect(abs.status).toBe(307);
    expect(abs.headers.get("location")).toBe("/api/servers/redir/list_environments?x=1");
    await expectDetail(
      await relayRequest("/api/servers/redir/list_environments"),
      502,
      new RegExp(`redirected /list_environments to http://127.0.0.1:${ELSEWHERE}/health`),
    );
  });

  it("a down server → 502 unreachable; a silent one → 504 timed out; an HTML one → 502 not ORS", async () => {
    await recording(async (rec) => {
      await expectDetail(
        await relayRequest("/api/servers/down/health"),
        502,
        /is unreachable: connection refused/,
      );
      await expectDetail(await relayRequest("/api/servers/silent/health"), 504, /timed out after 1 s/);
      await expectDetail(
        await relayRequest("/api/servers/html/list_environments"),
        502,
        /not an ORS server.*HTML/,
      );
      const viaClient = await viaRelay("html")
        .health()
        .catch((e: OrsClientError) => e);
      // The relay marks its own failures, so the client tells "not ORS" and "unreachable" apart.
      expect(viaClient).toMatchObject({ kind: "not-ors", status: 502 });
      expect((viaClient as OrsClientError).detail).toMatch(/not an ORS server/);
      const down = await viaRelay("down")
        .createSession()
        .catch((e: OrsClientError) => e);
      expect(down).toMatchObject({ kind: "unreachable", status: 502 });
      expect((down as OrsClientError).detail).toMatch(/unreachable/);
      const silent = await viaRelay("silent")
        .health()
        .catch((e: OrsClientError) => e);
      expect(silent).toMatchObject({ kind: "timeout", status: 504 });
      expect(rec.events.filter((e) => e.type === "request_failed").map((e) => e.status)).toEqual([
        502, 504, 502, 502, 502, 504,
      ]);
    });
  });
});

describe("server registry", () => {
  it("lists servers with sources, adds loopback user servers, refuses others, removes them", async () => {
    const names = (await t.registry.list()).map((s) => `${s.name}:${s.source}`);
    expect(names.slice(0, 2)).toEqual(["local:builtin", "second:env"]);
    const added = await t.registry.add({ name: "mine", url: `${second.url}/`, apiKey: "k" });
    expect(added).toMatchObject({ name: "mine", url: second.url, source: "user" });
    expect(await viaRelay("mine").listEnvironments()).toContain("math");
    await expect(t.registry.add({ name: "mine", url: second.url })).rejects.toMatchObject({ status: 409 });
    await expect(t.registry.add({ name: "Bad Name", url: second.url })).rejects.toMatchObject({
      status: 400,
    });
    await expect(t.registry.add({ name: "call", url: second.url })).rejects.toMatchObject({ status: 400 });
    await expect(t.registry.add({ name: "far", url: "http://10.1.2.3:8080" })).rejects.toMatchObject({
      status: 403,
      detail: expect.stringMatching(/not a loopback address/),
    });
    await expect(
      t.registry.add({ name: "ll", url: "http://[::ffff:169.254.169.254]/" }),
    ).rejects.toMatchObject({
      status: 403,
      detail: expect.stringMatching(/metadata/),
    });
    await expect(t.registry.add({ name: "ftp", url: "ftp://127.0.0.1/" })).rejects.toMatchObject({
      status: 403,
    });
    await expect(t.registry.remove("second")).rejects.toMatchObject({ status: 403 });
    await t.registry.remove("mine");
    expect((await t.registry.list()).some((s) => s.name === "mine")).toBe(false);
    await expectDetail(await relayRequest("/api/servers/mine/health"), 404, /unknown server/);
  });

  it("checks health with a short timeout and says why a server is unhealthy", async () => {
    const get = async (n: string) => (await t.registry.get(n))!;
    expect(await checkServerHealth(t.registry, await get("local"))).toMatchObject({ ok: true, status: 200 });
    expect(await checkServerHealth(t.registry, await get("second"))).toMatchObject({ ok: true });
    expect(await checkServerHealth(t.registry, await get("down"))).toMatchObject({
      ok: false,
      detail: expect.stringMatching(/unreachable/),
    });
    const silent = await checkServerHealth(t.registry, await get("silent"), 300);
    expect(silent).toMatchObject({ ok: false, detail: expect.stringMatching(/timed out/) });
    expect(silent.latencyMs).toBeLessThan(2_000);
    expect(await checkServerHealth(t.registry, await get("html"))).toMatchObject({
      ok: false,
      detail: expect.stringMatching(/not an ORS server/),
    });
    expect(await checkServerHealth(t.registry, await get("meta"))).toMatchObject({
      ok: false,
      detail: expect.stringMatching(/refused/),
    });
  });
});
