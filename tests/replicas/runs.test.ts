// Runs across app replicas as real processes on one PostgreSQL database (the test run's cluster),
// playing the shared ORS server (the standalone host). Every replica is a worker of the runs' job
// queue: a run started through replica A is played by both and followed live on B (its episodes
// reach B by NOTIFY), each episode counted once; B cancels a run started on A, and of two resumes
// at once one wins; the CLI's `run` records into the database (the replicas show it); and after
// kill -9 of A in the middle of a run, B takes A's episodes over without anyone pressing anything:
// every task counted exactly once, A's attempts kept as interrupted.
import { existsSync, readdirSync } from "node:fs";
import pg from "pg";
import { describe, expect, it } from "vitest";
import { runBin } from "../cli/helpers";
import { eventually } from "../environments/helpers";
import { postgresDatabase } from "../support/postgres";
import { type FeedEvent, getJson, tempDataDir, twoReplicasAround, watchFeed } from "./helpers";

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
  const client = new pg.Client({ connectionString: db.url });
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

describe("runs across app replicas on one PostgreSQL database", () => {
  const replicas = twoReplicasAround(db.url);

  it("a run started on A is played by the replicas' workers and followed live on B, episode by episode", async () => {
    const id = await startRun(replicas.a.url, "0-3", 2);
    const onB = watchFeed(`${replicas.b.url}/api/runs/${id}/events`);
    const ended = (e: FeedEvent) => e.event === "episode" && e.data.status === "done";
    await onB.until((e) => e.event === "episode" && e.data.status === "running", 15_000);
    await onB.until((e) => e.event === "status" && e.data.status === "done", 30_000);
    // (B's stream opened a moment after the start: the first to end may have ended before it.)
    const seen = onB.events.filter(ended).map((e) => e.data.taskIndex as number);
    expect(seen.length).toBeGreaterThanOrEqual(2);
    expect(new Set(seen).size).toBe(seen.length);
    for (const i of seen) expect([0, 1, 2, 3]).toContain(i);
    await onB.close();
    const summary = await getJson<RunSummary>(`${replicas.b.url}/api/runs/${id}`);
    expect(summary).toMatchObject({ status: "done", episodes: 4, completed: 4, errored: 0, successRate: 1 });
    // The queue plays it: no replica owns the run; each episode counted once, by a replica's worker.
    const [run] = await query<{ instance_id: string | null }>("SELECT instance_id FROM runs WHERE id = $1", [
      id,
    ]);
    expect(run!.instance_id).toBeNull();
    const played = await trajectoriesOf(id);
    expect(played).toHaveLength(4);
    expect(new Set(played.map((t) => t.run_task))).toEqual(new Set([0, 1, 2, 3]));
    const workers = await query<{ worker: string }>(
      "SELECT DISTINCT worker FROM run_attempts WHERE run_id = $1 AND counted = 1",
      [id],
    );
    const live = new Set((await query<{ id: string }>("SELECT id FROM instances")).map((x) => x.id));
    for (const w of workers) expect(live.has(w.worker)).toBe(true);
  }, 60_000);

  it("B cancels a run started on A; of two resumes at once one wins; every task counted once", async () => {
    const id = await startRun(replicas.a.url, "0-5", 2);
    await eventually(async () => {
      const [r] = await query<{ n: number }>(
        "SELECT COUNT(*)::int AS n FROM run_episodes WHERE run_id = $1 AND status = 'running'",
        [id],
      );
      return r!.n > 0 ? true : undefined;
    });
    const cancelled = await post(`${replicas.b.url}/api/runs/${id}/cancel`);
    expect(cancelled).toMatchObject({ status: 200, body: { status: "cancelled" } });
    const [running] = await query<{ n: number }>(
      "SELECT COUNT(*)::int AS n FROM run_episodes WHERE run_id = $1 AND status = 'running'",
      [id],
    );
    expect(running!.n).toBe(0);
    // Resumed on both replicas at the same moment: one claim wins, the other is refused.
    const resumed = await Promise.all(
      [replicas.a, replicas.b].map((r) => post(`${r.url}/api/runs/${id}/resume`)),
    );
    expect(resumed.map((r) => r.status).sort()).toEqual([200, 409]);
    await eventually(
      async () =>
        (await getJson<RunSummary>(`${replicas.b.url}/api/runs/${id}`)).status === "done" ? true : undefined,
      30_000,
    );
    const eps = await query<{ status: string }>("SELECT status FROM run_episodes WHERE run_id = $1", [id]);
    expect(eps.map((e) => e.status)).toEqual(eps.map(() => "done"));
    const counted = await query<{ task_index: number }>(
      "SELECT task_index FROM run_attempts WHERE run_id = $1 AND counted = 1 ORDER BY task_index",
      [id],
    );
    expect(counted.map((x) => x.task_index)).toEqual([0, 1, 2, 3, 4, 5]);
    const played = await trajectoriesOf(id);
    expect(played.filter((t) => t.end_reason !== "finished").every((t) => t.end_reason === "cancelled")).toBe(
      true,
    );
  }, 90_000);

  it("the CLI's run records into the database: the replicas list the run, the server it added, its episodes", async () => {
    const data = tempDataDir();
    try {
      const { code, stdout, stderr } = await runBin(
        [
          "run",
          replicas.shared.url,
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
        { env: { PLAYGROUND_DATABASE_URL: db.url, PLAYGROUND_DATA_DIR: data.dir } },
      );
      expect(code, stderr).toBe(0);
      expect(stderr).toMatch(/recorded in PostgreSQL at postgres:\/\//);
      const { runId } = JSON.parse(stdout) as { runId: string };
      // The server it played is added in the database: B knows it by the name the run carries.
      const summary = await getJson<RunSummary & { server: string }>(`${replicas.b.url}/api/runs/${runId}`);
      expect(summary).toMatchObject({ status: "done", episodes: 2, completed: 2, successRate: 1 });
      expect(await query("SELECT name FROM added_servers WHERE url = $1", [replicas.shared.url])).toEqual([
        { name: summary.server },
      ]);
      const listed = await getJson<{ items: { id: string; server: string }[] }>(
        `${replicas.b.url}/api/trajectories?run=${runId}`,
      );
      expect(listed.items).toHaveLength(2);
      // Nothing in the data folder: no SQLite store, no servers.json.
      expect(existsSync(data.dir) ? readdirSync(data.dir) : []).toEqual([]);
    } finally {
      data.remove();
    }
  }, 60_000);

  it("kill -9 of a replica playing a run: B takes its episodes over without a hand, every task counted once", async () => {
    const id = await startRun(replicas.a.url, "0-7", 2);
    const aInstance = await eventually(async () => {
      const [r] = await query<{ worker: string }>(
        `SELECT a.worker FROM run_attempts a JOIN trajectories t ON t.id = (SELECT trajectory_id FROM run_episodes e
           WHERE e.run_id = a.run_id AND e.task_index = a.task_index AND e.repeat = a.repeat)
         WHERE a.run_id = $1 AND a.outcome IS NULL AND t.instance_id = a.worker
           AND a.worker IN (SELECT id FROM instances WHERE pid = $2)`,
        [id, replicas.a.pid],
      );
      return r?.worker;
    }, 30_000);
    await replicas.a.kill9();
    await eventually(
      async () =>
        (await getJson<RunSummary>(`${replicas.b.url}/api/runs/${id}`)).status === "done" ? true : undefined,
      90_000,
    );
    const summary = await getJson<RunSummary>(`${replicas.b.url}/api/runs/${id}`);
    expect(summary).toMatchObject({ episodes: 8, completed: 8, errored: 0, successRate: 1 });
    const attempts = await query<{ task_index: number; worker: string; outcome: string; counted: number }>(
      "SELECT task_index, worker, outcome, counted FROM run_attempts WHERE run_id = $1 ORDER BY task_index, attempt",
      [id],
    );
    // Nothing lost, nothing twice: one counted attempt per task; A's cut ones interrupted and played again.
    expect(attempts.filter((x) => x.counted === 1).map((x) => x.task_index)).toEqual([
      0, 1, 2, 3, 4, 5, 6, 7,
    ]);
    const cut = attempts.filter((x) => x.worker === aInstance && x.outcome === "interrupted");
    expect(cut.length).toBeGreaterThan(0);
    for (const x of cut)
      expect(
        attempts.some((y) => y.task_index === x.task_index && y.counted === 1 && y.worker !== aInstance),
      ).toBe(true);
    const played = await trajectoriesOf(id);
    const finished = played.filter((t) => t.end_reason === "finished");
    expect(summary.tasks.flatMap((t) => t.episodeIds).sort()).toEqual(finished.map((t) => t.id).sort());
  }, 150_000);
});
