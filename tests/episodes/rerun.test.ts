// Fork and replay through their route handlers, in process, on the built-in host: a run follows
// the request's signal (a page that goes away stops it and its session is deleted), and a finished
// run answers its result.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Playground } from "@/lib/playground";
import { waitUntil } from "../support/wait";
import { step, tempDir, trajectory } from "./helpers";

type Handler = (req: Request, ctx: { params: Promise<{ id: string }> }) => Promise<Response>;

let playground: Playground;
let fork: Handler;
let replay: Handler;

beforeAll(async () => {
  process.env.PLAYGROUND_DATA_DIR = tempDir("traj-rerun-");
  playground = (await import("@/lib/playground")).getPlayground();
  fork = (await import("@/app/api/trajectories/[id]/fork/route")).POST;
  replay = (await import("@/app/api/trajectories/[id]/replay/route")).POST;
  // A `slow` episode whose second action waits a minute, and a quick one.
  const wait = (index: number, seconds: number) =>
    step(index, { tool: "wait", input: { seconds }, reward: 0, finished: false, blocks: [] });
  await playground.store.importMany([
    trajectory("slow-episode", {
      env: "slow",
      task: { split: "train", index: 0 },
      steps: [wait(1, 0), wait(2, 60)],
      end_reason: "user_closed",
    }),
    trajectory("quick-episode", {
      env: "slow",
      task: { split: "train", index: 0 },
      steps: [wait(1, 0)],
      end_reason: "user_closed",
    }),
  ]);
});

afterAll(async () => {
  await playground.close();
  delete process.env.PLAYGROUND_DATA_DIR;
});

function post(handler: Handler, id: string, body: unknown, signal?: AbortSignal): Promise<Response> {
  const req = new Request(`http://127.0.0.1:3000/api/trajectories/${id}/x`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
    signal,
  });
  return handler(req, { params: Promise.resolve({ id }) });
}

/** Resolves once the host has no open session (the run's session deleted), or fails after 5 s. */
async function noSessionsLeft(): Promise<void> {
  await waitUntil("no session left open", () => playground.host.host.sessionCount === 0, 5_000);
}

/**
 * Resolves once slow-episode's second call (the minute-long one) runs on the host: its first call
 * (a quick one) has left its result kept, and a call runs. Fails after 5 s.
 */
async function inTheLongCall(keptBefore: number): Promise<void> {
  await waitUntil(
    "the minute-long call running on the host",
    () => {
      const stats = playground.host.host.stats();
      return stats.runsRunning === 1 && stats.resultsKept > keptBefore;
    },
    5_000,
  );
}

describe("fork and replay follow their request", () => {
  it("a replay whose page goes away mid-call stops at once and deletes its session", async () => {
    const abort = new AbortController();
    const started = Date.now();
    const kept = playground.host.host.stats().resultsKept;
    const answer = post(replay, "slow-episode", {}, abort.signal);
    // Wait until the replay is inside the minute-long call, then leave.
    await inTheLongCall(kept);
    expect(playground.host.host.sessionCount).toBe(1);
    abort.abort();
    const res = await answer;
    expect(res.status).toBe(499);
    expect(Date.now() - started).toBeLessThan(10_000);
    await noSessionsLeft();
  });

  it("a fork whose page goes away does not leave the forked session open", async () => {
    const abort = new AbortController();
    const kept = playground.host.host.stats().resultsKept;
    const answer = post(fork, "slow-episode", { step: 2 }, abort.signal);
    await inTheLongCall(kept);
    abort.abort();
    expect((await answer).status).toBe(499);
    await noSessionsLeft();
  });

  it("a replay that runs to the end answers its diff, and closes its session", async () => {
    const res = await post(replay, "quick-episode", {});
    expect(res.status).toBe(200);
    const body = (await res.json()) as { trajectory_id: string; diff: { steps: unknown[] } };
    expect(body.diff.steps).toHaveLength(1);
    expect((await playground.store.get(body.trajectory_id))?.origin).toMatchObject({
      kind: "replay",
      from: "quick-episode",
    });
    await noSessionsLeft();
  });
});
