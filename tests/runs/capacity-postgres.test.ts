// The capacity gate shared through PostgreSQL (lib/runs/capacity-postgres.ts): a dead worker's slots
// are given back only once every attempt it was playing is ended (the takeover deleted their sessions
// first). Freed any earlier, by another worker's sweep running while the takeover is still at work,
// the server would see more sessions than its cap.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPlayground, type Playground } from "@/lib/playground";
import { createPostgresGate } from "@/lib/runs/capacity-postgres";
import { runningPatch } from "@/lib/runs/episode";
import { openPostgresDatabase, type PostgresDatabase } from "@/lib/store/postgres/db";
import { createPostgresNotifier, type PostgresNotifier } from "@/lib/store/postgres/notify";
import { postgresDatabase } from "../support/postgres";
import { sleepyRun, tempDir } from "./helpers";

const db = await postgresDatabase("runs_capacity_pg");

describe("a dead worker's capacity", () => {
  let pg: Playground;
  let raw: PostgresDatabase;
  // One notifier per gate (a channel is listened to once per notifier), as one per process.
  let notifiers: PostgresNotifier[] = [];
  const gate = (worker: string) => {
    const n = createPostgresNotifier(raw);
    notifiers.push(n);
    return createPostgresGate(raw, n, worker);
  };
  /** A run of sleepy `tasks` whose first attempt `worker` claimed (and is playing). */
  const claimedRun = async (tasks: string, worker: string) => {
    const run = await pg.runs.start(sleepyRun(tasks));
    const key = { taskIndex: 0, repeat: 0 };
    expect(await pg.store.claimEpisode(run.id, key, worker, runningPatch(Date.now()))).toBe(true);
    return { run, key };
  };

  beforeAll(async () => {
    const url = db.url;
    pg = createPlayground(
      { PLAYGROUND_DATABASE_URL: url, PLAYGROUND_DATA_DIR: tempDir("runs-capacity-pg-"), ORS_SERVERS: "" },
      { runWorker: false, scriptRoots: null },
    );
    await pg.ready;
    raw = openPostgresDatabase(url);
    await raw.ready;
  }, 60_000);

  afterAll(async () => {
    await Promise.all(notifiers.map((n) => n.close()));
    notifiers = [];
    await raw?.close();
    await pg?.close();
  });

  it("is given back once the attempts it played are ended, not before", async () => {
    // "dead" has no lease (no instance row): it is dead to everyone.
    const dead = gate("dead");
    const live = gate("live");
    const claim = [{ key: "server:capped", limit: 2 }];
    expect(await dead.tryAcquire(claim, "dead:1")).toBe(true);
    expect(await dead.tryAcquire(claim, "dead:2")).toBe(true);
    expect(await live.tryAcquire(claim, "live:1")).toBe(false);

    const { run, key } = await claimedRun("0-1", "dead");
    // Its attempt still playing (not yet taken over): its slots still count.
    await live.releaseDead();
    expect(await live.tryAcquire(claim, "live:1")).toBe(false);

    await pg.store.endAttempt(
      run.id,
      key,
      { outcome: "interrupted", error: "taken over", endedAt: Date.now(), trajectoryId: null },
      { owner: "dead", maxAttempts: 3 },
    );
    await live.releaseDead();
    expect(await live.tryAcquire(claim, "live:1")).toBe(true);
    expect(await live.tryAcquire(claim, "live:2")).toBe(true);
    expect(await live.tryAcquire(claim, "live:3")).toBe(false);
    await pg.runs.cancel(run.id);
  }, 30_000);

  it("is given back when the attempt it left belongs to a run that no longer runs (nobody takes it over)", async () => {
    const dead = gate("gone");
    const live = gate("alive");
    const claim = [{ key: "server:stopped", limit: 1 }];
    expect(await dead.tryAcquire(claim, "gone:1")).toBe(true);
    const { run } = await claimedRun("0", "gone");
    await live.releaseDead();
    expect(await live.tryAcquire(claim, "alive:1")).toBe(false);
    // The run stopped (interrupted by a recovery, say) with the attempt still open.
    expect(await pg.store.setRunStatus(run.id, "interrupted", Date.now(), { from: ["running"] })).toBe(true);
    await live.releaseDead();
    expect(await live.tryAcquire(claim, "alive:1")).toBe(true);
  }, 30_000);
});
