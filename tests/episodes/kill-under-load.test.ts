// "What a client was told is on disk" (issue 30): a real recording process (./relay-process.ts) under
// 20 concurrent clients calling through `/api/servers/local`, killed with SIGKILL after a few
// seconds; every call result a client received whole (its `end` frame parsed) is then a recorded step
// in the store the process wrote to — a SQLite data folder, and a PostgreSQL database.
import { once } from "node:events";
import { afterAll, describe, expect, it, onTestFinished } from "vitest";
import { readSseFrames } from "@/lib/ors/protocol";
import { openPostgresDatabase } from "@/lib/store/postgres/db";
import { openPostgresStore } from "@/lib/store/postgres/store";
import { openStore } from "@/lib/store/sqlite/store";
import type { TrajectoryStore } from "@/lib/store/types";
import { type Proc, start } from "../environments/helpers";
import { REPO_ROOT } from "../relay/helpers";
import { postgresDatabase } from "../support/postgres";
import { tempDir } from "./helpers";

const CLIENTS = 20;
/** How long the clients call before the kill. */
const LOAD_MS = 4_000;

const pgDb = await postgresDatabase("kill_under_load");
const procs: Proc[] = [];
afterAll(async () => {
  for (const p of procs) await p.stop();
});

interface Client {
  sid: string;
  /** The texts whose echo came back whole, in order. */
  received: string[];
}

/** One client: a session on `dice`, then `echo` calls one after another until the process dies. */
async function client(base: string, n: number, stop: AbortSignal): Promise<Client> {
  const post = (path: string, body: unknown, sid?: string) =>
    fetch(`${base}${path}`, {
      method: "POST",
      headers: { "content-type": "application/json", ...(sid ? { "x-session-id": sid } : {}) },
      body: JSON.stringify(body),
      signal: stop,
    });
  const { sid } = (await (await post("/create_session", {})).json()) as { sid: string };
  expect((await post("/create", { env_name: "dice", split: "train", index: 0 }, sid)).status).toBe(200);
  const me: Client = { sid, received: [] };
  try {
    for (let i = 0; ; i++) {
      const text = `c${n}-${i}`;
      const res = await post("/dice/call", { name: "echo", input: { text } }, sid);
      let result = "";
      for await (const f of readSseFrames(res.body!, stop)) {
        if (f.kind !== "event") continue;
        if (f.event === "chunk") result += f.data;
        if (f.event === "end") {
          result += f.data;
          // Received: the whole result is here, whatever happens to the connection next.
          const out = JSON.parse(result) as { output: { blocks: { text: string }[] } };
          expect(out.output.blocks[0]!.text).toBe(`echo: ${text}`);
          me.received.push(text);
        }
      }
    }
  } catch {
    // The process was killed: this client's calls end here.
  }
  return me;
}

/** Every received call is a step of its session's trajectory, in order, with its result. */
async function expectAllRecorded(store: TrajectoryStore, clients: Client[]) {
  let lost = 0;
  for (const c of clients) {
    const t = await store.findBySession("local", c.sid);
    expect(t, `the episode of ${c.sid}`).not.toBeNull();
    const steps = (await store.get(t!.id))!.steps;
    c.received.forEach((text, i) => {
      const s = steps[i];
      if (!s || s.input.text !== text || s.ok !== true || s.blocks[0]?.type !== "text") lost++;
      else expect(s.blocks[0].text).toBe(`echo: ${text}`);
    });
  }
  expect(lost, "calls a client received whose step is not in the store").toBe(0);
}

async function loadThenKill(env: Record<string, string>): Promise<Client[]> {
  const proc = start(["--import", "tsx", "tests/episodes/relay-process.ts"], {
    cwd: REPO_ROOT,
    env: { PLAYGROUND_AUTH: "none", PLAYGROUND_TOKEN: "", ...env },
  });
  procs.push(proc);
  const [, url] = await proc.waitFor(/relay on (http:\/\/\S+) /, 60_000);
  const stop = new AbortController();
  const clients = Promise.all(
    Array.from({ length: CLIENTS }, (_, n) => client(`${url}/api/servers/local`, n, stop.signal)),
  );
  await new Promise((r) => setTimeout(r, LOAD_MS));
  const exited = once(proc.child, "exit");
  process.kill(proc.child.pid!, "SIGKILL");
  await exited;
  stop.abort();
  const got = await clients;
  const total = got.reduce((n, c) => n + c.received.length, 0);
  console.log(`${total} calls received by ${CLIENTS} clients before the kill`);
  // The load was real: every client had calls answered.
  expect(got.every((c) => c.received.length > 0)).toBe(true);
  return got;
}

describe("kill -9 under load: every call a client received is in the store", () => {
  it("on SQLite", async () => {
    const dir = tempDir("kill-load-");
    const clients = await loadThenKill({ PLAYGROUND_DATA_DIR: dir });
    const store = openStore({ dir, retention: { maxCount: 0, maxAgeDays: 0 } });
    onTestFinished(() => store.close());
    await expectAllRecorded(store, clients);
  }, 90_000);

  it("on PostgreSQL", async () => {
    const clients = await loadThenKill({
      PLAYGROUND_DATABASE_URL: pgDb.url,
      PLAYGROUND_DATA_DIR: tempDir(),
    });
    const store = openPostgresStore(openPostgresDatabase(pgDb.url), { maxCount: 0, maxAgeDays: 0 });
    onTestFinished(() => store.close());
    await expectAllRecorded(store, clients);
  }, 90_000);
});
