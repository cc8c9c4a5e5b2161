// The live feeds across replicas (lib/episodes/live-postgres.ts) in process, on a real PostgreSQL
// database: two feeds with different replica ids stand for two app processes. An event published on
// one reaches the other's watchers once, in order; one too large for a notification (8000 bytes) is
// read back from the store by the receiver; a large frame is cut to fit; the sender's own watchers
// get its events straight away, not again from the database.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { LiveEvent } from "@/lib/episodes/live";
import {
  createPostgresLiveFeeds,
  encodeNotice,
  LIVE_CHANNEL,
  MAX_NOTIFY_BYTES,
} from "@/lib/episodes/live-postgres";
import { openPostgresDatabase } from "@/lib/store/postgres/db";
import { openPostgresStore } from "@/lib/store/postgres/store";
import { step } from "../episodes/helpers";
import { collectEvents } from "../support/collect";
import { postgresDatabase } from "../support/postgres";

const db = await postgresDatabase("live_feeds");

/** The live feeds of one app process, `replica`, on its own store. */
async function replicaFeeds(url: string, replica: string) {
  const store = openPostgresStore(openPostgresDatabase(url, { replica }), { maxCount: 0, maxAgeDays: 0 });
  const feeds = createPostgresLiveFeeds(store.db, store);
  await feeds.ready;
  return {
    store,
    feeds,
    async close() {
      await feeds.close();
      await store.close();
    },
  };
}

describe("live feeds across replicas (LISTEN/NOTIFY)", () => {
  // Two app processes: each its own store (a replica id) and live feeds.
  let A: Awaited<ReturnType<typeof replicaFeeds>>;
  let B: Awaited<ReturnType<typeof replicaFeeds>>;
  beforeAll(async () => {
    [A, B] = await Promise.all([replicaFeeds(db.url, "feedA"), replicaFeeds(db.url, "feedB")]);
  });
  afterAll(async () => {
    await A?.close();
    await B?.close();
  });

  it("delivers an episode's events to the other replica's watchers, once and in order", async () => {
    const id = await A.store.create({ server: "py", sid: "s1", env: "math", task: null, startedAt: 1 });
    const onB = collectEvents(B.feeds, id);
    const allOnB = collectEvents(B.feeds, null);
    const onA = collectEvents(A.feeds, id);
    const summary = (await A.store.summary(id))!;
    const events: LiveEvent[] = [
      { type: "started", id, summary },
      { type: "step", id, step: step(1, { ok: null, ended_at: null, events: [] }), callId: "c1" },
      { type: "frame", id, index: 1, n: 0, event: { t: 1, kind: "event", event: "task_id", data: "t-1" } },
      { type: "activity", id, at: 5 },
      { type: "step", id, step: step(1), callId: "c1" },
      { type: "ended", id, end_reason: "finished", error: null, ended_at: 9 },
    ];
    for (const e of events) A.feeds.publish(e);
    expect(await onB.until(events.length)).toEqual(events);
    // The all-episodes watcher gets them too (frames included: the route leaves them out itself).
    expect((await allOnB.until(events.length)).map((e) => e.type)).toEqual(events.map((e) => e.type));
    // A's own watcher got each once, straight away, and nothing comes back from the database.
    expect(onA.got).toEqual(events);
    await new Promise((r) => setTimeout(r, 300));
    expect(onA.got).toHaveLength(events.length);
    expect(onB.got).toHaveLength(events.length);
    onB.off();
    allOnB.off();
    onA.off();
  });

  it("sends a step too large for a notification by reference: the receiver reads the row", async () => {
    const id = await A.store.create({ server: "py", sid: "s2", env: "math", task: null, startedAt: 1 });
    const big = step(1, { blocks: [{ type: "text", text: "é".repeat(20_000) }], reward: 0.25 });
    const prompt = [{ type: "text" as const, text: "p".repeat(9_000) }];
    await A.store.putStep(id, big);
    await A.store.setPrompt(id, prompt, 2);
    const notice = encodeNotice("feedA", 1, { type: "step", id, step: big, callId: "c9" });
    expect(Buffer.byteLength(notice)).toBeLessThanOrEqual(MAX_NOTIFY_BYTES);
    expect(JSON.parse(notice)).toEqual({
      r: "feedA",
      s: 1,
      ref: { type: "step", id, index: 1, callId: "c9" },
    });

    const onB = collectEvents(B.feeds, id);
    const small: LiveEvent = { type: "activity", id, at: 3 };
    A.feeds.publish({ type: "prompt", id, blocks: prompt });
    A.feeds.publish({ type: "step", id, step: big, callId: "c9" });
    A.feeds.publish(small);
    const got = await onB.until(3);
    expect(got[0]).toEqual({ type: "prompt", id, blocks: prompt });
    expect(got[1]).toEqual({ type: "step", id, step: await B.store.stepOf(id, 1), callId: "c9" });
    expect((got[1] as { step: { blocks: { text: string }[] } }).step.blocks[0]!.text).toHaveLength(20_000);
    // Order is kept: the event after the reference waited for it.
    expect(got[2]).toEqual(small);
    onB.off();
  });

  it("cuts a frame too large for a notification, saying its full size", async () => {
    const id = await A.store.create({ server: "py", sid: "s3", env: "math", task: null, startedAt: 1 });
    const onB = collectEvents(B.feeds, id);
    A.feeds.publish({
      type: "frame",
      id,
      index: 1,
      n: 0,
      event: { t: 1, kind: "event", event: "error", data: "x".repeat(50_000) },
    });
    const [got] = await onB.until(1);
    expect(got).toMatchObject({ type: "frame", event: { event: "error", size: 50_000 } });
    expect((got as { event: { data: string } }).event.data).toHaveLength(1000);
    onB.off();
  });

  it("listens again when its connection is cut, and goes on delivering", async () => {
    const id = await A.store.create({ server: "py", sid: "s4", env: "math", task: null, startedAt: 1 });
    const onB = collectEvents(B.feeds, id);
    // The database ends B's listening connection (as a restart or a network cut would).
    const killed = await A.store.db.pool.query(
      `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
       WHERE application_name = 'ors-playground/feedB' AND query LIKE 'LISTEN%'`,
    );
    expect(killed.rowCount).toBe(1);
    const deadline = Date.now() + 15_000;
    for (let n = 0; onB.got.length === 0; n++) {
      if (Date.now() > deadline) throw new Error("B did not listen again within 15 s");
      A.feeds.publish({ type: "activity", id, at: n });
      await new Promise((r) => setTimeout(r, 200));
    }
    expect(onB.got[0]).toMatchObject({ type: "activity", id });
    onB.off();
  });

  it("ignores notifications on its channel that are not live events (anyone may NOTIFY)", async () => {
    const id = await A.store.create({ server: "py", sid: "s5", env: "math", task: null, startedAt: 1 });
    const onB = collectEvents(B.feeds, id);
    for (const junk of ["not json", "1", "null", "{}", '{"r":"x","s":1}', `{"r":"x","s":1,"e":{"id":5}}`])
      await A.store.db.pool.query("SELECT pg_notify($1, $2)", [LIVE_CHANNEL, junk]);
    A.feeds.publish({ type: "activity", id, at: 7 });
    expect(await onB.until(1)).toEqual([{ type: "activity", id, at: 7 }]);
    onB.off();
  });

  it("every notification fits PostgreSQL's limit, whatever the event", () => {
    const id = "x".repeat(64);
    const huge = "ü".repeat(100_000);
    const cases: LiveEvent[] = [
      { type: "ended", id, end_reason: "error", error: huge, ended_at: 1 },
      { type: "prompt", id, blocks: [{ type: "text", text: huge }] },
      { type: "frame", id, index: 1, n: 0, event: { t: 1, kind: "event", event: "chunk", data: huge } },
      { type: "step", id, step: step(1, { error: huge }) },
    ];
    for (const e of cases)
      expect(Buffer.byteLength(encodeNotice("r".repeat(12), 1e9, e))).toBeLessThanOrEqual(MAX_NOTIFY_BYTES);
  });
});

describe("live feeds across replicas, when the database does not keep up", () => {
  it("keeps at most a bounded number of notifications waiting, and says it dropped the rest", async () => {
    const logs: string[] = [];
    // A database that never becomes ready: nothing can be sent.
    const never = new Promise<void>(() => {});
    const stuck = {
      replica: "stuck",
      ready: never,
      clientConfig: {},
    } as unknown as Parameters<typeof createPostgresLiveFeeds>[0];
    const feeds = createPostgresLiveFeeds(
      stuck,
      { summary: async () => null, promptOf: async () => null, stepOf: async () => null },
      {
        log: (m) => logs.push(m),
      },
    );
    const here: LiveEvent[] = [];
    feeds.subscribe("t", (e) => here.push(e));
    for (let i = 0; i < 5000; i++) feeds.publish({ type: "activity", id: "t", at: i });
    // This replica's own watchers got everything; a batch of 100 is being sent and 2000 wait for
    // the database: the other 2900 were dropped, and the log says so.
    expect(here).toHaveLength(5000);
    expect(logs.filter((m) => m.startsWith("too many notifications waiting"))).toEqual([
      "too many notifications waiting: 1 live event(s) dropped so far (the database fell behind)",
      "too many notifications waiting: 1000 live event(s) dropped so far (the database fell behind)",
      "too many notifications waiting: 2000 live event(s) dropped so far (the database fell behind)",
    ]);
    feeds.publish({ type: "activity", id: "t", at: -1 });
    expect(here).toHaveLength(5001);
    await feeds.close();
  });
});
