// Runs as jobs on PostgreSQL (lib/runs/queue.ts), in one test process: two playgrounds on one
// database are two workers; a run started on one is played by both (pg-boss hands out its jobs),
// ends done with each episode counted once; a worker that cannot play a run (an unknown server)
// says why and leaves it to the others; cancel stops every worker's episodes; a run no worker can
// play waits and says so; a worker that only enqueues plays nothing.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCommand } from "@/lib/cli/run-command";
import type { Playground } from "@/lib/playground";
import { createPlayground } from "@/lib/playground";
import { createJobQueue } from "@/lib/runs/job-queue";
import { openPostgresDatabase } from "@/lib/store/postgres/db";
import { anyFreeLoopbackPort } from "../../scripts/bench-proc";
import { captureIo } from "../cli/helpers";
import { type SpawnedServer, spawnOrsServer } from "../relay/helpers";
import { postgresDatabase } from "../support/postgres";
import { waitUntil } from "../support/wait";
import { FIXTURES, sleepyRun, tempDir } from "./helpers";

const db = await postgresDatabase("runs_queue");

describe("runs as jobs on PostgreSQL", () => {
  let shared: SpawnedServer;
  let a: Playground;
  let b: Playground;
  let c: Playground;

  const open = (env: Record<string, string>, runWorker?: boolean) =>
    createPlayground(
      { PLAYGROUND_DATABASE_URL: db.url, PLAYGROUND_DATA_DIR: tempDir("runs-queue-"), ...env },
      {
        scriptRoots: null,
        runRetryBaseMs: 50,
        lease: { everyMs: 500, staleMs: 5000 },
        ...(runWorker === undefined ? {} : { runWorker }),
      },
    );

  beforeAll(async () => {
    shared = await spawnOrsServer(await anyFreeLoopbackPort(), { ORS_API_KEYS: "" });
    a = open({ ORS_SERVERS: `shared=${shared.url}`, PLAYGROUND_RUN_WORKER_SLOTS: "2" });
    b = open({ ORS_SERVERS: `shared=${shared.url}`, PLAYGROUND_RUN_WORKER_SLOTS: "2" });
    // C knows no server "shared": it cannot play runs on it, and says so.
    c = open({ PLAYGROUND_RUN_WORKER_SLOTS: "2" });
    await Promise.all([a.ready, b.ready, c.ready]);
  }, 60_000);

  afterAll(async () => {
    await Promise.all([a?.close(), b?.close(), c?.close()]);
    await shared?.stop();
  });

  it("plays a run on every worker that can play it; each episode counted once", async () => {
    const run = await a.runs.start(sleepyRun("0-9", { server: "shared", split: "test", concurrency: 4 }));
    expect(run).toMatchObject({ status: "running", instance: null });
    const ended = await b.runs.settled(run.id);
    expect(ended?.status).toBe("done");
    const episodes = await a.store.runEpisodes(run.id);
    expect(episodes.map((e) => [e.status, e.outcome, e.attempts])).toEqual(
      episodes.map(() => ["done", "scored", 1]),
    );
    const attempts = await a.store.runAttempts(run.id);
    expect(attempts).toHaveLength(10);
    // Both workers that know the server played; the one that does not played nothing.
    expect(new Set(attempts.map((x) => x.worker))).toEqual(new Set([a.instance.id, b.instance.id]));
    expect(attempts.every((x) => x.jobId)).toBe(true);
    const placement = await c.runs.placement((await c.store.getRun(run.id))!);
    expect(placement.mode).toBe("queue");
    expect(placement.workers.find((w) => w.worker === c.instance.id)).toMatchObject({
      canPlay: false,
      reason: expect.stringMatching(/server "shared" is not known to this worker/),
    });
    expect(placement.capacity.find((x) => x.kind === "server")).toMatchObject({
      name: "shared",
      limit: 4,
      inUse: 0,
    });
  }, 60_000);

  it("cancels a run on every worker: its episodes end cancelled, sessions deleted, none starts", async () => {
    const run = await a.runs.start(sleepyRun("0-19", { server: "shared", split: "test", concurrency: 4 }));
    await waitUntil(
      "episodes playing on both workers",
      async () => {
        const playing = (await a.store.runAttempts(run.id)).filter((x) => x.outcome === null);
        return new Set(playing.map((x) => x.worker)).size === 2 ? true : undefined;
      },
      20_000,
    );
    const cancelled = await b.runs.cancel(run.id);
    expect(cancelled.status).toBe("cancelled");
    const episodes = await a.store.runEpisodes(run.id);
    expect(episodes.some((e) => e.status === "running")).toBe(false);
    expect(episodes.filter((e) => e.status === "cancelled").length).toBeGreaterThan(0);
    const { items } = await a.store.list({ run: run.id, limit: 100 });
    expect(items.every((t) => t.end_reason !== null)).toBe(true);
    // Resume plays the rest.
    await a.runs.resume(run.id);
    expect((await a.runs.settled(run.id))?.status).toBe("done");
    const counted = (await a.store.runAttempts(run.id)).filter((x) => x.counted);
    expect(counted.map((x) => x.taskIndex).sort((p, q) => p - q)).toEqual(
      Array.from({ length: 20 }, (_, i) => i),
    );
  }, 90_000);

  it("the CLI: run --detach enqueues and returns the id; run --follow follows it to its end", async () => {
    const env = {
      PLAYGROUND_DATABASE_URL: db.url,
      PLAYGROUND_DATA_DIR: tempDir("runs-queue-cli-"),
    };
    const detached = captureIo();
    const args = [shared.url, "--env", "math", "--split", "test", "--tasks", "0-3", "--policy", "script"];
    expect(
      await runCommand([...args, "--script", `${FIXTURES}/math-oracle.ts`, "--detach"], {
        ...detached.io,
        env,
      }),
    ).toBe(0);
    const id = detached.out.stdout.trim();
    expect(detached.out.stderr).toContain(`run: ${id}: 4 episodes of math/test`);
    expect(detached.out.stderr).toContain("(enqueued: the workers play it)");
    // Played by the playgrounds' workers (this command played nothing: the server it added is kept,
    // so C knows it too), followed by another command.
    const followed = captureIo();
    expect(await runCommand(["--follow", id, "--json", "-"], { ...followed.io, env })).toBe(0);
    const summary = JSON.parse(followed.out.stdout) as { runId: string; status: string; completed: number };
    expect(summary).toMatchObject({ runId: id, status: "done", completed: 4 });
    const workers = new Set((await a.store.runAttempts(id)).map((x) => x.worker));
    const playgrounds = new Set([a.instance.id, b.instance.id, c.instance.id]);
    expect(workers.size).toBeGreaterThan(0);
    expect([...workers].every((w) => w !== null && playgrounds.has(w))).toBe(true);
    // Without a database there is no queue to detach to.
    const sqlite = captureIo();
    expect(
      await runCommand([...args, "--script", "x.ts", "--detach"], {
        ...sqlite.io,
        env: { PLAYGROUND_DATA_DIR: tempDir("runs-queue-cli-") },
      }),
    ).toBe(2);
    expect(sqlite.out.stderr).toMatch(/--detach needs PLAYGROUND_DATABASE_URL/);
  }, 60_000);

  it("a job whose worker died after fetching it, before claiming its episode, is played again", async () => {
    // The run is on a server only `e` knows: nobody else takes its jobs.
    const d = open({ ORS_SERVERS: `solo=${shared.url}` }, false);
    const raw = openPostgresDatabase(db.url);
    const dead = createJobQueue(raw);
    let e: Playground | null = null;
    try {
      await d.ready;
      const run = await d.runs.start(sleepyRun("0-3", { server: "solo", split: "test" }));
      // The dead worker: fetched one job and never claimed it (no attempt names it).
      const [job] = await waitUntil("a job to take", async () => {
        const jobs = await dead.fetch(run.id, 1);
        return jobs.length ? jobs : undefined;
      });
      await dead.close();
      e = open({ ORS_SERVERS: `solo=${shared.url}`, PLAYGROUND_RUN_LEASE_MS: "1000" });
      await e.ready;
      const ended = await waitUntil(
        "the run done",
        async () => {
          const r = await d.store.getRun(run.id);
          if (r?.status === "done") return r;
          throw new Error(
            `run ${r?.status}: ${JSON.stringify((await d.store.runProgress(run.id, 0)).counts)}`,
          );
        },
        20_000,
      );
      expect(ended.status).toBe("done");
      const attempts = await d.store.runAttempts(run.id, job!);
      expect(attempts.map((x) => [x.outcome, x.counted])).toEqual([["scored", true]]);
      expect((await d.store.runEpisodes(run.id)).map((x) => x.status)).toEqual([
        "done",
        "done",
        "done",
        "done",
      ]);
    } finally {
      await dead.close().catch(() => {});
      await raw.close();
      await e?.close();
      await d.close();
    }
  }, 40_000);

  it("a run no worker can play waits, and says why", async () => {
    const d = open({ ORS_SERVERS: `lonely=${shared.url}` }, false);
    try {
      await d.ready;
      const run = await d.runs.start({
        server: "lonely",
        env: "math",
        split: "test",
        tasks: "0-1",
        policy: { kind: "random", seed: 1, maxTurns: 1 },
      });
      const placement = await waitUntil("every worker looked at it", async () => {
        const p = await a.runs.placement((await a.store.getRun(run.id))!);
        return p.workers.length >= 3 ? p : undefined;
      });
      expect(placement.waiting).toMatch(
        /no worker can play it: .*server "lonely" is not known to this worker/,
      );
      expect((await a.store.runEpisodes(run.id)).every((e) => e.status === "pending")).toBe(true);
      await d.runs.cancel(run.id);
    } finally {
      await d.close();
    }
  }, 30_000);
});
