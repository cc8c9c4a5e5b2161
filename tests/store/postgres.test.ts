// The PostgreSQL store on a real PostgreSQL server (the test run's throwaway cluster, a database of
// this file's own): the TrajectoryStore contract (the same conformance suite as SQLite), plus what
// is PostgreSQL's own: migrations under an advisory lock when replicas start together, a newer
// schema refused, clear errors for a bad URL or an unreachable server, the built-in host's episodes
// of a live replica left alone, and added servers' keys out of other database roles' reach.
import fs from "node:fs";
import net from "node:net";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { postgresServerPersistence } from "@/lib/registry/postgres-persistence";
import {
  databaseUrlFrom,
  describeDatabaseError,
  openPostgresDatabase,
  redactUrl,
} from "@/lib/store/postgres/db";
import { SCHEMA_VERSION } from "@/lib/store/postgres/schema";
import { openPostgresStore } from "@/lib/store/postgres/store";
import { HOST_STOPPED_ERROR } from "@/lib/store/types";
import { anyFreeLoopbackPort } from "../../scripts/bench-proc";
import { eventually } from "../environments/helpers";
import { tempDir } from "../episodes/helpers";
import { postgresDatabase } from "../support/postgres";
import { describeTrajectoryStore, type OpenStore } from "./conformance";
import { describeReviewStore } from "./conformance-review";
import { describeRunStore } from "./conformance-runs";
import { describeBatchWrites } from "./conformance-writes";

// PostgreSQL is needed: without it (not found, not installable) the file fails, saying why.
await postgresDatabase("store");
const NO_RETENTION = { maxCount: 0, maxAgeDays: 0 };

describe("PostgreSQL store", () => {
  const opened: { close(): Promise<void> }[] = [];
  afterAll(async () => {
    for (const o of opened) await o.close();
  });
  /** A database of its own per case: the conformance cases count every trajectory. */
  const freshDatabase = async (label: string) => {
    return (await postgresDatabase(label)).url;
  };

  const openConformance: OpenStore = async (retention) => {
    const url = await freshDatabase("conformance");
    return {
      store: openPostgresStore(openPostgresDatabase(url), retention),
      as: async (instance) =>
        openPostgresStore(openPostgresDatabase(url, { replica: instance.id }), retention, instance),
    };
  };
  describeTrajectoryStore("PostgreSQL", openConformance);
  describeBatchWrites("PostgreSQL", openConformance);
  describeRunStore("PostgreSQL", openConformance);
  describeReviewStore("PostgreSQL", openConformance);

  it("migrates once when replicas start together, and records the version", async () => {
    const shared = await freshDatabase("migrate");
    const dbs = Array.from({ length: 4 }, () => openPostgresDatabase(shared));
    opened.push(...dbs);
    await Promise.all(dbs.map((d) => d.ready));
    const r = await dbs[0]!.pool.query<{ version: number }>("SELECT version FROM playground_schema");
    expect(r.rows).toEqual([{ version: SCHEMA_VERSION }]);
    const stores = dbs.map((d) => openPostgresStore(d, NO_RETENTION));
    const ids = await Promise.all(
      stores.map((s, i) => s.create({ server: "py", sid: `s${i}`, env: "math", task: null, startedAt: i })),
    );
    expect((await stores[3]!.list({})).total).toBe(4);
    expect((await stores[0]!.get(ids[3]!))?.sid).toBe("s3");
  });

  it("refuses a database from a newer build, saying so", async () => {
    const shared = await freshDatabase("newer");
    const first = openPostgresDatabase(shared);
    opened.push(first);
    await first.ready;
    await first.pool.query("UPDATE playground_schema SET version = 99");
    const second = openPostgresDatabase(shared);
    opened.push(second);
    await expect(second.ready).rejects.toThrow(/schema version 99, newer than this build/);
    await expect(openPostgresStore(second).summary("x")).rejects.toThrow(/schema version 99/);
  });

  it("a replica that went away is found dead by its connections, before its lease is stale", async () => {
    const shared = await freshDatabase("replicas");
    const a = openPostgresDatabase(shared, { replica: "replicaA" });
    const b = openPostgresDatabase(shared, { replica: "replicaB" });
    opened.push(b);
    const storeA = openPostgresStore(a, NO_RETENTION, { id: "replicaA", pid: 1, host: "another machine" });
    const storeB = openPostgresStore(b, NO_RETENTION, { id: "replicaB", pid: 2, host: "another machine" });
    const ofA = await storeA.create({ server: "local", sid: "a", env: "math", task: null, startedAt: 1 });
    const remote = await storeA.create({ server: "py", sid: "c", env: "math", task: null, startedAt: 1 });
    const t0 = Date.now();
    await storeA.beat(t0);
    await storeB.beat(t0);
    // Neither pid nor lease says A is gone (another machine; renewed a moment ago); its connections live.
    const leases = { everyMs: 1_000, staleMs: 60_000, alive: () => true };
    expect(await storeB.recoverOrphans(t0 + 2_000, leases)).toEqual({ ended: [], steps: [], runs: [] });
    // A goes away (its connections close): once it missed a renewal, it is dead.
    await a.close();
    // (Its server processes leave pg_stat_activity a moment after the connections close.)
    const r = await eventually(async () => {
      const got = await storeB.recoverOrphans(t0 + 2_000, leases);
      return got.ended.length ? got : undefined;
    });
    expect(r.ended).toEqual([{ id: ofA, reason: "error", error: HOST_STOPPED_ERROR, at: t0 + 2_000 }]);
    expect(await storeB.summary(ofA)).toMatchObject({ end_reason: "error", error: HOST_STOPPED_ERROR });
    expect((await storeB.summary(remote))?.end_reason).toBeNull();
  });

  it("added servers' API keys are readable by the app's role only, not by other roles of the database", async () => {
    const url = await freshDatabase("keys");
    const app = openPostgresDatabase(url);
    opened.push(app);
    await app.ready;
    await app.pool.query(
      "INSERT INTO added_servers (name, url, api_key, added_at) VALUES ('py', 'http://127.0.0.1:1', 'k', 1)",
    );
    await app.pool.query("DROP ROLE IF EXISTS someone_else; CREATE ROLE someone_else LOGIN");
    const other = new pg.Client({ connectionString: url.replace("//postgres@", "//someone_else@") });
    await other.connect();
    try {
      for (const table of ["added_servers", "trajectories", "steps"])
        await expect(other.query(`SELECT * FROM ${table}`)).rejects.toThrow(/permission denied/);
    } finally {
      await other.end();
    }
  });

  it("reads one step and the prompt (what the live feeds of other replicas read)", async () => {
    const store = openPostgresStore(openPostgresDatabase(await freshDatabase("rows")), NO_RETENTION);
    opened.push(store);
    const id = await store.create({ server: "py", sid: "s", env: "math", task: null, startedAt: 1 });
    await store.setPrompt(id, [{ type: "text", text: "hello" }], 2);
    await store.putStep(id, {
      index: 1,
      tool: "t",
      input: { b: 1, a: 2 },
      task_id: null,
      started_at: 3,
      ended_at: 4.5,
      latency_ms: 1.5,
      ok: true,
      error: null,
      blocks: [],
      reward: 0.1,
      finished: false,
      metadata: null,
      events: [],
    });
    expect(await store.promptOf(id)).toEqual([{ type: "text", text: "hello" }]);
    const step = await store.stepOf(id, 1);
    // The input's key order is kept (exports read as recorded); times are not rounded.
    expect(JSON.stringify(step?.input)).toBe('{"b":1,"a":2}');
    expect(step).toMatchObject({ ended_at: 4.5, latency_ms: 1.5, ok: true, reward: 0.1 });
    expect(await store.stepOf(id, 2)).toBeNull();
  });
});

describe("PostgreSQL configuration", () => {
  it("takes postgres:// URLs, refuses others with a clear message, never shows the password", () => {
    expect(databaseUrlFrom({})).toBeNull();
    expect(databaseUrlFrom({ PLAYGROUND_DATABASE_URL: "  " })).toBeNull();
    expect(databaseUrlFrom({ PLAYGROUND_DATABASE_URL: "postgres://u:p@db:5432/x" })).toBe(
      "postgres://u:p@db:5432/x",
    );
    expect(() => databaseUrlFrom({ PLAYGROUND_DATABASE_URL: "mysql://u@db/x" })).toThrow(
      /PLAYGROUND_DATABASE_URL must start with postgres:\/\//,
    );
    expect(() => databaseUrlFrom({ PLAYGROUND_DATABASE_URL: "not a url" })).toThrow(/is not a URL/);
    expect(redactUrl("postgres://u:s3cret@db:5432/x")).toBe("postgres://u:***@db:5432/x");
    expect(
      describeDatabaseError(
        { code: "28P01", message: "password authentication failed" },
        "postgres://u:s3cret@h/x",
      ),
    ).not.toContain("s3cret");
  });

  it("an unreachable server: every use fails with a clear error, nothing hangs", async () => {
    const port = await anyFreeLoopbackPort();
    const dead = openPostgresDatabase(`postgres://someone:s3cret@127.0.0.1:${port}/nothing`);
    await expect(dead.ready).rejects.toThrow(
      new RegExp(
        `cannot reach PostgreSQL at postgres://someone:\\*\\*\\*@127\\.0\\.0\\.1:${port}/nothing: connection refused`,
      ),
    );
    await expect(openPostgresStore(dead).list({})).rejects.toThrow(/connection refused/);
    await dead.close();
  });
});

describe("PostgreSQL going away under a running app", () => {
  it("fails at once while the database cannot be reached; added servers are served as last read", async () => {
    const fresh = await postgresDatabase("outage");
    const target = new URL(fresh.url);
    // A loopback proxy in front of PostgreSQL that can turn into a black hole (a network cut).
    let cut = false;
    const sockets = new Set<net.Socket>();
    const track = (s: net.Socket) => {
      sockets.add(s);
      s.on("close", () => sockets.delete(s));
      s.on("error", () => s.destroy());
    };
    const proxy = net.createServer((client) => {
      track(client);
      if (cut) return; // accepted, never answered
      const upstream = net.connect(Number(target.port), target.hostname);
      track(upstream);
      upstream.on("close", () => client.destroy());
      client.on("close", () => upstream.destroy());
      client.pipe(upstream).pipe(client);
    });
    await new Promise<void>((r) => proxy.listen(0, "127.0.0.1", r));
    const viaProxy = new URL(fresh.url);
    viaProxy.port = String((proxy.address() as net.AddressInfo).port);
    const dir = tempDir();
    const database = openPostgresDatabase(viaProxy.toString());
    const store = openPostgresStore(database, NO_RETENTION);
    const servers = postgresServerPersistence(database, dir);
    try {
      await store.create({ server: "py", sid: "s", env: "math", task: null, startedAt: 1 });
      await servers.addUser({ name: "py", url: "http://127.0.0.1:1", apiKey: "k" });
      const known = [{ name: "py", url: "http://127.0.0.1:1", apiKey: "k" }];
      expect((await servers.read()).userServers).toEqual(known);

      cut = true;
      for (const s of sockets) s.destroy();
      await expect(store.list({})).rejects.toThrow(
        /timeout exceeded when trying to connect|Connection terminated/,
      );
      // Meanwhile every call fails at once, saying why, instead of each waiting out the timeout.
      const calls = await Promise.allSettled(Array.from({ length: 100 }, () => store.summary("x")));
      for (const c of calls)
        expect((c as PromiseRejectedResult).reason.message).toMatch(
          /^PostgreSQL at postgres:\/\/postgres@127\.0\.0\.1:\d+\/outage_\w+: .*\(trying again in a moment\)$/,
        );
      // The relay's server look-ups go on with the added servers last read.
      expect((await servers.read()).userServers).toEqual(known);

      cut = false;
      const total = await eventually(async () => (await store.list({})).total, 15_000);
      expect(total).toBe(1);
    } finally {
      await store.close();
      proxy.close();
      for (const s of sockets) s.destroy();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }, 30_000);
});
