// The probes' lean fetch (lib/conformance/gaming/lean-fetch.ts) against a real node:http server: the
// method, headers and body sent as given, the answer whole with its status and headers, answers
// without a body, keep-alive (one connection for many requests), and an abort while waiting.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createLeanFetch } from "@/lib/conformance/gaming/lean-fetch";
import { readBody, startHttpServer } from "../../relay/helpers";

let server: Awaited<ReturnType<typeof startHttpServer>>;
let connections = 0;
const lean = createLeanFetch(2);

beforeAll(async () => {
  server = await startHttpServer(0, async (req, res) => {
    if (req.url === "/slow") return; // never answers
    if (req.url === "/empty") {
      res.writeHead(204).end();
      return;
    }
    const body = (await readBody(req)).toString();
    res.writeHead(201, { "content-type": "application/json", "x-seen": req.headers["x-session-id"] ?? "" });
    res.end(JSON.stringify({ method: req.method, body }));
  });
  server.server.on("connection", () => connections++);
});
afterAll(async () => {
  lean.close();
  await server?.close();
});

describe("createLeanFetch", () => {
  it("sends the request as given and answers it whole", async () => {
    const res = await lean(`${server.url}/x`, {
      method: "POST",
      headers: { "X-Session-ID": "s1" },
      body: '{"a":1}',
    });
    expect(res.status).toBe(201);
    expect(res.headers.get("x-seen")).toBe("s1");
    expect(await res.json()).toEqual({ method: "POST", body: '{"a":1}' });
    expect((await lean(`${server.url}/empty`)).status).toBe(204);
  });

  it("keeps its connections alive, and an abort ends a request that waits", async () => {
    const before = connections;
    for (let i = 0; i < 10; i++) await (await lean(`${server.url}/x`)).text();
    expect(connections - before).toBeLessThanOrEqual(1);
    const ac = new AbortController();
    const pending = lean(`${server.url}/slow`, { signal: ac.signal });
    ac.abort(new Error("stop"));
    await expect(pending).rejects.toThrow("stop");
  });
});
