// A server at capacity (docs/runs.md "Capacity"): an ORS server answering 429 with Retry-After —
// here a proxy on loopback in front of the reference-shaped server — is waited for, as long as it
// asks, through the relay (which passes Retry-After on), and the run's episodes play as usual.
import { afterAll, beforeAll, expect, it } from "vitest";
import { type RunningReferenceServer, startReferenceServer } from "../fixtures/reference-server/spawn";
import { readBody, startHttpServer } from "../relay/helpers";
import { type TestPlayground, testPlayground } from "./helpers";

let ref: RunningReferenceServer;
let proxy: Awaited<ReturnType<typeof startHttpServer>>;
let t: TestPlayground;
const refused: number[] = [];
let busy = 2;

beforeAll(async () => {
  ref = await startReferenceServer({ setupMs: 5 });
  proxy = await startHttpServer(0, async (req, res) => {
    const body = await readBody(req);
    if (req.url === "/create_session" && busy > 0) {
      busy--;
      refused.push(Date.now());
      res.writeHead(429, { "content-type": "application/json", "retry-after": "1" });
      res.end(JSON.stringify({ detail: "too many sessions; come back in a second" }));
      return;
    }
    const headers = new Headers();
    for (const [k, v] of Object.entries(req.headers))
      if (typeof v === "string" && k !== "host" && k !== "content-length") headers.set(k, v);
    const up = await fetch(`${ref.url}${req.url}`, {
      method: req.method,
      headers,
      body: req.method === "GET" ? undefined : new Uint8Array(body),
      redirect: "manual",
    });
    res.writeHead(up.status, Object.fromEntries(up.headers));
    res.end(Buffer.from(await up.arrayBuffer()));
  });
  const port = (proxy.server.address() as { port: number }).port;
  t = testPlayground({ ORS_SERVERS: `busy=http://127.0.0.1:${port}` });
});

afterAll(async () => {
  await t?.close();
  await proxy?.close();
  await ref?.stop();
});

it("waits as long as Retry-After says, then plays", async () => {
  const started = Date.now();
  const run = await t.pg.runs.start({
    server: "busy",
    env: "farmplanner",
    split: "train",
    tasks: "0",
    policy: { kind: "random", seed: 3, maxTurns: 2 },
  });
  await t.pg.runs.settled(run.id);
  const [e] = await t.pg.store.runEpisodes(run.id);
  expect(e).toMatchObject({ status: "done", turns: 2, steps: 2 });
  expect(refused.length).toBe(2);
  // Two refusals, a second each: the session came two seconds later.
  expect(e!.startedAt! + e!.durationMs! - started).toBeGreaterThanOrEqual(1900);
  expect(refused[1]! - refused[0]!).toBeGreaterThanOrEqual(950);
});
