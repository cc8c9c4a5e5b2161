// The runs' progress across replicas (lib/runs/events-postgres.ts) in process, on a real PostgreSQL
// database: two buses on two notifiers with different replica ids stand for two app processes. What
// one publishes reaches the other's listeners once, in order (its own listeners get it at once, not
// again from the database); notifications that are not run events are ignored; a long error is cut.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunEvent } from "@/lib/runs/events";
import { createPostgresRunEvents, encodeRunNotice, RUNS_CHANNEL } from "@/lib/runs/events-postgres";
import { openPostgresDatabase } from "@/lib/store/postgres/db";
import { createPostgresNotifier } from "@/lib/store/postgres/notify";
import { collectEvents } from "../support/collect";
import { postgresDatabase } from "../support/postgres";

const db = await postgresDatabase("run_events");

/** The runs' events of one app process, `replica`, on its own connection and notifier. */
async function replicaEvents(url: string, replica: string) {
  const database = openPostgresDatabase(url, { replica });
  const notifier = createPostgresNotifier(database);
  await notifier.ready;
  return {
    database,
    bus: createPostgresRunEvents(database, notifier),
    async close() {
      await notifier.close();
      await database.close();
    },
  };
}

describe("runs' progress across replicas (LISTEN/NOTIFY)", () => {
  // Two app processes: each its own database connection (a replica id), notifier and bus.
  let A: Awaited<ReturnType<typeof replicaEvents>>;
  let B: Awaited<ReturnType<typeof replicaEvents>>;
  beforeAll(async () => {
    [A, B] = await Promise.all([replicaEvents(db.url, "runsA"), replicaEvents(db.url, "runsB")]);
  });
  afterAll(async () => {
    await Promise.all([A?.close(), B?.close()]);
  });

  it("delivers what one replica publishes to the other's listeners, once and in order", async () => {
    const onB = collectEvents(B.bus, "r1");
    const allOnB = collectEvents(B.bus, null);
    const onA = collectEvents(A.bus, "r1");
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
    for (const e of events) A.bus.publish(e);
    // A's own listeners at once, not again through the database.
    expect(onA.got).toEqual(events);
    expect(await onB.until(3)).toEqual(events);
    expect(await allOnB.until(3)).toEqual(events);
    B.bus.publish({ type: "status", runId: "r1", status: "done", error: null, at: 4 });
    await onA.until(4);
    await new Promise((r) => setTimeout(r, 200));
    expect(onA.got).toHaveLength(4);
    expect(onB.got).toHaveLength(4);
    for (const c of [onA, onB, allOnB]) c.off();
  });

  it("ignores what is not a run event, and cuts an error too long for a notification", async () => {
    const onB = collectEvents(B.bus, "r2");
    for (const junk of [
      "nope",
      "{}",
      '{"r":"x","e":{"type":"status"}}',
      '{"r":"x","e":{"type":"boom","runId":"r2","at":1}}',
    ])
      await A.database.pool.query("SELECT pg_notify($1, $2)", [RUNS_CHANNEL, junk]);
    const long: RunEvent = {
      type: "status",
      runId: "r2",
      status: "failed",
      error: "ü".repeat(20_000),
      at: 5,
    };
    expect(Buffer.byteLength(encodeRunNotice("runsA", long))).toBeLessThan(8000);
    A.bus.publish(long);
    const [got] = await onB.until(1);
    expect(got).toMatchObject({ type: "status", runId: "r2", status: "failed" });
    expect((got as { error: string }).error).toBe(`${"ü".repeat(1000)}…`);
    onB.off();
  });
});
