// The conformance suite of the RunStore half of the store contract (lib/store/types.ts):
// runs and their episodes, status changes and claims, and the aggregates of a run's summary
// checked against values computed by hand. Every implementation passes it unchanged.
import { describe, expect, it } from "vitest";
import type { PlaygroundStore, RunEpisodePatch } from "@/lib/store/types";
import { type OpenStore, storesPerTest } from "./conformance";

export function describeRunStore(name: string, openStore: OpenStore): void {
  describe(`RunStore contract: ${name}`, () => {
    const { open, opening } = storesPerTest(openStore);

    const newRun = (s: PlaygroundStore, over: Partial<Parameters<PlaygroundStore["createRun"]>[0]> = {}) =>
      s.createRun({
        server: "local",
        env: "math",
        split: "train",
        tasks: [3, 1, 2],
        repeats: 2,
        config: { concurrency: 2, policy: { kind: "random" } },
        createdAt: 100,
        instance: "me",
        ...over,
      });

    it("creates a run with every episode pending; lists, filters and pages runs", async () => {
      const s = await open();
      const r = await newRun(s);
      expect(r).toMatchObject({
        status: "queued",
        server: "local",
        env: "math",
        split: "train",
        repeats: 2,
        episodes: 6,
        config: { concurrency: 2, policy: { kind: "random" } },
        createdAt: 100,
        startedAt: null,
        endedAt: null,
        error: null,
        instance: "me",
      });
      expect(await s.getRun(r.id)).toEqual(r);
      expect(await s.getRun("nope")).toBeNull();
      // Repeat by repeat, task by task.
      expect(await s.pendingEpisodes(r.id)).toEqual([
        { taskIndex: 1, repeat: 0 },
        { taskIndex: 2, repeat: 0 },
        { taskIndex: 3, repeat: 0 },
        { taskIndex: 1, repeat: 1 },
        { taskIndex: 2, repeat: 1 },
        { taskIndex: 3, repeat: 1 },
      ]);
      const eps = await s.runEpisodes(r.id);
      expect(eps.map((e) => [e.taskIndex, e.repeat, e.status])).toEqual([
        [1, 0, "pending"],
        [1, 1, "pending"],
        [2, 0, "pending"],
        [2, 1, "pending"],
        [3, 0, "pending"],
        [3, 1, "pending"],
      ]);
      const other = await newRun(s, { env: "guess", createdAt: 200, tasks: [0], repeats: 1 });
      expect((await s.listRuns()).items.map((x) => x.id)).toEqual([other.id, r.id]);
      expect((await s.listRuns({ env: "math" })).items.map((x) => x.id)).toEqual([r.id]);
      expect(await s.listRuns({ limit: 1, offset: 1 })).toMatchObject({ total: 2, items: [{ id: r.id }] });
      expect((await s.listRuns({ status: "running" })).total).toBe(0);
    });

    it("changes status: a claim only from the statuses given, started once, ended when it stops", async () => {
      const s = await open();
      const r = await newRun(s);
      expect(await s.setRunStatus(r.id, "running", 500, { from: ["queued"], instance: "me" })).toBe(true);
      expect(await s.setRunStatus(r.id, "running", 600, { from: ["queued"] })).toBe(false);
      expect(await s.getRun(r.id)).toMatchObject({ status: "running", startedAt: 500, endedAt: null });
      expect(await s.setRunStatus(r.id, "interrupted", 700, { error: "stopped" })).toBe(true);
      expect(await s.getRun(r.id)).toMatchObject({ status: "interrupted", endedAt: 700, error: "stopped" });
      // Resumed by another process: the first start stays, the end and the error go.
      expect(await s.setRunStatus(r.id, "running", 800, { from: ["interrupted"], instance: "other" })).toBe(
        true,
      );
      expect(await s.getRun(r.id)).toMatchObject({
        startedAt: 500,
        endedAt: null,
        error: null,
        instance: "other",
      });
      expect(await s.setRunStatus("nope", "done", 1)).toBe(false);
    });

    it("one process wins a claim; an episode is played by the process that claimed it only", async () => {
      const o = await opening({ maxCount: 0, maxAgeDays: 0 });
      const procs = await Promise.all(
        ["p0", "p1", "p2", "p3"].map((id, i) => o.as({ id, pid: 2_000_000 + i, host: "here" })),
      );
      try {
        const r = await newRun(o.store, { tasks: [0, 1], repeats: 1, instance: null });
        // Four processes claim one queued run at the same moment: one wins.
        const won = await Promise.all(
          procs.map((p) =>
            p.setRunStatus(r.id, "running", 500, { from: ["queued"], instance: p.instance.id }),
          ),
        );
        expect(won.filter(Boolean)).toHaveLength(1);
        const winner = procs[won.indexOf(true)]!.instance.id;
        const loser = procs.find((p) => p.instance.id !== winner)!.instance.id;
        expect((await o.store.getRun(r.id))?.instance).toBe(winner);
        const k0 = { taskIndex: 0, repeat: 0 };
        const k1 = { taskIndex: 1, repeat: 0 };
        const running = { status: "running" as const, startedAt: 600 };
        // Only the run's player claims its episodes, each once.
        expect(await o.store.claimEpisode(r.id, k0, loser, running)).toBe(false);
        expect(await o.store.claimEpisode(r.id, k0, winner, running)).toBe(true);
        expect(await o.store.claimEpisode(r.id, k0, winner, running)).toBe(false);
        expect(await o.store.claimEpisode(r.id, k1, winner, running)).toBe(true);
        expect(await o.store.updateEpisode(r.id, k0, { status: "done", reward: 1 }, { owner: loser })).toBe(
          false,
        );
        expect(await o.store.updateEpisode(r.id, k0, { status: "done", reward: 1 }, { owner: winner })).toBe(
          true,
        );
        // Held no more once done.
        expect(await o.store.updateEpisode(r.id, k0, { reward: 0 }, { owner: winner })).toBe(false);
        // The winner is found dead: its run and episode interrupted; another process takes it over.
        expect(await o.store.setRunStatus(r.id, "interrupted", 700, { error: "stopped" })).toBe(true);
        expect(await o.store.setEpisodesStatus(r.id, ["running"], "interrupted", "stopped")).toBe(1);
        expect(await o.store.claimEpisode(r.id, k1, winner, running)).toBe(false);
        expect(
          await o.store.setRunStatus(r.id, "running", 800, { from: ["interrupted"], instance: loser }),
        ).toBe(true);
        expect(await o.store.claimEpisode(r.id, k1, loser, running)).toBe(true);
        // The one that lost it cannot settle the run, nor write over the episode now played elsewhere.
        expect(await o.store.setRunStatus(r.id, "done", 850, { owner: winner })).toBe(false);
        expect(await o.store.updateEpisode(r.id, k1, { status: "done", reward: 1 }, { owner: winner })).toBe(
          false,
        );
        expect(await o.store.updateEpisode(r.id, k1, { status: "done", reward: 0.5 }, { owner: loser })).toBe(
          true,
        );
        expect((await o.store.runEpisodes(r.id)).map((e) => [e.status, e.reward])).toEqual([
          ["done", 1],
          ["done", 0.5],
        ]);
        // A run that is not running has no episode to claim.
        expect(await o.store.setRunStatus(r.id, "done", 900)).toBe(true);
        expect(await o.store.setEpisodesStatus(r.id, ["done"], "pending", null)).toBe(2);
        expect(await o.store.claimEpisode(r.id, k0, loser, running)).toBe(false);
      } finally {
        for (const p of procs) await p.close();
      }
    });

    it("keeps every attempt: typed outcomes, infrastructure failures played again up to the limit, one counted", async () => {
      const s = await open();
      // A queue's run: no instance plays it, any worker claims its episodes.
      const r = await newRun(s, {
        tasks: [0, 1, 2],
        repeats: 1,
        instance: null,
        tags: ["quality", "nightly"],
      });
      expect(r.tags).toEqual(["nightly", "quality"]);
      expect(await s.setRunStatus(r.id, "running", 10, { from: ["queued"] })).toBe(true);
      const k = (taskIndex: number) => ({ taskIndex, repeat: 0 });
      const claim = (i: number, w: string, at: number) =>
        s.claimEpisode(r.id, k(i), w, { status: "running", startedAt: at, outcome: null, error: null });
      const end = (
        i: number,
        w: string,
        outcome: "scored" | "env_error" | "policy_stopped" | "cancelled",
        at: number,
      ) =>
        s.endAttempt(
          r.id,
          k(i),
          {
            outcome,
            endedAt: at,
            reward: outcome === "env_error" ? null : 0.5,
            stop: outcome === "scored" ? "finished" : null,
            error: outcome === "env_error" ? "HTTP 502" : null,
          },
          { owner: w, maxAttempts: 2 },
        );
      // Task 0: w1 fails it (env_error): pending again; w2 scores it: done, its attempt counted.
      expect(await claim(0, "w1", 20)).toBe(true);
      expect(await end(0, "w2", "scored", 25)).toBeNull();
      expect(await end(0, "w1", "env_error", 30)).toBe("pending");
      expect(await claim(0, "w2", 40)).toBe(true);
      expect(await end(0, "w2", "scored", 50)).toBe("done");
      expect(await end(0, "w2", "scored", 55)).toBeNull();
      // Task 1: two infrastructure failures exhaust its attempts: errored, nothing counted.
      expect(await claim(1, "w1", 20)).toBe(true);
      expect(await end(1, "w1", "env_error", 21)).toBe("pending");
      expect(await claim(1, "w1", 22)).toBe(true);
      expect(await end(1, "w1", "env_error", 23)).toBe("errored");
      expect(await claim(1, "w1", 24)).toBe(false);
      // Task 2: the policy stopped on its own: counted (its reward), with why.
      expect(await claim(2, "w3", 20)).toBe(true);
      expect(await end(2, "w3", "policy_stopped", 29)).toBe("done");
      await s.updateEpisode(r.id, k(2), { stop: "max_turns" });
      expect((await s.runEpisodes(r.id)).map((e) => [e.status, e.outcome, e.attempts, e.reward])).toEqual([
        ["done", "scored", 2, 0.5],
        ["errored", "env_error", 2, null],
        ["done", "policy_stopped", 1, 0.5],
      ]);
      const attempts = await s.runAttempts(r.id);
      expect(
        attempts.map((a) => [a.taskIndex, a.attempt, a.outcome, a.worker, a.startedAt, a.endedAt, a.counted]),
      ).toEqual([
        [0, 1, "env_error", "w1", 20, 30, false],
        [0, 2, "scored", "w2", 40, 50, true],
        [1, 1, "env_error", "w1", 20, 21, false],
        [1, 2, "env_error", "w1", 22, 23, false],
        [2, 1, "policy_stopped", "w3", 20, 29, true],
      ]);
      expect(attempts[0]!.error).toBe("HTTP 502");
      expect((await s.runAttempts(r.id, k(0))).map((a) => a.attempt)).toEqual([1, 2]);
      const a = await s.runAggregates(r.id, { successAt: 1, histogramBins: 10 });
      expect(a.outcomes).toEqual({
        scored: 1,
        env_error: 1,
        model_error: 0,
        policy_stopped: 1,
        timeout: 0,
        cancelled: 0,
        interrupted: 0,
      });
      expect(a.stops).toEqual([{ stop: "max_turns", count: 1 }]);
      expect(a.attempts).toEqual({ total: 5, retried: 3 });
      expect(a.rewards.n).toBe(2);
      // Tags filter the list.
      const other = await newRun(s);
      expect((await s.listRuns({ tag: "quality" })).items.map((x) => x.id)).toEqual([r.id]);
      expect((await s.listRuns({ tag: "nope" })).total).toBe(0);
      expect((await s.getRun(other.id))?.tags).toEqual([]);
    });

    it("an attempt is ended once; only the attempt a worker plays now is an orphan of it", async () => {
      const s = await open();
      const r = await newRun(s, { tasks: [0, 1], repeats: 1, instance: null });
      expect(await s.setRunStatus(r.id, "running", 10, { from: ["queued"] })).toBe(true);
      const k = (taskIndex: number) => ({ taskIndex, repeat: 0 });
      const claim = (i: number, w: string) =>
        s.claimEpisode(r.id, k(i), w, { status: "running", startedAt: 20 });
      const end = (i: number, w: string, outcome: "scored" | "interrupted") =>
        s.endAttempt(r.id, k(i), { outcome, endedAt: 30, reward: 1 }, { owner: w, maxAttempts: 3 });
      // No process of these names holds a lease: every open attempt of theirs is an orphan.
      const orphans = async () =>
        (await s.orphanedAttempts(Date.now() + 60_000)).map((a) => [a.taskIndex, a.attempt, a.worker]);

      // Task 0: taken over (ended interrupted, as its worker's) while that worker, slow but alive,
      // still plays it; its own end comes later and changes nothing.
      expect(await claim(0, "slow")).toBe(true);
      expect(await orphans()).toEqual([[0, 1, "slow"]]);
      expect(await end(0, "slow", "interrupted")).toBe("interrupted");
      expect(await end(0, "slow", "scored")).toBeNull();
      expect((await s.runAttempts(r.id, k(0))).map((a) => [a.outcome, a.counted])).toEqual([
        ["interrupted", false],
      ]);
      expect((await s.runEpisodes(r.id))[0]!.status).toBe("interrupted");

      // Task 1: its worker died, the run was cancelled (the attempt left open), then resumed: another
      // worker plays it now. The old attempt is nobody's to take over; the new one is its worker's.
      expect(await claim(1, "dead")).toBe(true);
      expect(await s.setEpisodesStatus(r.id, ["running"], "cancelled", "the run was cancelled")).toBe(1);
      expect(await claim(1, "live")).toBe(true);
      expect(await orphans()).toEqual([[1, 2, "live"]]);
      expect(await end(1, "dead", "interrupted")).toBeNull();
      expect(await end(1, "live", "scored")).toBe("done");
      expect(await orphans()).toEqual([]);
    });

    it("updates episodes one by one and by status; deleting a run deletes its trajectories", async () => {
      const s = await open();
      const r = await newRun(s, { tasks: [0, 1], repeats: 1 });
      const t = await s.create({
        server: "local",
        sid: "x",
        env: "math",
        task: null,
        startedAt: 1,
        run: { id: r.id, task_index: 0, repeat: 0 },
      });
      await s.updateEpisode(
        r.id,
        { taskIndex: 0, repeat: 0 },
        { status: "running", trajectoryId: t, startedAt: 10 },
      );
      await s.updateEpisode(r.id, { taskIndex: 1, repeat: 0 }, { status: "running", startedAt: 11 });
      expect(await s.setEpisodesStatus(r.id, ["running"], "interrupted", "stopped")).toBe(2);
      expect((await s.runEpisodes(r.id)).map((e) => [e.status, e.error, e.trajectoryId])).toEqual([
        ["interrupted", "stopped", t],
        ["interrupted", "stopped", null],
      ]);
      expect((await s.pendingEpisodes(r.id)).length).toBe(2);
      await s.updateEpisode(
        r.id,
        { taskIndex: 0, repeat: 0 },
        { status: "done", reward: 1, finished: true, error: null },
      );
      expect(await s.pendingEpisodes(r.id)).toEqual([{ taskIndex: 1, repeat: 0 }]);
      expect(await s.deleteRun(r.id)).toBe(true);
      expect(await s.getRun(r.id)).toBeNull();
      expect(await s.get(t)).toBeNull();
      expect(await s.runEpisodes(r.id)).toEqual([]);
      expect(await s.deleteRun(r.id)).toBe(false);
    });

    it("keeps a run's trajectories from retention, and does not count them", async () => {
      const o = await opening({ maxCount: 2, maxAgeDays: 1 });
      const s = o.store;
      const r = await newRun(s, { tasks: [0, 1, 2], repeats: 1 });
      const now = Date.now();
      const ids: string[] = [];
      for (let i = 0; i < 3; i++) {
        const id = await s.create({
          server: "local",
          sid: `r${i}`,
          env: "math",
          task: null,
          startedAt: now - 5 * 86_400_000,
          run: { id: r.id, task_index: i, repeat: 0 },
        });
        await s.end(id, "finished", now - 5 * 86_400_000);
        ids.push(id);
      }
      const others: string[] = [];
      for (let i = 0; i < 2; i++) {
        const id = await s.create({ server: "local", sid: `o${i}`, env: "math", task: null, startedAt: now });
        await s.end(id, "finished", now);
        others.push(id);
      }
      // The count cap (2) counts the two others only: nothing was removed.
      for (const id of [...ids, ...others]) expect(await s.get(id)).not.toBeNull();
      // The age cap removes the others two days later, never the run's.
      expect(await s.enforceRetention(now + 2 * 86_400_000)).toBe(2);
      for (const id of ids) expect(await s.get(id)).not.toBeNull();
      // A tag of a run that does not exist (an import from elsewhere) protects nothing.
      const orphan = await s.create({
        server: "local",
        sid: "z",
        env: "math",
        task: null,
        startedAt: now,
        run: { id: "gone", task_index: 0, repeat: 0 },
      });
      await s.end(orphan, "finished", now);
      expect(await s.enforceRetention(now + 2 * 86_400_000)).toBe(1);
      expect(await s.get(orphan)).toBeNull();
      for (const id of ids) expect(await s.get(id)).not.toBeNull();
    });

    it("aggregates a run's episodes as its summary needs them (checked by hand)", async () => {
      const s = await open();
      const r = await newRun(s, { tasks: [0, 1, 2, 3], repeats: 2 });
      const done = (
        reward: number,
        finished: boolean,
        turns: number,
        ms: number,
        tokens?: [number, number],
      ): RunEpisodePatch => ({
        status: "done",
        reward,
        finished,
        turns,
        durationMs: ms,
        ...(tokens ? { promptTokens: tokens[0], completionTokens: tokens[1] } : {}),
        startedAt: 1000,
        endedAt: 1000 + ms,
      });
      const set = (taskIndex: number, repeat: number, p: RunEpisodePatch) =>
        s.updateEpisode(r.id, { taskIndex, repeat }, p);
      await set(0, 0, { ...done(1, true, 1, 100, [10, 2]), trajectoryId: "t00" });
      await set(0, 1, { ...done(0, true, 2, 200, [20, 4]), trajectoryId: "t01" });
      await set(1, 0, { ...done(1, true, 3, 300), trajectoryId: "t10" });
      await set(1, 1, { ...done(1, false, 4, 400), trajectoryId: "t11" }); // not finished: no success
      await set(2, 0, { ...done(0.5, true, 5, 500), trajectoryId: "t20" });
      await set(2, 1, { status: "errored", error: "boom", trajectoryId: "t21", endedAt: 2000 });
      await set(3, 0, { status: "errored", error: "boom", endedAt: 2100 });
      await set(3, 1, { status: "running", startedAt: 900 });
      const a = await s.runAggregates(r.id, { successAt: 1, histogramBins: 4 });
      expect(a.counts).toEqual({ pending: 0, running: 1, done: 5, errored: 2, cancelled: 0, interrupted: 0 });
      // Rewards of the done: 1, 0, 1, 1, 0.5.
      expect(a.rewards).toEqual({ n: 5, sum: 3.5, sumSquares: 3.25, min: 0, max: 1 });
      expect(a.successes).toBe(2);
      // Four bins of width 0.25 over [0, 1]: 0 | 0 | 0.5 | 1, 1, 1.
      expect(a.histogram).toEqual([
        { from: 0, to: 0.25, count: 1 },
        { from: 0.25, to: 0.5, count: 0 },
        { from: 0.5, to: 0.75, count: 1 },
        { from: 0.75, to: 1, count: 3 },
      ]);
      expect(a.tasks).toEqual([
        { index: 0, rewards: [1, 0], episodeIds: ["t00", "t01"], completed: 2, successes: 1 },
        { index: 1, rewards: [1, 1], episodeIds: ["t10", "t11"], completed: 2, successes: 1 },
        { index: 2, rewards: [0.5, null], episodeIds: ["t20", "t21"], completed: 1, successes: 0 },
        { index: 3, rewards: [null, null], episodeIds: [null, null], completed: 0, successes: 0 },
      ]);
      expect(a.errors).toEqual([{ message: "boom", count: 2 }]);
      // Nearest rank over 1..5 turns: p50 = 3rd, p90 = 5th, p99 = 5th.
      expect(a.turns).toEqual({ p50: 3, p90: 5, p99: 5, max: 5 });
      expect(a.durationMs).toEqual({ p50: 300, p90: 500, p99: 500, max: 500 });
      expect(a.tokens).toEqual({ episodes: 2, prompt: 30, completion: 6 });
      expect(a.firstStartedAt).toBe(900);
      expect(a.lastEndedAt).toBe(2100);
      // Another threshold: rewards ≥ 0.5 of finished episodes.
      expect((await s.runAggregates(r.id, { successAt: 0.5, histogramBins: 4 })).successes).toBe(3);
      expect(await s.runProgress(r.id, 1400)).toEqual({
        counts: a.counts,
        endedSince: 4, // 1400 (t11), 1500 (t20), 2000 and 2100 (the errored)
      });
    });

    it("aggregates an empty run and a run whose rewards are all equal", async () => {
      const s = await open();
      const r = await newRun(s, { tasks: [0, 1], repeats: 1 });
      const empty = await s.runAggregates(r.id, { successAt: 1, histogramBins: 10 });
      expect(empty).toMatchObject({
        rewards: { n: 0, min: null, max: null },
        histogram: [],
        turns: null,
        durationMs: null,
      });
      for (const i of [0, 1])
        await s.updateEpisode(
          r.id,
          { taskIndex: i, repeat: 0 },
          { status: "done", reward: 2, finished: true, turns: 1, durationMs: 5 },
        );
      expect((await s.runAggregates(r.id, { successAt: 1, histogramBins: 10 })).histogram).toEqual([
        { from: 2, to: 2, count: 2 },
      ]);
    });

    it("aggregates 10,000 episodes", async () => {
      const s = await open();
      const r = await newRun(s, { tasks: Array.from({ length: 2500 }, (_, i) => i), repeats: 4 });
      const all = await s.pendingEpisodes(r.id);
      expect(all.length).toBe(10_000);
      let sum = 0;
      for (const [i] of all.entries()) sum += (i % 10) / 10;
      // A hundred at a time: a pool of connections (PostgreSQL) is not one round trip per episode.
      for (let from = 0; from < all.length; from += 100)
        await Promise.all(
          all.slice(from, from + 100).map((k, j) => {
            const i = from + j;
            return s.updateEpisode(r.id, k, {
              status: "done",
              reward: (i % 10) / 10,
              finished: true,
              turns: (i % 7) + 1,
              durationMs: i,
            });
          }),
        );
      const a = await s.runAggregates(r.id, { successAt: 0.9, histogramBins: 10 });
      expect(a.rewards.n).toBe(10_000);
      expect(a.rewards.sum).toBeCloseTo(sum, 6);
      expect(a.successes).toBe(1000);
      expect(a.tasks.length).toBe(2500);
      expect(a.histogram.reduce((n, b) => n + b.count, 0)).toBe(10_000);
      expect(a.turns?.max).toBe(7);
      expect(a.durationMs).toEqual({ p50: 4999, p90: 8999, p99: 9899, max: 9999 });
    }, 120_000);
  });
}
