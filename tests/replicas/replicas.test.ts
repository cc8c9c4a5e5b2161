// Two app replicas as real processes on one PostgreSQL database (the test run's cluster), relaying
// to a shared ORS server (the standalone host, a third process): an episode a script plays through
// replica A's relay is listed on B and watched live on B's SSE feeds step by step; 40 concurrent
// episodes through both lose nothing; a replica killed with -9 in the middle of an episode leaves
// the other serving, the episode readable and playable on through B, and its built-in host's
// episode ended. Neither replica writes to its data folder.
import { existsSync } from "node:fs";
import pg from "pg";
import { describe, expect, it } from "vitest";
import { HOST_STOPPED_ERROR, INTERRUPTED_STEP_ERROR } from "@/lib/store/types";
import { eventually } from "../environments/helpers";
import { nginxBinary, startNginx } from "../support/nginx";
import { postgresDatabase } from "../support/postgres";
import {
  type FeedEvent,
  getJson,
  relayClient,
  replicasBehindNginx,
  twoReplicasAround,
  watchFeed,
} from "./helpers";

const db = await postgresDatabase("replicas");
const nginx = await nginxBinary("replicas behind nginx");

interface Summary {
  id: string;
  server: string;
  sid: string | null;
  num_steps: number;
  total_reward: number;
  end_reason: string | null;
  error: string | null;
}
interface Step {
  index: number;
  tool: string;
  ok: boolean | null;
  reward: number | null;
  finished: boolean;
  events: unknown[];
}
interface Trajectory extends Omit<Summary, "num_steps"> {
  steps: Step[];
  prompt: unknown;
}

/** Binary search on `guess` through one replica's relay; the number of calls it took. */
async function playGuess(replicaUrl: string, index: number): Promise<{ sid: string; calls: number }> {
  const ors = relayClient(replicaUrl, "shared");
  const sid = await ors.createEpisode("guess", "train", index);
  await ors.prompt("guess", sid);
  let low = 1;
  let high = 100;
  for (let calls = 1; calls <= 8; calls++) {
    const n = Math.floor((low + high) / 2);
    const out = (await ors.call("guess", sid, "guess", { number: n })) as {
      finished?: boolean;
      blocks?: { text: string }[];
    };
    if (out.finished) return { sid, calls };
    if (out.blocks?.[0]?.text === "higher") low = n + 1;
    else high = n - 1;
  }
  throw new Error("binary search did not finish in 8 guesses");
}

const isStarted = (sid: string) => (e: FeedEvent) =>
  e.event === "started" && (e.data.summary as Summary).sid === sid;

describe("app replicas on one PostgreSQL database", () => {
  const replicas = twoReplicasAround(db.url);

  it("an episode played through A is listed on B and watched live on B, step by step", async () => {
    const all = watchFeed(`${replicas.b.url}/api/trajectories/live/events`);
    await all.until((e) => e.event === "running");
    const ors = relayClient(replicas.a.url, "shared");
    const sid = await ors.createEpisode("guess", "train", 3);
    const started = await all.until(isStarted(sid));
    const id = (started.data.summary as Summary).id;
    expect(started.data.summary).toMatchObject({ server: "shared", sid, end_reason: null });

    const one = watchFeed(`${replicas.b.url}/api/trajectories/${id}/events`);
    await one.until((e) => e.event === "snapshot");
    await ors.prompt("guess", sid);
    await one.until((e) => e.event === "prompt");

    // Each call through A shows on B before the next one is made: its frames and its step.
    let low = 1;
    let high = 100;
    let calls = 0;
    for (;;) {
      const n = Math.floor((low + high) / 2);
      const out = (await ors.call("guess", sid, "guess", { number: n })) as {
        finished?: boolean;
        blocks?: { text: string }[];
      };
      calls++;
      const done = await one.until(
        (e) =>
          e.event === "step" && (e.data.step as Step).index === calls && (e.data.step as Step).ok === true,
      );
      expect((done.data.step as Step).finished).toBe(!!out.finished);
      await one.until(
        (e) =>
          e.event === "frame" &&
          e.data.index === calls &&
          (e.data.event as { event: string }).event === "task_id",
      );
      if (out.finished) break;
      if (out.blocks?.[0]?.text === "higher") low = n + 1;
      else high = n - 1;
    }
    await all.until((e) => e.event === "ended" && e.data.id === id && e.data.end_reason === "finished");
    // B's list of running episodes followed A's episode step by step too (frames are left to `one`).
    const listed = all.events.filter((e) => e.event === "step" && e.data.id === id);
    expect(new Set(listed.map((e) => (e.data.step as Step).index)).size).toBe(calls);
    expect(all.events.some((e) => e.event === "frame")).toBe(false);
    await one.close();
    await all.close();

    // The record, read on B: every step, the prompt, the end.
    const t = await getJson<Trajectory>(`${replicas.b.url}/api/trajectories/${id}`);
    expect(t).toMatchObject({ server: "shared", sid, end_reason: "finished" });
    expect(t.prompt).not.toBeNull();
    expect(t.steps.map((s) => s.index)).toEqual(Array.from({ length: calls }, (_, i) => i + 1));
    expect(t.steps.every((s) => s.ok === true && s.events.length > 0)).toBe(true);
    const list = await getJson<{ items: Summary[] }>(`${replicas.b.url}/api/trajectories?server=shared`);
    expect(list.items.find((x) => x.id === id)).toMatchObject({ num_steps: calls, end_reason: "finished" });
  }, 60_000);

  it("a server added on A is known to B; neither replica writes to its data folder", async () => {
    const res = await fetch(`${replicas.a.url}/api/servers`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ name: "added", url: replicas.shared.url, apiKey: "key-of-added" }),
    });
    expect(res.status).toBe(201);
    const again = await fetch(`${replicas.b.url}/api/servers`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ name: "added", url: replicas.shared.url }),
    });
    expect(again.status).toBe(409);
    const servers = await getJson<{ name: string; source: string; hasApiKey: boolean }[]>(
      `${replicas.b.url}/api/servers`,
    );
    expect(servers.find((s) => s.name === "added")).toMatchObject({ source: "user", hasApiKey: true });
    // The added server works through B's relay (the key stays on the server side).
    const ors = relayClient(replicas.b.url, "added");
    const sid = await ors.createEpisode("math", "train", 0);
    expect(await ors.delete(sid)).toBe(200);
    expect(existsSync(replicas.dataA.dir)).toBe(false);
    expect(existsSync(replicas.dataB.dir)).toBe(false);
  }, 30_000);

  it("40 concurrent episodes, half through each replica: nothing lost, all seen live on both", async () => {
    const feedA = watchFeed(`${replicas.a.url}/api/trajectories/live/events`);
    const feedB = watchFeed(`${replicas.b.url}/api/trajectories/live/events`);
    await Promise.all([feedA.until((e) => e.event === "running"), feedB.until((e) => e.event === "running")]);
    const played = await Promise.all(
      Array.from({ length: 40 }, (_, i) => playGuess(i % 2 ? replicas.b.url : replicas.a.url, 10 + i)),
    );
    const sids = new Set(played.map((p) => p.sid));
    // The relay answers as the call ends; its recorder writes right after: wait until both settle.
    const settled = Date.now();
    for (const replica of [replicas.a, replicas.b]) {
      const ours = await eventually(async () => {
        const { items } = await getJson<{ items: Summary[] }>(
          `${replica.url}/api/trajectories?server=shared&end_reason=finished&limit=1000`,
        );
        const done = items.filter((x) => sids.has(x.sid!));
        return done.length === 40 ? done : undefined;
      }, 30_000);
      for (const p of played) {
        const t = ours.find((x) => x.sid === p.sid)!;
        expect(t, p.sid).toMatchObject({ num_steps: p.calls, end_reason: "finished" });
      }
    }
    console.log(`40 episodes recorded ${Date.now() - settled} ms after the last answer`);
    for (const p of played) {
      const { id } = (await getJson<{ items: Summary[] }>(`${replicas.a.url}/api/trajectories?q=${p.sid}`))
        .items[0]!;
      const t = await getJson<Trajectory>(`${replicas.b.url}/api/trajectories/${id}`);
      expect(t.steps.map((s) => [s.index, s.ok])).toEqual(
        Array.from({ length: p.calls }, (_, i) => [i + 1, true]),
      );
      expect(t.steps.at(-1)!.finished).toBe(true);
    }
    // Both all-episodes feeds saw every start and every end, wherever it was recorded.
    for (const feed of [feedA, feedB]) {
      for (const sid of sids) await feed.until(isStarted(sid));
      const startedIds = feed.events
        .filter((e) => e.event === "started" && sids.has((e.data.summary as Summary).sid!))
        .map((e) => e.data.id);
      for (const id of startedIds)
        await feed.until((e) => e.event === "ended" && e.data.id === id && e.data.end_reason === "finished");
      expect(new Set(startedIds).size).toBe(40);
    }
    await feedA.close();
    await feedB.close();
  }, 120_000);

  it("behind nginx: a session's requests reach one replica, the rest spread, live feeds stream", async () => {
    const proxy = await startNginx(nginx.path, {
      http: replicasBehindNginx([replicas.a.url, replicas.b.url]),
    });
    try {
      const feed = watchFeed(`${proxy.url}/api/trajectories/live/events`);
      await feed.until((e) => e.event === "running");
      const played = await Promise.all(Array.from({ length: 12 }, (_, i) => playGuess(proxy.url, 60 + i)));
      const sids = played.map((p) => p.sid);
      for (const p of played) {
        const started = await feed.until(isStarted(p.sid));
        const id = (started.data.summary as Summary).id;
        await feed.until((e) => e.event === "ended" && e.data.id === id && e.data.end_reason === "finished");
        const t = await getJson<Trajectory>(`${proxy.url}/api/trajectories/${id}`);
        expect(t.steps.map((s) => [s.index, s.ok])).toEqual(
          Array.from({ length: p.calls }, (_, i) => [i + 1, true]),
        );
      }
      await feed.close();
      // Both replicas recorded some of them (the database says which).
      const client = new pg.Client({ connectionString: db.url });
      await client.connect();
      const byReplica = await client.query<{ instance_id: string; n: number }>(
        "SELECT instance_id, COUNT(*)::int AS n FROM trajectories WHERE sid = ANY($1) GROUP BY instance_id",
        [sids],
      );
      await client.end();
      expect(byReplica.rows).toHaveLength(2);
      expect(proxy.errors()).not.toMatch(/\[(error|crit|alert|emerg)\]/);
    } finally {
      await proxy.stop();
    }
  }, 60_000);

  it("kill -9 of a replica mid-episode: the other serves on, the episode is readable and goes on through it", async () => {
    const all = watchFeed(`${replicas.b.url}/api/trajectories/live/events`);
    await all.until((e) => e.event === "running");
    // An episode on the shared server through A, with a call in flight when A dies...
    const onA = relayClient(replicas.a.url, "shared");
    const sid = await onA.createEpisode("slow", "train", 0);
    await onA.call("slow", sid, "fast", {});
    const id = ((await all.until(isStarted(sid))).data.summary as Summary).id;
    const inflight = onA.call("slow", sid, "wait", { seconds: 5 }).catch((e: Error) => e);
    await all.until((e) => e.event === "step" && e.data.id === id && (e.data.step as Step).index === 2);
    // A watcher opening the episode on B now sees that call as running (A carries it), not as cut.
    const snapshotOnB = async () => {
      const feed = watchFeed(`${replicas.b.url}/api/trajectories/${id}/events`);
      const snap = await feed.until((e) => e.event === "snapshot");
      await feed.close();
      return snap.data as { inflight: number[]; trajectory: Trajectory };
    };
    const during = await snapshotOnB();
    expect(during.inflight).toEqual([2]);
    expect(during.trajectory.steps.map((s) => [s.index, s.ok])).toEqual([
      [1, true],
      [2, null],
    ]);
    // ...and one on A's built-in host, which lives and dies with A.
    const localOnA = relayClient(replicas.a.url, "local");
    const localSid = await localOnA.createEpisode("guess", "train", 0);
    const localId = ((await all.until(isStarted(localSid))).data.summary as Summary).id;
    // B cannot reach A's built-in host: asking B about that session (as a page opened on B would)
    // is answered "unknown session", and leaves A's episode alone.
    const pingOnB = await fetch(`${replicas.b.url}/api/servers/local/ping`, {
      method: "POST",
      headers: { "x-session-id": localSid },
    });
    expect(pingOnB.status).toBe(404);
    expect(await localOnA.call("guess", localSid, "hint", {})).toMatchObject({ finished: false });
    await all.until((e) => e.event === "step" && e.data.id === localId && (e.data.step as Step).ok === true);
    expect(await getJson<Summary>(`${replicas.b.url}/api/trajectories/${localId}`)).toMatchObject({
      end_reason: null,
    });

    await replicas.a.kill9();
    expect(await inflight).toBeInstanceOf(Error);
    // With A gone (B finds its lease dead), that call is cut: nobody carries it any more.
    expect(
      (await eventually(async () => ((await snapshotOnB()).inflight.length ? undefined : true))) as boolean,
    ).toBe(true);

    // B serves: the list, the record so far (the cut call marked interrupted), new episodes.
    const t = await getJson<Trajectory>(`${replicas.b.url}/api/trajectories/${id}`);
    expect(t.end_reason).toBeNull();
    expect(t.steps.map((s) => [s.index, s.tool, s.ok])).toEqual([
      [1, "fast", true],
      [2, "wait", false],
    ]);
    expect(t.steps[1]).toMatchObject({ error: INTERRUPTED_STEP_ERROR });
    const listed = await getJson<{ items: Summary[] }>(`${replicas.b.url}/api/trajectories?server=shared`);
    expect(listed.items.map((x) => x.id)).toContain(id);
    const fresh = await playGuess(replicas.b.url, 99);
    expect(fresh.calls).toBeGreaterThan(0);

    // The shared server still has the session: the episode goes on through B, in the same record.
    const onB = relayClient(replicas.b.url, "shared");
    expect(await onB.call("slow", sid, "fast", { finish: true })).toMatchObject({
      finished: true,
      reward: 1,
    });
    await all.until((e) => e.event === "ended" && e.data.id === id && e.data.end_reason === "finished");
    const after = await getJson<Trajectory>(`${replicas.b.url}/api/trajectories/${id}`);
    expect(after.steps.map((s) => [s.index, s.tool, s.ok])).toEqual([
      [1, "fast", true],
      [2, "wait", false],
      [3, "fast", true],
    ]);

    // A's built-in host is gone with A: B ends that episode, saying why.
    const ended = await all.until((e) => e.event === "ended" && e.data.id === localId, 30_000);
    expect(ended.data).toMatchObject({
      end_reason: "error",
      error: HOST_STOPPED_ERROR,
    });
    await all.close();
  }, 90_000);
});
