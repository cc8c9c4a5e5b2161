// A server at capacity, through the relay: its 429 and Retry-After reach the client unchanged (our
// host at its session limit, and a server that answers a plain-text 429), so clients and runs
// honour them as they would directly.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { builtinEnvironments } from "@/envs";
import { createOrsHandler, type OrsHandler } from "@/lib/ors/host";
import { makeRelay, relayFetch, type TestRelay } from "./helpers";

let host: OrsHandler;
let busy: Server;
let t: TestRelay;

beforeAll(async () => {
  host = createOrsHandler(builtinEnvironments, { maxSessions: 1, retryAfterS: 7, log: () => {} });
  busy = createServer((_req, res) => {
    res.writeHead(429, { "content-type": "text/plain", "retry-after": "12" });
    res.end("slow down");
  });
  await new Promise<void>((r) => busy.listen(0, "127.0.0.1", () => r()));
  t = makeRelay(host, { busy: `http://127.0.0.1:${(busy.address() as AddressInfo).port}` });
});

afterAll(async () => {
  await host.close();
  busy.closeAllConnections();
  await new Promise<void>((r) => busy.close(() => r()));
  t.cleanup();
});

const post = (url: string, sid: string, body: unknown) =>
  relayFetch(t.relay)(url, {
    method: "POST",
    headers: { "x-session-id": sid, "content-type": "application/json" },
    body: JSON.stringify(body),
  });

describe("429 through the relay", () => {
  it("passes the host's 429, its Retry-After and its detail through unchanged", async () => {
    const create = { env_name: "math", split: "train", index: 0 };
    expect((await post("http://app.test/api/servers/local/create", "a", create)).status).toBe(200);
    const res = await post("http://app.test/api/servers/local/create", "b", create);
    expect(res.status).toBe(429);
    expect(res.headers.get("retry-after")).toBe("7");
    expect(await res.json()).toEqual({
      detail:
        "Too many sessions: this server holds at most 1 at once (ORS_MAX_SESSIONS). Delete finished sessions with /delete, or retry after 7 s",
    });
  });

  it("passes another server's plain-text 429 and its Retry-After", async () => {
    const res = await relayFetch(t.relay)("http://app.test/api/servers/busy/list_environments");
    expect(res.status).toBe(429);
    expect(res.headers.get("retry-after")).toBe("12");
    expect(await res.json()).toEqual({ detail: "slow down" });
  });
});
