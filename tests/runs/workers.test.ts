// One run played by three workers in three processes (`ors-playground worker`) on one PostgreSQL
// database, against a server whose calls take 50–200 ms (./latency-proxy.ts in front of the
// standalone host) with a cap of 6 sessions: the cap holds across the workers (the server's own
// count never passes it); a burst of 429s pauses all three (their requests stop for the Retry-After);
// one worker is killed with kill -9 in the middle, and without anyone pressing anything the others
// take its episodes over: the run ends with exactly tasks × repeats counted episodes, one counted
// attempt per task and repeat, and every attempt — the killed worker's interrupted ones too — kept.
import { once } from "node:events";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createPlayground, type Playground } from "@/lib/playground";
import { anyFreeLoopbackPort } from "../../scripts/bench-proc";
import { type Proc, start } from "../environments/helpers";
import { REPO_ROOT, type SpawnedServer, spawnOrsServer } from "../relay/helpers";
import { postgresDatabase } from "../support/postgres";
import { waitUntil } from "../support/wait";
import { FIXTURES, tempDir } from "./helpers";
import { type LatencyProxy, startLatencyProxy } from "./latency-proxy";

const db = await postgresDatabase("runs_workers");
const CAP = 6;
/** Each worker's slots: at most this many episodes each at once. */
const SLOTS = 4;
const TASKS = 100;
const REPEATS = 3;

describe("three workers in three processes play one run", () => {
  let host: SpawnedServer;
  let proxy: LatencyProxy;
  let pg: Playground;
  const workers: { proc: Proc; id: string }[] = [];

  beforeAll(async () => {
    host = await spawnOrsServer(await anyFreeLoopbackPort(), { ORS_API_KEYS: "" });
    proxy = await startLatencyProxy(host.url);
    const env = {
      PLAYGROUND_DATABASE_URL: db.url,
      ORS_SERVERS: `fix=${proxy.url}`,
      ORS_SERVER_MAX_SESSIONS_FIX: String(CAP),
      PLAYGROUND_AUTH: "none",
    };
    const procs = [0, 1, 2].map(() =>
      start(["bin/ors-playground.mjs", "worker", "--slots", String(SLOTS)], {
        cwd: REPO_ROOT,
        env: { ...env, PLAYGROUND_DATA_DIR: tempDir("runs-worker-") },
      }),
    );
    for (const proc of procs) {
      const [, id] = await proc.waitFor(/worker (\S+) \(pid \d+\) playing runs from PostgreSQL/, 60_000);
      workers.push({ proc, id: id! });
    }
    // This process only enqueues and watches.
    pg = createPlayground({ ...env, PLAYGROUND_DATA_DIR: tempDir("runs-enqueue-") }, { runWorker: false });
    await pg.ready;
  }, 120_000);

  afterEach((ctx) => {
    // A failure shows what the workers said.
    if (ctx.task.result?.state !== "fail") return;
    for (const w of workers)
      console.error(`--- worker ${w.id}:\n${w.proc.err().slice(-4000)}\n${w.proc.out().slice(-2000)}`);
  });

  afterAll(async () => {
    await pg?.close();
    await Promise.all(workers.map((w) => w.proc.stop().catch(() => {})));
    await proxy?.close();
    await host?.stop();
  });

  it("holds the cap, pauses everyone on a 429, and survives a kill -9 without a hand", async () => {
    const run = await pg.runs.start({
      server: "fix",
      env: "math",
      split: "test",
      tasks: `0-${TASKS - 1}`,
      repeats: REPEATS,
      concurrency: 12,
      policy: { kind: "script", module: `${FIXTURES}/math-oracle.ts` },
    });
    const counted = async () => (await pg.store.runProgress(run.id, 0)).counts.done;
    // A burst of 429s once all three play.
    await waitUntil(
      "all three workers played an episode",
      async () => {
        const ended = (await pg.store.runAttempts(run.id)).filter((a) => a.outcome !== null);
        return new Set(ended.map((a) => a.worker)).size === 3 ? true : undefined;
      },
      30_000,
    );
    proxy.burst(3, 2);
    await waitUntil("the burst answered", () => (proxy.log.some((r) => r.status === 429) ? true : undefined));
    // Then one worker dies in the middle, with episodes in its hands.
    const victim = workers[0]!;
    await waitUntil(
      "the victim playing, the run half done",
      async () => {
        const playing = (await pg.store.runAttempts(run.id)).filter(
          (a) => a.outcome === null && a.worker === victim.id,
        );
        return playing.length > 0 && (await counted()) >= (TASKS * REPEATS) / 3 ? true : undefined;
      },
      60_000,
    );
    // Until the kill, the server's own count of concurrent sessions never passed the cap.
    expect(proxy.sessions().most).toBeLessThanOrEqual(CAP);
    const exited = once(victim.proc.child, "exit");
    process.kill(victim.proc.child.pid!, "SIGKILL");
    await exited;
    // Once it is gone (a request it sent just before dying may still arrive before this).
    const killedAt = Date.now();
    const ended = await waitUntil(
      "the run done",
      async () => {
        const r = await pg.store.getRun(run.id);
        if (r?.status === "done") return r;
        // What the run looks like, for the failure's message.
        const { counts } = await pg.store.runProgress(run.id, 0);
        const playing = (await pg.store.runAttempts(run.id)).filter((a) => a.outcome === null);
        throw new Error(
          `run ${r?.status}: ${JSON.stringify(counts)}; playing ${playing.map((a) => `${a.taskIndex}/${a.repeat}#${a.attempt}@${a.worker}`).join(" ")}`,
        );
      },
      90_000,
    );
    expect(ended.status).toBe("done");

    // Exactly tasks × repeats counted episodes, one counted attempt each, every attempt kept.
    const episodes = await pg.store.runEpisodes(run.id);
    expect(episodes).toHaveLength(TASKS * REPEATS);
    expect(episodes.every((e) => e.status === "done" && e.outcome === "scored")).toBe(true);
    const attempts = await pg.store.runAttempts(run.id);
    const countedAttempts = attempts.filter((a) => a.counted);
    expect(countedAttempts).toHaveLength(TASKS * REPEATS);
    expect(new Set(countedAttempts.map((a) => `${a.taskIndex}/${a.repeat}`)).size).toBe(TASKS * REPEATS);
    const taken = attempts.filter((a) => a.worker === victim.id && a.outcome === "interrupted");
    expect(taken.length).toBeGreaterThan(0);
    for (const a of taken) {
      // Played again, by another worker, as a new attempt that counted.
      const again = attempts.find(
        (x) => x.taskIndex === a.taskIndex && x.repeat === a.repeat && x.attempt > a.attempt,
      );
      expect(again?.worker).not.toBe(victim.id);
    }
    expect(attempts.every((a) => a.outcome !== null && a.endedAt !== null)).toBe(true);
    expect(attempts.length).toBe(TASKS * REPEATS + attempts.filter((a) => !a.counted).length);
    const summary = await pg.store.runAggregates(run.id, { successAt: 1, histogramBins: 10 });
    expect(summary.rewards.n).toBe(TASKS * REPEATS);

    const sidWorker = new Map<string, string>();
    for (const a of attempts) {
      const t = a.trajectoryId ? await pg.store.summary(a.trajectoryId) : null;
      if (t?.sid) sidWorker.set(t.sid, a.worker!);
    }
    // Nor after it, but for sessions the victim had opened and not yet named in the store when it
    // was killed (at most one per slot it played in): nobody knows their ids, so nobody can delete
    // them (the server's idle limit ends them). Every named session was deleted.
    const unnamed = proxy.openSids();
    expect(unnamed.filter((sid) => sidWorker.has(sid))).toEqual([]);
    expect(unnamed.length).toBeLessThanOrEqual(SLOTS);
    for (const sid of unnamed) expect(proxy.log.filter((r) => r.sid === sid && r.at > killedAt)).toEqual([]);
    expect(proxy.sessions().most).toBeLessThanOrEqual(CAP + unnamed.length);
    expect(proxy.sessions().most).toBeGreaterThanOrEqual(CAP - 1);

    // The 429 burst paused every worker: none of them sent anything for the Retry-After.
    const first429 = proxy.log.find((r) => r.status === 429)!.at;
    const quiet = proxy.log.filter(
      (r) => r.at > first429 + 250 && r.at < first429 + 1800 && r.status !== 429,
    );
    expect(quiet.map((r) => `${r.path} ${sidWorker.get(r.sid ?? "") ?? "?"}`)).toEqual([]);
    // ... and each worker played before and after it.
    for (const w of workers) {
      const mine = proxy.log.filter((r) => sidWorker.get(r.sid ?? "") === w.id);
      expect(mine.some((r) => r.at < first429)).toBe(true);
      if (w !== victim) expect(mine.some((r) => r.at > first429 + 2000)).toBe(true);
    }
  }, 240_000);
});
