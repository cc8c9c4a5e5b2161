// The quality checks on our host (the playground's built-in host serving the fixture environments of
// tests/fixtures/quality-envs.ts), end to end: the sample played through the run executor and the
// recording relay, each finding raised on the environment with its flaw — naming the tasks, calls
// and recorded trajectories — and silent on the sound one.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { qualityDeps, runQualityChecks } from "@/lib/conformance/quality/run-quality";
import type { Playground } from "@/lib/playground";
import { sumTasks } from "../../fixtures/quality/tasks";
import {
  checkQuality,
  expectFindings,
  ORACLE,
  ORACLE_MISSES,
  outcomes,
  qualityPlayground,
  qualityResult,
} from "./helpers";

const TASKS = 12;
let pg: Playground;

beforeAll(() => {
  pg = qualityPlayground().pg;
});
afterAll(async () => {
  await pg?.close();
});

const check = (env: string, oracle?: string) => checkQuality(pg, "local", { env, tasks: TASKS, oracle });

describe("quality checks on our host", () => {
  it("find nothing on the sound environment with its oracle, and say what they sampled", async () => {
    const report = await check("sound", ORACLE);
    expectFindings(report, []);
    expect(outcomes(report)).toEqual({
      "answer-leak": "pass",
      nondeterministic: "pass",
      "trivial-reward": "pass",
      "oracle-below-max": "pass",
      "no-reward": "pass",
      "tool-crash": "pass",
    });
    expect(report.summary).toEqual({ findings: 0, waived: 0, notExercised: 0, passed: true });
    expect(report.error).toBeNull();
    // Its runs are tagged: the runs list tells them from ordinary runs, and filters them.
    const tagged = await pg.store.listRuns({ tag: "quality" });
    expect(tagged.total).toBeGreaterThanOrEqual(2);
    expect(tagged.items.every((r) => r.tags.includes("quality") && r.env === "sound")).toBe(true);
    expect(report.bestReward).toBe(1);
    const s = report.sample!;
    expect(s).toMatchObject({
      environment: "sound",
      split: "train",
      splitSize: 30,
      requested: TASKS,
      seed: 1,
    });
    expect(s.tasks).toHaveLength(TASKS);
    expect(new Set(s.tasks).size).toBe(TASKS);
    expect(s.plays.map((p) => [p.role, p.episodes, p.done])).toEqual([
      ["oracle", TASKS, TASKS],
      ["random", TASKS, TASKS],
      ["random-replay", TASKS, TASKS],
      ["oracle-replay", TASKS, TASKS],
    ]);
    expect(s.tools.map((t) => t.name).sort()).toEqual(["note", "submit"]);
    expect(s.calls).toBe(s.tools.reduce((n, t) => n + t.calls, 0));
    // The episodes are the playground's: recorded, tagged with their runs.
    const random = s.plays.find((p) => p.role === "random")!;
    const recorded = await pg.store.list({ run: random.runId });
    expect(recorded.total).toBe(TASKS);
    expect(qualityResult(report, "oracle-below-max").observed).toMatch(
      /reached the best reward seen \(1\) on all 12/,
    );
  });

  it("find nothing on the sound environment without an oracle either (what needs one is not exercised)", async () => {
    const report = await check("sound");
    expectFindings(report, []);
    expect(outcomes(report)).toMatchObject({
      "trivial-reward": "not-exercised",
      "oracle-below-max": "not-exercised",
      // Random answers earn 0: without an oracle, nothing shows that a reward is reachable.
      "no-reward": "not-exercised",
    });
    expect(qualityResult(report, "no-reward").observed).toMatch(/^every reward was 0 in \d+ calls/);
    expect(report.summary.passed).toBe(true);
    expect(report.sample!.plays.map((p) => p.role)).toEqual(["random", "random-replay"]);
  });

  it("answer-leak: the leaking prompt, each task named with its field, value and trajectory", async () => {
    const report = await check("leaky");
    expectFindings(report, ["answer-leak"]);
    const r = qualityResult(report, "answer-leak");
    expect(r.observed).toBe(`task field "answer" is in the prompt of ${TASKS} of ${TASKS} tasks`);
    expect(r.evidence.map((e) => e.task).sort((a, b) => a - b)).toEqual(report.sample!.tasks);
    const e = r.evidence[0]!;
    expect(e.what).toContain(`answer = "${sumTasks()[e.task]!.answer}" is in the prompt`);
    const t = await pg.store.get(e.trajectory!.id);
    expect(t!.task).toEqual({ split: "train", index: e.task });
    expect(e.trajectory!.href).toBe(`/trajectories/${t!.id}`);
    expect(r.counted).toBe(true);
    expect(report.summary.passed).toBe(false);
  });

  it("nondeterministic: the coin-flip reward, with both episodes of the task and their comparison", async () => {
    const report = await check("coinflip");
    expectFindings(report, ["nondeterministic"]);
    const r = qualityResult(report, "nondeterministic");
    expect(r.evidence.length).toBeGreaterThan(0);
    const e = r.evidence[0]!;
    expect(e.what).toMatch(
      /^random, step 1: reward (1 then 0|0 then 1); the output "The coin says (heads|tails)/,
    );
    expect(e.call).toMatchObject({ tool: "submit" });
    expect(e.trajectory!.step).toBe(1);
    expect(e.other!.step).toBe(1);
    expect(e.compareHref).toBe(`/trajectories/compare?a=${e.trajectory!.id}&b=${e.other!.id}`);
    const [a, b] = await Promise.all([pg.store.get(e.trajectory!.id), pg.store.get(e.other!.id)]);
    expect(a!.task).toEqual(b!.task);
    expect(a!.steps[0]!.input).toEqual(b!.steps[0]!.input);
    expect(a!.steps[0]!.reward).not.toBe(b!.steps[0]!.reward);
  });

  it("trivial-reward: any input gets the full reward", async () => {
    const report = await check("anyreward", ORACLE);
    expectFindings(report, ["trivial-reward"]);
    const r = qualityResult(report, "trivial-reward");
    expect(r.observed).toMatch(/reached the oracle's reward .* on 12 of 12 tasks \(100%\)/);
    expect(r.evidence[0]!.call).toMatchObject({ tool: "submit" });
  });

  it("oracle-below-max: an oracle that misses, on exactly the tasks it misses", async () => {
    const report = await check("sound", ORACLE_MISSES);
    expectFindings(report, ["oracle-below-max"]);
    const r = qualityResult(report, "oracle-below-max");
    const missed = report.sample!.tasks.filter((i) => i % 3 === 0);
    expect(missed.length).toBeGreaterThan(0);
    expect(r.evidence.map((e) => e.task).sort((a, b) => a - b)).toEqual(missed);
    expect(r.evidence[0]!.what).toBe("the oracle got 0, the best seen is 1");
    expect(r.evidence[0]!.call!.tool).toBe("submit");
  });

  it("tool-crash: a tool that crashes on valid input, with the call and its step", async () => {
    const report = await check("crashy", ORACLE);
    expectFindings(report, ["tool-crash"]);
    const r = qualityResult(report, "tool-crash");
    expect(r.observed).toMatch(/ of inspect failed with a server error/);
    for (const e of r.evidence) {
      expect(e.call!.tool).toBe("inspect");
      expect(e.call!.input.slot).toBeGreaterThanOrEqual(3);
      expect(e.what).toContain("Cannot read properties of undefined");
      const t = await pg.store.get(e.trajectory!.id);
      expect(t!.steps.find((s) => s.index === e.trajectory!.step)).toMatchObject({
        tool: "inspect",
        ok: false,
      });
    }
  });

  it("no-reward: no tool ever gives one", async () => {
    const report = await check("noreward", ORACLE);
    expectFindings(report, ["no-reward"]);
    expect(qualityResult(report, "no-reward").observed).toMatch(
      /^no tool gave a reward in \d+ calls in 48 episodes: every reward was null$/,
    );
    expect(outcomes(report)).toMatchObject({
      "trivial-reward": "not-exercised",
      "oracle-below-max": "not-exercised",
    });
  });

  it("stopped while playing: the runs cancelled, what was played analysed, and it does not pass", async () => {
    const stop = new AbortController();
    const report = await runQualityChecks(qualityDeps(pg), {
      server: "local",
      env: "sound",
      tasks: 30,
      signal: stop.signal,
      onProgress: (p) => {
        if (p.phase === "playing" && p.done >= 1) stop.abort(new Error("stopped by the test"));
      },
    });
    expect(report.error).toBe("stopped before the end (stopped by the test): what was played is analysed");
    expect(report.summary.passed).toBe(false);
    const [random, ...rest] = report.sample!.plays;
    expect(random!.role).toBe("random");
    expect(rest).toEqual([]);
    expect(random!.done).toBeGreaterThanOrEqual(1);
    expect(random!.done).toBeLessThan(30);
    expect((await pg.store.getRun(random!.runId))!.status).toBe("cancelled");
  });

  it("waivers: a waived finding is reported and does not count", async () => {
    const report = await runQualityChecks(qualityDeps(pg), {
      server: "local",
      env: "leaky",
      tasks: 4,
      allow: ["answer-leak"],
    });
    expect(qualityResult(report, "answer-leak")).toMatchObject({
      outcome: "finding",
      waived: true,
      counted: false,
    });
    expect(report.summary).toMatchObject({ findings: 1, waived: 1, passed: true });
  });
});
