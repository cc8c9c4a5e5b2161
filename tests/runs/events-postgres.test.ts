// The runs' progress across replicas (lib/runs/events-postgres.ts) in process, on a real PostgreSQL
// database: two buses on two notifiers with different replica ids stand for two app processes. What
// one publishes reaches the other's listeners once, in order (its own listeners get it at once, not
// again from the database); notifications that are not run events are ignored; a long error is cut.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunEvent, RunEvents } from "@/lib/runs/events";
import { createPostgresRunEvents, encodeRunNotice, RUNS_CHANNEL } from "@/lib/runs/events-postgres";
import { openPostgresDatabase, type PostgresDatabase } from "@/lib/store/postgres/db";
import { createPostgresNotifier, type PostgresNotifier } from "@/lib/store/postgres/notify";
import { collectEvents } from "../support/collect";
import { postgresDatabase } from "../support/postgres";

const db = await postgresDatabase("run_events");

describe.skipIf(!db.ok)("runs' progress across replicas (LISTEN/NOTIFY)", () => {
  let dbA: PostgresDatabase;
  let dbB: PostgresDatabase;
  let nA: PostgresNotifier;
  let nB: PostgresNotifier;
  let a: RunEvents;
  let b: RunEvents;
  beforeAll(async () => {
    if (!db.ok) return;
    dbA = openPostgresDatabase(db.url, { replica: "runsA" });
    dbB = openPostgresDatabase(db.url, { replica: "runsB" });
    nA = createPostgresNotifier(dbA);
    nB = createPostgresNotifier(dbB);
    a = createPostgresRunEvents(dbA, nA);
    b = createPostgresRunEvents(dbB, nB);
    await Promise.all([nA.ready, nB.ready]);
  });
  afterAll(async () => {
    await Promise.all([nA?.close(), nB?.close()]);
    await Promise.all([dbA?.close(), dbB?.close()]);
  });

  it("delivers what one replica publishes to the other's listeners, once and in order", async () => {
    const onB = collectEvents(b, "r1");
    const allOnB = collectEvents(b, null);
    const onA = collectEvents(a, "r1");
    const events: RunEvent[] = [
      { type: "status", runId: "r1", status: "running", error: null, at: 1 },
      {
        type: "episode",
        runId: "r1",
        taskIndex: 0,
        repeat: 0,
        status: "done",
        trajectoryId: "t",
        reward: 1,
        error: null,
        at: 2,
      },
      {
        type: "progress",
        runId: "r1",
        at: 3,
        status: "running",
        total: 2,
        done: 1,
        errored: 0,
        running: 1,
        pending: 0,
        cancelled: 0,
        interrupted: 0,
        rate: 0.5,
        etaMs: 2000,
      },
    ];
    for (const e of events) a.publish(e);
    // A's own listeners at once, not again through the database.
    expect(onA.got).toEqual(events);
    expect(await onB.until(3)).toEqual(events);
    expect(await allOnB.until(3)).toEqual(events);
    b.publish({ type: "status", runId: "r1", status: "done", error: null, at: 4 });
    await onA.until(4);
    await new Promise((r) => setTimeout(r, 200));
    expect(onA.got).toHaveLength(4);
    expect(onB.got).toHaveLength(4);
    for (const c of [onA, onB, allOnB]) c.off();
  });

  it("ignores what is not a run event, and cuts an error too long for a notification", async () => {
    const onB = collectEvents(b, "r2");
    for (const junk of [
      "nope",
      "{}",
      '{"r":"x","e":{"type":"status"}}',
      '{"r":"x","e":{"type":"boom","runId":"r2","at":1}}',
    ])
      await dbA.pool.query("SELECT pg_notify($1, $2)", [RUNS_CHANNEL, junk]);
    const long: RunEvent = {
      type: "status",
      runId: "r2",
      status: "failed",
      error: "ü".repeat(20_000),
      at: 5,
    };
    expect(Buffer.byteLength(encodeRunNotice("runsA", long))).toBeLessThan(8000);
    a.publish(long);
    const [got] = await onB.until(1);
    expect(got).toMatchObject({ type: "status", runId: "r2", status: "failed" });
    expect((got as { error: string }).error).toBe(`${"ü".repeat(1000)}…`);
    onB.off();
  });
});
