// What the relay refuses before contacting anything (non-ORS paths and methods), how it catches
// loops without trusting client headers, and that it connects to the address it checked (a
// resolver that answers differently the second time, real loopback servers on free ports).
import type { IncomingMessage } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { builtinEnvironments } from "@/envs";
import { createOrsHandler, type OrsHandler } from "@/lib/ors/host";
import { LOOP_HEADER, orsPathFromUrl, type Relay } from "@/lib/relay/relay";
import { makeRelay, proxyToHandler, startHttpServer, type TestRelay } from "./helpers";

const APP = "http://app.test";

let local: OrsHandler;
let t: TestRelay;
const closers: Array<() => Promise<void>> = [];
const cleanups: Array<() => void> = [];
/** Every request that reached the spy server: method and path. */
const spied: string[] = [];
/** Every request that reached the app serving `t.relay` (which its server `loopy` points back at). */
const loopArrivals: IncomingMessage[] = [];

/**
 * Serves `/api/servers/<name>/...` of a relay over real HTTP on a free port (the app's route, in
 * small). The relay is asked for per request, so a relay whose registry names this app's own URL
 * can be built once the URL is known.
 */
async function serveRelay(relay: () => Relay, arrivals: IncomingMessage[]) {
  const app = await startHttpServer(0, (req, res) => {
    arrivals.push(req);
    const name = decodeURIComponent(req.url!.split("/")[3] ?? "");
    void proxyToHandler((r) => relay().handle(r, name, orsPathFromUrl(r.url, name)), req, res);
  });
  closers.push(app.close);
  return app;
}

beforeAll(async () => {
  local = createOrsHandler(builtinEnvironments);
  const spy = await startHttpServer(0, (req, res) => {
    spied.push(`${req.method} ${req.url}`);
    res.writeHead(200, { "content-type": "application/json" });
    res.end(req.method === "HEAD" ? undefined : JSON.stringify({ status: "ok" }));
  });
  closers.push(spy.close);
  const loopApp = await serveRelay(() => t.relay, loopArrivals);
  t = makeRelay(local, {
    spy: spy.url,
    loopy: `${loopApp.url}/api/servers/loopy`,
  });
  cleanups.push(t.cleanup);
});

afterAll(async () => {
  await Promise.all(closers.map((c) => c()));
  await local?.close();
  for (const c of cleanups) c();
});

function relayRequest(relay: Relay, path: string, init?: RequestInit, orsPath?: string): Promise<Response> {
  const req = new Request(`${APP}${path}`, init);
  const name = decodeURIComponent(new URL(req.url).pathname.split("/")[3]!);
  return relay.handle(req, name, orsPath ?? orsPathFromUrl(req.url, name));
}

async function detailOf(res: Response): Promise<string> {
  expect(res.headers.get("content-type")).toContain("application/json");
  return ((await res.json()) as { detail: string }).detail;
}

describe("the relay forwards the ORS endpoint shapes and their methods only", () => {
  it("refuses other methods with 405, an Allow header and a detail, before contacting the server", async () => {
    const cases: Array<[string, string, string]> = [
      ["OPTIONS", "/api/servers/spy/health", "GET, HEAD"],
      ["PUT", "/api/servers/spy/math/call", "POST"],
      ["DELETE", "/api/servers/spy/delete", "POST"],
      ["PATCH", "/api/servers/spy/create", "POST"],
      ["GET", "/api/servers/spy/math/call", "POST"],
      ["POST", "/api/servers/spy/health", "GET, HEAD"],
      ["DELETE", "/api/servers/spy/math/tools", "GET, HEAD"],
    ];
    for (const [method, path, allow] of cases) {
      const res = await relayRequest(t.relay, path, { method, body: method === "GET" ? undefined : "{}" });
      expect(res.status, `${method} ${path}`).toBe(405);
      expect(res.headers.get("allow")).toBe(allow);
      expect(await detailOf(res)).toMatch(new RegExp(`takes ${allow.replace(", ", " or ")}, not ${method}`));
    }
    expect(spied).toEqual([]);
  });

  it("refuses paths that are not ORS shapes with 404 naming what is allowed", async () => {
    const paths = [
      "/api/servers/spy",
      "/api/servers/spy/",
      "/api/servers/spy/admin",
      "/api/servers/spy/api/servers/spy/health",
      "/api/servers/spy/math/call/extra",
      "/api/servers/spy/math%2Fcall",
      "/api/servers/spy/health%3Fx",
      "/api/servers/spy/math/%2e%2e/extra", // the URL parser resolves it to /extra: not an ORS shape
      "/api/servers/spy/a/../../health", // resolved to /api/health: not this server at all
      "/api/servers/spy//health",
    ];
    for (const path of paths) {
      const res = await relayRequest(t.relay, path);
      expect(res.status, path).toBe(404);
      expect(await detailOf(res), path).toMatch(/not an ORS endpoint|unknown server|dot segment/);
    }
    const res = await relayRequest(t.relay, "/api/servers/spy/nope");
    expect(await detailOf(res)).toMatch(/forwards only GET \/health, .*POST \/<env>\/call/);
    expect(spied).toEqual([]);
  });

  it("refuses encoded slashes, dot segments and control characters in environment names", async () => {
    const cases: Array<[string, RegExp]> = [
      ["/a%2F..%2Fhealth/call", /encoded slash/],
      ["/a%5Chealth/tools", /encoded slash/],
      ["/%2e%2e/tools", /dot segment/],
      ["/../health", /dot segment/],
      ["/./health", /dot segment/],
      ["/math%00/tools", /control character/],
    ];
    for (const [orsPath, why] of cases) {
      // Handed to the relay as a path (an in-process client's orsPath is not normalised by a URL parser).
      const method = orsPath.endsWith("call") ? "POST" : "GET";
      const res = await relayRequest(
        t.relay,
        "/api/servers/spy/x",
        { method, body: method === "POST" ? "{}" : undefined },
        orsPath,
      );
      expect(res.status, orsPath).toBe(404);
      expect(await detailOf(res), orsPath).toMatch(why);
    }
    const badEscape = await relayRequest(t.relay, "/api/servers/spy/x", {}, "/%zz/tools");
    expect(badEscape.status).toBe(400);
    expect(spied).toEqual([]);
  });

  it("refuses query strings (ORS takes none), including query-only paths", async () => {
    const q = await relayRequest(t.relay, "/api/servers/spy/health?x=/../admin");
    expect(q.status).toBe(400);
    expect(await detailOf(q)).toMatch(/take no query string/);
    const queryOnly = await relayRequest(t.relay, "/api/servers/spy?/health");
    expect(queryOnly.status).toBe(404);
    expect(spied).toEqual([]);
  });

  it("forwards an ORS shape with its method, HEAD for GET endpoints, on the canonical path", async () => {
    expect((await relayRequest(t.relay, "/api/servers/spy/health")).status).toBe(200);
    const head = await relayRequest(t.relay, "/api/servers/spy/list_environments", { method: "HEAD" });
    expect(head.status).toBe(200);
    const trailing = await relayRequest(t.relay, "/api/servers/spy/my%20env/tools/");
    expect(trailing.status).toBe(200);
    expect(spied).toEqual(["GET /health", "HEAD /list_environments", "GET /my%20env/tools"]);
    spied.length = 0;
  });
});

describe("loop detection does not trust client headers", () => {
  it("a server that points back at this app's relay is refused (508) on the first loop", async () => {
    const arrivals = loopArrivals;
    arrivals.length = 0;
    const res = await relayRequest(t.relay, "/api/servers/loopy/health");
    expect(res.status).toBe(508);
    expect(await detailOf(res)).toMatch(/came back to the relay that sent it.*"loopy".*a loop/);
    expect(arrivals).toHaveLength(1);
    expect(arrivals[0]!.headers[LOOP_HEADER]).toMatch(/^[A-Za-z0-9_-]{24}$/);

    // Hop headers a client makes up change nothing: a negative count does not allow more hops ...
    for (const hops of ["-2000", "-1", "0", "999999", "NaN"]) {
      arrivals.length = 0;
      const forged = await relayRequest(t.relay, "/api/servers/loopy/health", {
        headers: { "X-ORS-Relay-Hops": hops },
      });
      expect(forged.status).toBe(508);
      expect(arrivals).toHaveLength(1);
      // ... and a huge one does not refuse a request that is no loop.
      const fine = await relayRequest(t.relay, "/api/servers/local/health", {
        headers: { "X-ORS-Relay-Hops": hops },
      });
      expect(fine.status).toBe(200);
    }
    // Marks a client makes up (many, or any shape) neither hide the loop nor cause a refusal.
    arrivals.length = 0;
    const junk = Array.from(
      { length: 40 },
      (_, i) => `forged-mark-number-${String(i).padStart(4, "0")}`,
    ).join(",");
    const forgedVia = await relayRequest(t.relay, "/api/servers/loopy/health", {
      headers: { [LOOP_HEADER]: junk },
    });
    expect(forgedVia.status).toBe(508);
    expect(arrivals).toHaveLength(1);
    const localVia = await relayRequest(t.relay, "/api/servers/local/health", {
      headers: { [LOOP_HEADER]: junk },
    });
    expect(localVia.status).toBe(200);
  });

  it("a loop through two apps is caught where it closes", async () => {
    const arrivalsA: IncomingMessage[] = [];
    const arrivalsB: IncomingMessage[] = [];
    let a: TestRelay | undefined;
    let b: TestRelay | undefined;
    const appA = await serveRelay(() => a!.relay, arrivalsA);
    const appB = await serveRelay(() => b!.relay, arrivalsB);
    a = makeRelay(local, { tob: `${appB.url}/api/servers/toa` });
    b = makeRelay(local, { toa: `${appA.url}/api/servers/tob` });
    cleanups.push(a.cleanup, b.cleanup);
    const res = await relayRequest(a.relay, "/api/servers/tob/health");
    expect(res.status).toBe(508);
    expect(await detailOf(res)).toMatch(/a loop/);
    expect(arrivalsB).toHaveLength(1);
    expect(arrivalsA).toHaveLength(1);
    expect(String(arrivalsA[0]!.headers[LOOP_HEADER]).split(",")).toHaveLength(2);
  });
});

describe("the relay connects to the address it checked", () => {
  it("a name that resolves differently the second time: the connection follows the check", async () => {
    const hits: string[] = [];
    const first = await startHttpServer(0, (req, res) => {
      hits.push(`127.0.0.1 ${req.headers.host}`);
      res.writeHead(200, { "content-type": "application/json" });
      res.end('{"status":"ok"}');
    });
    // The same port on a second loopback address: one `host:port` that either address answers.
    const PINNED = new URL(first.url).port;
    const second = await startHttpServer(
      Number(PINNED),
      (req, res) => {
        hits.push(`127.0.0.2 ${req.headers.host}`);
        res.writeHead(200, { "content-type": "application/json" });
        res.end('{"status":"ok"}');
      },
      "127.0.0.2",
    );
    closers.push(first.close, second.close);
    const answers = [["127.0.0.1"], ["169.254.169.254"], ["127.0.0.2"]];
    const asked: string[] = [];
    const r = makeRelay(
      local,
      { rebind: `http://rebind.invalid:${PINNED}` },
      {
        resolve: async (host) => {
          asked.push(host);
          return answers[Math.min(asked.length - 1, answers.length - 1)]!;
        },
      },
    );
    cleanups.push(r.cleanup);

    // The system resolver knows no such name: only the checked address can have been used.
    await expect(fetch(`http://rebind.invalid:${PINNED}/health`)).rejects.toThrow();

    const ok = await relayRequest(r.relay, "/api/servers/rebind/health");
    expect(ok.status).toBe(200);
    expect(asked).toEqual(["rebind.invalid"]);
    expect(hits).toEqual([`127.0.0.1 rebind.invalid:${PINNED}`]);

    // Now the name rebinds to a metadata address: refused, and nothing is contacted.
    const refused = await relayRequest(r.relay, "/api/servers/rebind/health");
    expect(refused.status).toBe(403);
    expect(await detailOf(refused)).toMatch(/metadata/);
    expect(hits).toHaveLength(1);

    // And to another loopback address: the connection goes where this check said, once.
    const moved = await relayRequest(r.relay, "/api/servers/rebind/health");
    expect(moved.status).toBe(200);
    expect(asked).toHaveLength(3);
    expect(hits).toEqual([`127.0.0.1 rebind.invalid:${PINNED}`, `127.0.0.2 rebind.invalid:${PINNED}`]);
  });
});
