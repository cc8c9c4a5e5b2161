// A server added at run time must answer like an ORS server (/health, /list_environments) before the
// relay forwards anything to it (lib/registry/ors-probe.ts): real non-ORS HTTP processes on loopback
// receive no POST, only the probe's two GETs; an ORS server is asked once and then trusted for a
// while; a server that is down or silent is reported as such; configured servers are not asked.
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { RELAY_FAILURE_HEADER } from "@/lib/ors/protocol";
import { createOrsProbe } from "@/lib/registry";
import { createPinnedFetch } from "@/lib/security/pinned-fetch";
import { makeRelay, type TestRelay } from "../relay/helpers";

/**
 * A real process that is not an ORS server: `html` answers every request with a page (a web app),
 * `json` with `{"ok": true}` (some JSON API), `health` answers /health like ORS and nothing else.
 * It prints `port N`; `GET /__seen` answers the requests it got before (`METHOD PATH`).
 */
const NOT_ORS = `
const mode = process.argv[1];
const seen = [];
const server = require("node:http").createServer((req, res) => {
  req.resume();
  if (req.url === "/__seen") { res.writeHead(200, { "content-type": "application/json" }); return res.end(JSON.stringify(seen)); }
  seen.push(req.method + " " + req.url);
  if (mode === "html") { res.writeHead(200, { "content-type": "text/html" }); return res.end("<h1>admin</h1>"); }
  if (mode === "health" && req.url === "/health") { res.writeHead(200, { "content-type": "application/json" }); return res.end('{"status":"ok"}'); }
  if (mode === "health") { res.writeHead(404, { "content-type": "application/json" }); return res.end('{"detail":"Not Found"}'); }
  res.writeHead(200, { "content-type": "application/json" });
  res.end('{"ok":true}');
});
server.listen(0, "127.0.0.1", () => console.log("port " + server.address().port));
process.on("SIGTERM", () => process.exit(0));
`;

interface NotOrs {
  url: string;
  /** What reached the process, in order (asked over HTTP, so nothing is still on its way). */
  requests(): Promise<string[]>;
  stop(): Promise<void>;
}

async function startNotOrs(mode: "html" | "json" | "health"): Promise<NotOrs> {
  const child: ChildProcess = spawn(process.execPath, ["-e", NOT_ORS, mode], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  let out = "";
  child.stdout!.on("data", (d: Buffer) => {
    out += d.toString();
  });
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no port: ${out}`)), 10_000);
    child.stdout!.on("data", () => {
      const m = /port (\d+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(Number(m[1]));
      }
    });
  });
  return {
    url: `http://127.0.0.1:${port}`,
    requests: async () => (await (await fetch(`http://127.0.0.1:${port}/__seen`)).json()) as string[],
    async stop() {
      if (child.exitCode !== null) return;
      const exited = once(child, "exit");
      child.kill("SIGTERM");
      await exited;
    },
  };
}

/** An in-process ORS-shaped server whose answers can be switched to a non-ORS page. */
function orsLike() {
  const seen: string[] = [];
  let speaksOrs = true;
  const server: Server = createServer((req, res) => {
    seen.push(`${req.method} ${req.url}`);
    req.resume();
    if (!speaksOrs) {
      res.writeHead(200, { "content-type": "text/html" });
      return res.end("<p>moved on</p>");
    }
    res.setHeader("content-type", "application/json");
    if (req.url === "/health") return res.end('{"status":"ok"}');
    if (req.url === "/list_environments") return res.end('["count"]');
    if (req.url === "/create_session") return res.end('{"sid":"s1"}');
    res.statusCode = 404;
    res.end('{"detail":"Not Found"}');
  });
  return {
    seen,
    server,
    stopSpeakingOrs: () => {
      speaksOrs = false;
    },
    async listen(): Promise<string> {
      await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
      return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    },
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(resolve));
    },
  };
}

const local = async () => new Response("{}", { headers: { "content-type": "application/json" } });
let t: TestRelay;
let clock = 1_000_000;
const relayRequest = (name: string, orsPath: string, method = "POST") =>
  t.relay.handle(
    new Request(`http://app.test/api/servers/${name}${orsPath}`, {
      method,
      headers: { "content-type": "application/json" },
      body: method === "POST" ? "{}" : undefined,
    }),
    name,
    orsPath,
  );
const detailOf = async (res: Response) => ((await res.json()) as { detail: string }).detail;

describe("the relay and a server added at run time", () => {
  const notOrs: NotOrs[] = [];
  const pinned = createPinnedFetch({ maxPools: 4 });

  beforeAll(() => {
    t = makeRelay(local, {});
  });
  afterEach(async () => {
    await Promise.all(notOrs.splice(0).map((s) => s.stop()));
  });
  afterAll(async () => {
    t.cleanup();
    await pinned.close();
  });

  it("forwards nothing to a non-ORS process: a web page, a JSON API, a server with /health only", async () => {
    for (const mode of ["html", "json", "health"] as const) {
      const server = await startNotOrs(mode);
      notOrs.push(server);
      const name = `not-ors-${mode}`;
      // Adding it works (it may not be running yet); using it through the relay does not.
      await t.registry.add({ name, url: server.url });
      for (const path of ["/create_session", "/count/call", "/create"]) {
        const res = await relayRequest(name, path);
        expect(res.status, `${mode} ${path}`).toBe(502);
        expect(res.headers.get(RELAY_FAILURE_HEADER)).toBe("not-ors");
        expect(await detailOf(res)).toMatch(
          new RegExp(
            `^server "${name}" \\(${server.url.replace(/\./g, "\\.")}\\) does not answer like an ORS server: GET /(health|list_environments) answered`,
          ),
        );
      }
      // A GET is not forwarded either.
      expect((await relayRequest(name, "/list_environments", "GET")).status).toBe(502);
      // What reached the process: the probe's GETs, never a POST or anything else.
      const got = new Set(await server.requests());
      expect(
        [...got].every((r) => r === "GET /health" || r === "GET /list_environments"),
        [...got].join(),
      ).toBe(true);
      expect(got.has("GET /health")).toBe(true);
      expect(got.has("GET /list_environments")).toBe(mode === "health");
    }
  });

  it("says a server that is down is unreachable, and one that never answers timed out", async () => {
    const down = orsLike();
    const url = await down.listen();
    await down.close();
    await t.registry.add({ name: "down", url });
    const res = await relayRequest("down", "/create_session");
    expect(res.status).toBe(502);
    expect(res.headers.get(RELAY_FAILURE_HEADER)).toBe("unreachable");
    expect(await detailOf(res)).toBe(`server "down" (${url}) is unreachable: connection refused`);

    const silent = createServer(() => {});
    await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
    try {
      const probe = createOrsProbe({ fetch: pinned, timeoutMs: 200 });
      const entry = {
        name: "silent",
        source: "user" as const,
        url: `http://127.0.0.1:${(silent.address() as AddressInfo).port}`,
      };
      expect(await probe.check(entry, ["127.0.0.1"])).toEqual({
        ok: false,
        status: 504,
        failure: "timeout",
        reason: expect.stringMatching(/^did not answer GET \/health within 0\.2 s/),
      });
    } finally {
      silent.closeAllConnections();
      await new Promise((r) => silent.close(r));
    }
  });

  it("asks an ORS server once, forwards, trusts it a while, and asks again after", async () => {
    const ors = orsLike();
    const url = await ors.listen();
    try {
      const probe = createOrsProbe({ fetch: pinned, trustMs: 60_000, now: () => clock });
      const entry = { name: "ors", source: "user" as const, url };
      expect(await probe.check(entry, ["127.0.0.1"])).toEqual({ ok: true });
      expect(await probe.check(entry, ["127.0.0.1"])).toEqual({ ok: true });
      expect(ors.seen).toEqual(["GET /health", "GET /list_environments"]);
      // The port changes hands: within the trust window nothing is asked; after it, the new owner is.
      ors.stopSpeakingOrs();
      clock += 61_000;
      expect(await probe.check(entry, ["127.0.0.1"])).toMatchObject({ ok: false, failure: "not-ors" });
      expect(ors.seen.slice(2)).toEqual(["GET /health"]);

      // Through the registry and the relay: the POST reaches the server once it has answered.
      const speaking = orsLike();
      const speakingUrl = await speaking.listen();
      try {
        await t.registry.add({ name: "speaks-ors", url: speakingUrl });
        const res = await relayRequest("speaks-ors", "/create_session");
        expect(res.status).toBe(200);
        expect(await res.json()).toEqual({ sid: "s1" });
        expect((await relayRequest("speaks-ors", "/create_session")).status).toBe(200);
        expect(speaking.seen).toEqual([
          "GET /health",
          "GET /list_environments",
          "POST /create_session",
          "POST /create_session",
        ]);
      } finally {
        await speaking.close();
      }
    } finally {
      await ors.close();
    }
  });

  it("does not ask configured servers (ORS_SERVERS, servers.json): the operator chose them", async () => {
    const server = await startNotOrs("json");
    notOrs.push(server);
    const configured = makeRelay(local, { cfg: server.url });
    try {
      const res = await configured.relay.handle(
        new Request("http://app.test/api/servers/cfg/create_session", { method: "POST", body: "{}" }),
        "cfg",
        "/create_session",
      );
      await res.text();
      expect(await server.requests()).toEqual(["POST /create_session"]);
    } finally {
      configured.cleanup();
    }
  });
});

describe("the conformance check of a server added at run time", () => {
  it("runs only once the server answers like ORS (the check sends POSTs too)", async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), "ors-probe-check-"));
    process.env.PLAYGROUND_DATA_DIR = dataDir;
    const server = await startNotOrs("html");
    const playground = (await import("@/lib/playground")).getPlayground();
    try {
      const { POST } = await import("@/app/api/servers/[name]/check/route");
      await playground.registry.add({ name: "admin-page", url: server.url });
      const res = await POST(
        new Request("http://app.test/api/servers/admin-page/check", {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: "{}",
        }),
        { params: Promise.resolve({ name: "admin-page" }) },
      );
      expect(res.status).toBe(502);
      expect(await detailOf(res)).toMatch(
        /^server "admin-page" \(.*\) does not answer like an ORS server: GET \/health/,
      );
      expect(await server.requests()).toEqual(["GET /health"]);
    } finally {
      await playground.close();
      await server.stop();
      delete process.env.PLAYGROUND_DATA_DIR;
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
