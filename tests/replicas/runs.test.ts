// Runs across app replicas as real processes on one PostgreSQL database (the test run's cluster),
// playing the shared ORS server (the standalone host): a run started through replica A is played by
// A and followed live on B (its episodes reach B by NOTIFY); two replicas never both play one run
// (a run's claim is won once; B can neither resume nor play a run A plays; resumes on both at once:
// one wins); the CLI's `run` records into the database (the replicas show it); and after kill -9 of
// A in the middle of a run, B shows it interrupted, resumes it, and in the end every task was played
// to its end exactly once.
import { spawn } from "node:child_process";
import { existsSync, readdirSync } from "node:fs";
import path from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eventually } from "../environments/helpers";
import type { SpawnedServer } from "../relay/helpers";
import { postgresDatabase } from "../support/postgres";
import { type FeedEvent, getJson, type Replica, startTwoReplicas, tempDataDir, watchFeed } from "./helpers";

const db = await postgresDatabase("replica_runs");

/** A script that answers `math` right after a second per turn (a run takes a while). */
const SLEEPY = "tests/runs/fixtures/sleepy.ts";

interface RunSummary {
  id: string;
  status: string;
  episodes: number;
  completed: number;
  errored: number;
  successRate: number | null;
  tasks: { index: number; rewards: (number | null)[]; episodeIds: (string | null)[] }[];
}

async function post(url: string, body?: unknown): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body ?? {}),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

/** Starts a run of `math`/`train` on the shared server through a replica; its id. */
async function startRun(replicaUrl: string, tasks: string, concurrency: number): Promise<string> {
  const r = await post(`${replicaUrl}/api/runs`, {
    server: "shared",
    env: "math",
    split: "train",
    tasks,
    concurrency,
    policy: { kind: "script", module: SLEEPY },
  });
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  return r.body.id as string;
}

/** The database as the test sees it (read only). */
async function query<R extends pg.QueryResultRow>(text: string, values: unknown[] = []): Promise<R[]> {
  const client = new pg.Client({ connectionString: db.ok ? db.url : "" });
  await client.connect();
  try {
    return (await client.query<R>(text, values)).rows;
  } finally {
    await client.end();
  }
}

interface PlayedEpisode {
  id: string;
  instance_id: string;
  run_task: number;
  run_repeat: number;
  end_reason: string | null;
  started_at: number;
  ended_at: number | null;
}

/** Every trajectory a run played, with the process that played it. */
const trajectoriesOf = (runId: string) =>
  query<PlayedEpisode>(
    `SELECT id, instance_id, run_task, run_repeat, end_reason, started_at, ended_at FROM trajectories
     WHERE run_id = $1 ORDER BY started_at`,
    [runId],
  );

/** No two processes played episodes of the run at the same time. */
function playedByOneAtATime(played: PlayedEpisode[]): void {
  for (const x of played)
    for (const y of played)
      if (x.instance_id !== y.instance_id && x.started_at <= y.started_at)
        expect(x.ended_at, `${x.id} (${x.instance_id}) overlaps ${y.id} (${y.instance_id})`).not.toBeNull();
  for (const x of played)
    for (const y of played)
      if (x.instance_id !== y.instance_id && x.started_at <= y.started_at)
        expect(
          x.ended_at!,
          `${x.id} (${x.instance_id}) overlaps ${y.id} (${y.instance_id})`,
        ).toBeLessThanOrEqual(y.started_at);
}

describe.skipIf(!db.ok)("runs across app replicas on one PostgreSQL database", () => {
  const dataA = tempDataDir();
  const dataB = tempDataDir();
  let shared: SpawnedServer;
  let a: Replica;
  let b: Replica;

  beforeAll(async () => {
    if (!db.ok) return;
    ({ shared, a, b } = await startTwoReplicas(db.url, [dataA.dir, dataB.dir]));
  }, 120_000);

  afterAll(async () => {
    await Promise.all([a?.stop(), b?.stop(), shared?.stop()]);
    dataA.remove();
    dataB.remove();
  });

  it("a run started on A is played by A and followed live on B, episode by episode", async () => {
    const id = await startRun(a.url, "0-3", 2);
    const onB = watchFeed(`${b.url}/api/runs/${id}/events`);
    // Episodes are published by the replica playing them: these reach B as notifications.
    const ended = (e: FeedEvent) => e.event === "episode" && e.data.status === "done";
    await onB.until((e) => e.event === "episode" && e.data.status === "running", 15_000);
    await onB.until((e) => e.event === "status" && e.data.status === "done", 30_000);
    // (B's stream opened a moment after the start: the first to end may have ended before it.)
    const seen = onB.events.filter(ended).map((e) => e.data.taskIndex as number);
    expect(seen.length).toBeGreaterThanOrEqual(2);
    expect(new Set(seen).size).toBe(seen.length);
    for (const i of seen) expect([0, 1, 2, 3]).toContain(i);
    await onB.close();
    const summary = await getJson<RunSummary>(`${b.url}/api/runs/${id}`);
    expect(summary).toMatchObject({ status: "done", episodes: 4, completed: 4, errored: 0, successRate: 1 });
    // Every episode was played through A (the replica the request reached).
    const [run] = await query<{ instance_id: string }>("SELECT instance_id FROM runs WHERE id = $1", [id]);
    const played = await trajectoriesOf(id);
    expect(played).toHaveLength(4);
    expect(new Set(played.map((t) => t.instance_id))).toEqual(new Set([run!.instance_id]));
  }, 60_000);

  it("two replicas never both play one run", async () => {
    // Runs started on both at once: each plays its own, nobody else's.
    const [onA, onB] = await Promise.all([startRun(a.url, "0-3", 2), startRun(b.url, "4-7", 2)]);
    // While A plays its run, B can neither resume it nor play it; B may cancel it (stored: A stops).
    expect((await post(`${b.url}/api/runs/${onA}/resume`)).status).toBe(409);
    const cancelled = await post(`${b.url}/api/runs/${onA}/cancel`);
    expect(cancelled).toMatchObject({ status: 200, body: { status: "cancelled" } });
    await eventually(async () => {
      const [r] = await query<{ n: number }>(
        "SELECT COUNT(*)::int AS n FROM run_episodes WHERE run_id = $1 AND status = 'running'",
        [onA],
      );
      return r!.n === 0 ? true : undefined;
    });
    // Resumed on both replicas at the same moment: one claim wins, the other is refused.
    const resumed = await Promise.all([a, b].map((r) => post(`${r.url}/api/runs/${onA}/resume`)));
    expect(resumed.map((r) => r.status).sort()).toEqual([200, 409]);
    for (const id of [onA, onB])
      await eventually(
        async () =>
          (await getJson<RunSummary>(`${b.url}/api/runs/${id}`)).status === "done" ? true : undefined,
        30_000,
      );
    for (const id of [onA, onB]) {
      const eps = await query<{ status: string; instance_id: string }>(
        "SELECT status, instance_id FROM run_episodes WHERE run_id = $1",
        [id],
      );
      expect(eps.map((e) => e.status)).toEqual(["done", "done", "done", "done"]);
      const played = await trajectoriesOf(id);
      playedByOneAtATime(played);
      // Each task played to its end once (the cancelled attempts ended as such).
      const finished = played.filter((t) => t.end_reason === "finished").map((t) => t.run_task);
      expect(finished.sort()).toEqual(id === onA ? [0, 1, 2, 3] : [4, 5, 6, 7]);
      expect(
        played.filter((t) => t.end_reason !== "finished").every((t) => t.end_reason === "cancelled"),
      ).toBe(true);
    }
    const [runB] = await query<{ instance_id: string }>("SELECT instance_id FROM runs WHERE id = $1", [onB]);
    expect(new Set((await trajectoriesOf(onB)).map((t) => t.instance_id))).toEqual(
      new Set([runB!.instance_id]),
    );
  }, 90_000);

  it("the CLI's run records into the database: the replicas list the run, the server it added, its episodes", async () => {
    const data = tempDataDir();
    try {
      const child = spawn(
        process.execPath,
        [
          "bin/ors-playground.mjs",
          "run",
          shared.url,
          "--env",
          "math",
          "--split",
          "test",
          "--tasks",
          "1-2",
          "--policy",
          "script",
          "--script",
          "tests/runs/fixtures/math-oracle.ts",
          "--json",
          "-",
        ],
        {
          cwd: path.resolve(__dirname, "../.."),
          env: {
            ...process.env,
            PLAYGROUND_DATABASE_URL: db.ok ? db.url : "",
            PLAYGROUND_DATA_DIR: data.dir,
          },
          stdio: ["ignore", "pipe", "pipe"],
        },
      );
      let stdout = "";
      let stderr = "";
      child.stdout.on("data", (d: Buffer) => {
        stdout += d.toString();
      });
      child.stderr.on("data", (d: Buffer) => {
        stderr += d.toString();
      });
      const code = await new Promise<number | null>((resolve) => child.once("exit", resolve));
      expect(code, stderr).toBe(0);
      expect(stderr).toMatch(/recorded in PostgreSQL at postgres:\/\//);
      const { runId } = JSON.parse(stdout) as { runId: string };
      // The server it played is added in the database: B knows it by the name the run carries.
      const summary = await getJson<RunSummary & { server: string }>(`${b.url}/api/runs/${runId}`);
      expect(summary).toMatchObject({ status: "done", episodes: 2, completed: 2, successRate: 1 });
      expect(await query("SELECT name FROM added_servers WHERE url = $1", [shared.url])).toEqual([
        { name: summary.server },
      ]);
      const listed = await getJson<{ items: { id: string; server: string }[] }>(
        `${b.url}/api/trajectories?run=${runId}`,
      );
      expect(listed.items).toHaveLength(2);
      // Nothing in the data folder: no SQLite store, no servers.json.
      expect(existsSync(data.dir) ? readdirSync(data.dir) : []).toEqual([]);
    } finally {
      data.remove();
    }
  }, 60_000);

  it("kill -9 of the replica playing a run: the run shows interrupted on B, B resumes it, every task played once", async () => {
    const id = await startRun(a.url, "0-7", 2);
    const onB = watchFeed(`${b.url}/api/runs/${id}/events`);
    // Two episodes done, two more playing: then A dies.
    await eventually(async () => {
      const done = onB.events.filter((e) => e.event === "episode" && e.data.status === "done").length;
      return done >= 2 ? true : undefined;
    }, 30_000);
    await eventually(async () => {
      const [r] = await query<{ n: number }>(
        "SELECT COUNT(*)::int AS n FROM run_episodes WHERE run_id = $1 AND status = 'running'",
        [id],
      );
      return r!.n > 0 ? true : undefined;
    });
    await a.kill9();
    // B finds A dead (its pid is gone) on its next beat, and says so live.
    await onB.until((e) => e.event === "status" && e.data.status === "interrupted", 30_000);
    await onB.close();
    const interrupted = await getJson<RunSummary & { error: string }>(`${b.url}/api/runs/${id}`);
    expect(interrupted).toMatchObject({
      status: "interrupted",
      error: "the process playing this run stopped",
    });
    const before = await query<{ status: string }>("SELECT status FROM run_episodes WHERE run_id = $1", [id]);
    expect(before.some((e) => e.status === "interrupted")).toBe(true);
    expect(before.some((e) => e.status === "running")).toBe(false);

    expect(await post(`${b.url}/api/runs/${id}/resume`)).toMatchObject({
      status: 200,
      body: { status: "running" },
    });
    await eventually(
      async () =>
        (await getJson<RunSummary>(`${b.url}/api/runs/${id}`)).status === "done" ? true : undefined,
      60_000,
    );
    const summary = await getJson<RunSummary>(`${b.url}/api/runs/${id}`);
    expect(summary).toMatchObject({ episodes: 8, completed: 8, errored: 0, successRate: 1 });
    const played = await trajectoriesOf(id);
    playedByOneAtATime(played);
    // Nothing lost, nothing twice: each task finished once; A's cut attempts ended as interrupted.
    const finished = played.filter((t) => t.end_reason === "finished");
    expect(finished.map((t) => t.run_task).sort()).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    expect(played.filter((t) => t.end_reason !== "finished").map((t) => t.end_reason)).toEqual(
      played.filter((t) => t.end_reason !== "finished").map(() => "interrupted"),
    );
    // The summary's episodes are the finished ones.
    expect(summary.tasks.flatMap((t) => t.episodeIds).sort()).toEqual(finished.map((t) => t.id).sort());
    expect(new Set(played.map((t) => t.instance_id)).size).toBe(2);
  }, 120_000);
});
