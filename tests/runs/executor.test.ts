// Runs on the built-in host, in process: the executor plays every episode through the recording
// relay (each a trajectory tagged with its run), with the script, random and replay policies;
// cancel, resume, time limits, tool errors as steps, a restart in the middle.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generateMathTasks } from "@/envs/math";
import { isOrsClientError } from "@/lib/ors/client";
import type { StartRun } from "@/lib/runs/executor";
import { buildSummary } from "@/lib/runs/summary";
import { waitUntil } from "../support/wait";
import { FIXTURES, sleepyRun, type TestPlayground, testPlayground } from "./helpers";

let t: TestPlayground;

/** A run of the built-in host's math environment, on `split`. */
function onMath(split: string, rest: Omit<StartRun, "server" | "env" | "split">): StartRun {
  return { server: "local", env: "math", split, ...rest };
}

const script = (file: string) => ({ kind: "script" as const, module: `${FIXTURES}/${file}` });

beforeAll(() => {
  t = testPlayground();
});
afterAll(async () => {
  await t.close();
});

async function summaryOf(id: string) {
  const run = (await t.pg.store.getRun(id))!;
  return buildSummary(run, await t.pg.store.runAggregates(id, { successAt: 1, histogramBins: 10 }));
}

describe("a script policy on math", () => {
  it("plays every task, records each episode as a tagged trajectory, and scores it", async () => {
    const run = await t.pg.runs.start(
      onMath("test", { tasks: "0-9", concurrency: 4, policy: script("math-oracle.ts") }),
    );
    expect(run.status).toBe("running");
    expect((await t.pg.runs.settled(run.id))?.status).toBe("done");
    const s = await summaryOf(run.id);
    expect(s).toMatchObject({
      episodes: 10,
      completed: 10,
      errored: 0,
      running: 0,
      successRate: 0.8,
      meanReward: 0.8,
    });
    expect(s.passAtK).toEqual({ "1": 0.8 });
    expect(s.tasks.map((x) => x.rewards[0])).toEqual([0, 1, 1, 1, 1, 0, 1, 1, 1, 1]);
    const answers = generateMathTasks("test");
    const { items } = await t.pg.store.list({ run: run.id, limit: 100 });
    expect(items).toHaveLength(10);
    for (const x of s.tasks) {
      const tr = (await t.pg.store.get(x.episodeIds[0]!))!;
      expect(tr).toMatchObject({
        server: "local",
        env: "math",
        task: { split: "test", index: x.index },
        run: { id: run.id, task_index: x.index, repeat: 0 },
        end_reason: "finished",
      });
      expect(tr.tools?.map((tool) => tool.name)).toEqual(["submit"]);
      expect(tr.steps).toHaveLength(1);
      expect(tr.steps[0]!.agent).toMatchObject({ policy: "script", turn: 1 });
      const right = answers[x.index]!.answer;
      expect(tr.steps[0]!.input).toEqual({ answer: x.index % 5 === 0 ? `${right}0` : right });
    }
  });
});

describe("the random policy", () => {
  it("calls tools with valid random inputs, the same ones for the same seed", async () => {
    const start = () =>
      t.pg.runs.start({
        server: "local",
        env: "guess",
        split: "test",
        tasks: [0, 1],
        repeats: 2,
        concurrency: 4,
        policy: { kind: "random", seed: 7, maxTurns: 4 },
      });
    const a = await start();
    const b = await start();
    await t.pg.runs.settled(a.id);
    await t.pg.runs.settled(b.id);
    const inputs = async (id: string) => {
      const out: unknown[] = [];
      for (const e of await t.pg.store.runEpisodes(id)) {
        expect(e).toMatchObject({ status: "done", stop: expect.stringMatching(/^(max_turns|finished)$/) });
        const tr = (await t.pg.store.get(e.trajectoryId!))!;
        for (const st of tr.steps) {
          // guess takes an integer 1-100; hint takes nothing: every input is valid, none refused.
          expect(st.ok).toBe(true);
          if (st.tool === "guess")
            expect(st.input.number).toSatisfy((n: number) => Number.isInteger(n) && n >= 1 && n <= 100);
          expect(st.agent).toMatchObject({ policy: "random" });
        }
        out.push(tr.steps.map((st) => [st.tool, st.input]));
      }
      return out;
    };
    const ia = await inputs(a.id);
    expect(ia).toEqual(await inputs(b.id));
    // Repeats of a task are drawn differently.
    expect(ia[0]).not.toEqual(ia[1]);
  });
});

describe("episodes that meet trouble", () => {
  it("keeps tool errors as steps the policy sees, not errored episodes", async () => {
    const run = await t.pg.runs.start(onMath("train", { tasks: "4", policy: script("clumsy.ts") }));
    await t.pg.runs.settled(run.id);
    const [e] = await t.pg.store.runEpisodes(run.id);
    expect(e).toMatchObject({
      status: "done",
      reward: 1,
      finished: true,
      turns: 3,
      steps: 3,
      stop: "finished",
    });
    const tr = (await t.pg.store.get(e!.trajectoryId!))!;
    expect(tr.steps.map((x) => x.ok)).toEqual([false, false, true]);
    expect(tr.steps[0]!.error).toMatch(/Unknown tool "nope"/);
    expect(tr.steps[2]!.agent).toMatchObject({ policy: "script", turn: 3, message: "third time lucky" });
  });

  it("cancels: running episodes end as cancelled with their sessions deleted; resume plays only the rest", async () => {
    const run = await t.pg.runs.start(sleepyRun("0-5", { concurrency: 2 }));
    // Two episodes finish (a second each), two are in the middle of their turn.
    await waitUntil("two episodes done and two in their turn", async () => {
      const eps = await t.pg.store.runEpisodes(run.id);
      const running = eps.filter((e) => e.status === "running" && e.trajectoryId);
      return eps.filter((e) => e.status === "done").length === 2 && running.length === 2;
    });
    const cancelled = await t.pg.runs.cancel(run.id);
    expect(cancelled.status).toBe("cancelled");
    const eps = await t.pg.store.runEpisodes(run.id);
    const byStatus = (st: string) => eps.filter((e) => e.status === st);
    expect(byStatus("done").length).toBe(2);
    expect(byStatus("cancelled").length).toBe(2);
    expect(byStatus("pending").length).toBe(2);
    for (const e of byStatus("cancelled")) {
      const tr = (await t.pg.store.summary(e.trajectoryId!))!;
      expect(tr).toMatchObject({ end_reason: "cancelled", error: "the run was cancelled" });
      const ping = await t.pg
        .clientFor("local")
        .ping(tr.sid!)
        .catch((err: unknown) => err);
      expect(isOrsClientError(ping) && ping.status).toBe(410);
    }
    await expect(t.pg.runs.cancel(run.id)).rejects.toMatchObject({ status: 409 });
    const done = byStatus("done").map((e) => [e.taskIndex, e.trajectoryId]);
    const resumed = await t.pg.runs.resume(run.id);
    expect(resumed.status).toBe("running");
    expect((await t.pg.runs.settled(run.id))?.status).toBe("done");
    const after = await t.pg.store.runEpisodes(run.id);
    expect(after.every((e) => e.status === "done" && e.reward === 1)).toBe(true);
    // The episodes done before were not played again.
    for (const [task, id] of done) expect(after.find((e) => e.taskIndex === task)?.trajectoryId).toBe(id);
    await expect(t.pg.runs.resume(run.id)).rejects.toMatchObject({ status: 409 });
  });

  it("ends an episode past the run's time limit: errored, its trajectory ended as timeout", async () => {
    const run = await t.pg.runs.start(sleepyRun("0", { timeoutMs: 300 }));
    await t.pg.runs.settled(run.id);
    const [e] = await t.pg.store.runEpisodes(run.id);
    expect(e).toMatchObject({
      status: "errored",
      stop: "timeout",
      error: expect.stringMatching(/longer than the run's limit of 0.3 s/),
    });
    expect((await t.pg.store.summary(e!.trajectoryId!))?.end_reason).toBe("timeout");
    const s = await summaryOf(run.id);
    expect(s).toMatchObject({ completed: 0, errored: 1, successRate: null, errors: [{ count: 1 }] });
  });

  it("refuses what cannot run: an unknown server, environment, split or task, a script that is not there", async () => {
    const base = onMath("train", { policy: { kind: "random" } });
    await expect(t.pg.runs.start({ ...base, server: "nope" })).rejects.toMatchObject({
      status: 404,
      detail: expect.stringMatching(/unknown server "nope"/),
    });
    await expect(t.pg.runs.start({ ...base, env: "nope" })).rejects.toMatchObject({ status: 404 });
    await expect(t.pg.runs.start({ ...base, split: "nope" })).rejects.toMatchObject({ status: 400 });
    await expect(t.pg.runs.start({ ...base, tasks: "799-800" })).rejects.toMatchObject({
      status: 400,
      detail: "tasks: task 800 is beyond the split (it has 800 tasks: 0-799)",
    });
    await expect(
      t.pg.runs.start({ ...base, policy: { kind: "script", module: `${FIXTURES}/missing.ts` } }),
    ).rejects.toMatchObject({ status: 400, detail: expect.stringMatching(/could not be loaded/) });
    expect((await t.pg.store.listRuns()).items.every((r) => r.status !== "queued")).toBe(true);
  });
});

describe("replay", () => {
  it("replays a run's actions task by task (its tasks by default), and one trajectory's", async () => {
    const first = await t.pg.runs.start(
      onMath("test", { tasks: [3, 5, 8], policy: script("math-oracle.ts") }),
    );
    await t.pg.runs.settled(first.id);
    const again = await t.pg.runs.start(onMath("test", { policy: { kind: "replay", run: first.id } }));
    await t.pg.runs.settled(again.id);
    const a = await summaryOf(first.id);
    const b = await summaryOf(again.id);
    expect(b.tasks.map((x) => [x.index, x.rewards])).toEqual(a.tasks.map((x) => [x.index, x.rewards]));
    expect(b.tasks.map((x) => x.rewards[0])).toEqual([1, 0, 1]);
    expect(b.policyLabel).toBe(`replay of run ${first.id}`);
    const tr = (await t.pg.store.get(b.tasks[0]!.episodeIds[0]!))!;
    expect(tr.steps[0]).toMatchObject({ agent: { policy: "replay" } });
    // One trajectory, replayed on its task twice.
    const one = await t.pg.runs.start(
      onMath("test", { repeats: 2, policy: { kind: "replay", trajectory: a.tasks[1]!.episodeIds[0]! } }),
    );
    await t.pg.runs.settled(one.id);
    expect((await summaryOf(one.id)).tasks).toMatchObject([{ index: 5, rewards: [0, 0] }]);
  });
});

describe("a restart in the middle of a run", () => {
  it("shows the run interrupted; resumed by the next process, only the missing episodes are played", async () => {
    const a = testPlayground();
    const run = await a.pg.runs.start(sleepyRun("0-3", { concurrency: 1 }));
    // The first episode done, the second in the middle of its turn.
    await waitUntil("episode 0 done and episode 1 in its turn", async () => {
      const eps = await a.pg.store.runEpisodes(run.id);
      return eps[0]?.status === "done" && eps[1]?.status === "running" && !!eps[1].trajectoryId;
    });
    await a.close();
    const b = testPlayground({}, a.dir);
    try {
      expect(await b.pg.store.getRun(run.id)).toMatchObject({ status: "interrupted" });
      const before = await b.pg.store.runEpisodes(run.id);
      expect(before.map((e) => e.status)).toEqual(["done", "interrupted", "pending", "pending"]);
      const interrupted = (await b.pg.store.summary(before[1]!.trajectoryId!))!;
      expect(interrupted.end_reason).toBe("interrupted");
      await b.pg.runs.resume(run.id);
      await b.pg.runs.settled(run.id);
      const after = await b.pg.store.runEpisodes(run.id);
      expect(after.map((e) => e.status)).toEqual(["done", "done", "done", "done"]);
      expect(after[0]!.trajectoryId).toBe(before[0]!.trajectoryId);
    } finally {
      await b.close();
    }
  });
});
