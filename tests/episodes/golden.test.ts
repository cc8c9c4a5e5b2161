// Golden episodes (lib/episodes/golden.ts) against the host in process: a recording passes against
// the unchanged environment, a difference fails with the recorded and the replayed values, the
// comparison options loosen it; episodes that cannot run are errors with their kind; a stopped or
// timed-out run reports the episode running as an error and the rest as skipped, sessions deleted.
import { afterAll, describe, expect, it } from "vitest";
import { dice } from "@/envs/dice";
import { math } from "@/envs/math";
import { slow } from "@/envs/slow";
import { type GoldenCase, rerecordedGolden, rerecordProblem, runGoldenTests } from "@/lib/episodes/golden";
import { replayEpisode, replayedTrajectory } from "@/lib/episodes/replay";
import { createOrsClient } from "@/lib/ors/client";
import { createOrsHandler } from "@/lib/ors/host";
import type { Trajectory } from "@/lib/trajectory/schema";
import { handlerFetch } from "../relay/helpers";
import { step, trajectory } from "./helpers";

const host = createOrsHandler([math, dice, slow], { pingIntervalMs: 200 });
const URL = "http://host.test";
const client = createOrsClient({ baseUrl: URL, fetch: handlerFetch(host) });
const clientFor = () => ({ client, url: URL });
afterAll(() => host.close());

/** A golden trajectory as the playground would record it: these calls, run once on the host. */
async function recorded(
  id: string,
  env: string,
  calls: { tool: string; input: Record<string, unknown> }[],
  task: Trajectory["task"] = { split: "train", index: 0 },
): Promise<Trajectory> {
  const draft = trajectory(id, { env, task, steps: calls.map((c, i) => step(i + 1, c)) });
  const run = await replayEpisode(client, draft);
  return { ...replayedTrajectory(draft, run), id, origin: null, golden: true };
}

const one = (t: Trajectory): GoldenCase[] => [{ trajectory: t, source: "golden.jsonl" }];

describe("runGoldenTests", () => {
  it("the unchanged environment passes; the report says what ran", async () => {
    const t = await recorded("m1", "math", [{ tool: "submit", input: { answer: "no idea" } }], {
      split: "test",
      index: 2,
    });
    const report = await runGoldenTests(one(t), { clientFor });
    expect(report.summary).toEqual({ total: 1, passed: 1, failed: 0, errors: 0, skipped: 0, ok: true });
    expect(report.results[0]).toMatchObject({
      id: "m1",
      server: "local",
      url: URL,
      env: "math",
      task: "test/2",
      source: "golden.jsonl",
      status: "pass",
      steps: 1,
      differences: [],
      prompt: null,
      error: null,
    });
    expect(report.options).toEqual({
      ignore: [],
      reward_tolerance: 0,
      normalize_whitespace: false,
      masks: [],
    });
    expect(host.host.sessionCount).toBe(0);
  });

  it("a difference fails with the recorded and the replayed step; options loosen the comparison", async () => {
    const t = await recorded("d1", "dice", [
      { tool: "echo", input: { text: "same" } },
      { tool: "roll", input: { sides: 1000 } },
    ]);
    const exact = await runGoldenTests(one(t), { clientFor });
    const r = exact.results[0]!;
    expect(r.status).toBe("fail");
    expect(r.differences.map((d) => [d.step, d.fields])).toEqual([
      [2, ["observation", "reward", "metadata"]],
    ]);
    expect(r.differences[0]!.expected).toMatchObject({
      tool: "roll",
      input: { sides: 1000 },
      observation: t.steps[1]!.blocks[0]!.type === "text" ? t.steps[1]!.blocks[0]!.text : "",
      reward: t.steps[1]!.reward,
    });
    expect(r.differences[0]!.got?.observation).toMatch(/^You rolled \d+ \(d1000\)\.$/);
    const loose = await runGoldenTests(one(t), {
      clientFor,
      compare: { masks: [/rolled \d+/], ignore: ["metadata.value"], rewardTolerance: 1 },
    });
    expect(loose.results[0]!.status).toBe("pass");
    expect(loose.options).toEqual({
      ignore: ["metadata.value"],
      reward_tolerance: 1,
      normalize_whitespace: false,
      masks: ["rolled \\d+"],
    });
  });

  it("the prompt counts (and can be ignored); steps after the end are not re-run", async () => {
    const t = await recorded("m2", "math", [{ tool: "submit", input: { answer: "1" } }]);
    const edited: Trajectory = {
      ...t,
      prompt: [{ type: "text", text: "What is 1 + 1?" }],
      steps: [...t.steps, { ...step(2, { tool: "submit", input: { answer: "2" } }), after_end: true }],
    };
    const r = (await runGoldenTests(one(edited), { clientFor })).results[0]!;
    expect(r).toMatchObject({ status: "fail", steps: 1, differences: [] });
    expect(r.prompt).toEqual({ expected: "What is 1 + 1?", got: (t.prompt![0] as { text: string }).text });
    const ignored = await runGoldenTests(one(edited), { clientFor, compare: { ignore: ["prompt"] } });
    expect(ignored.results[0]!.status).toBe("pass");
  });

  it("episodes that cannot run are errors naming their kind; the others still run", async () => {
    const ok = await recorded("m3", "math", [{ tool: "submit", input: { answer: "1" } }]);
    const noTask = { ...ok, id: "no-task", task: null };
    const badEnv = { ...ok, id: "bad-env", env: "no-such-env" };
    const report = await runGoldenTests(
      [noTask, badEnv, ok].map((trajectory) => ({ trajectory })),
      { clientFor },
    );
    expect(report.results.map((r) => [r.id, r.status, r.error?.kind])).toEqual([
      ["no-task", "error", "input"],
      ["bad-env", "error", "server"],
      ["m3", "pass", undefined],
    ]);
    expect(report.results[0]!.error!.message).toMatch(/task is unknown/);
    expect(report.results[1]!.error!.message).toMatch(/no-such-env/);
    expect(report.summary).toMatchObject({ total: 3, passed: 1, errors: 2, ok: false });
    expect(host.host.sessionCount).toBe(0);
  });

  it("out of time: the episode running is a timeout error, the rest skipped, the session deleted", async () => {
    const t = await recorded("s1", "slow", [{ tool: "fast", input: {} }]);
    const waiting: Trajectory = {
      ...t,
      id: "s2",
      steps: [step(1, { tool: "wait", input: { seconds: 30 } })],
    };
    const heard: string[] = [];
    const report = await runGoldenTests(
      [waiting, t].map((trajectory) => ({ trajectory })),
      {
        clientFor,
        maxTimeMs: 300,
        onStart: (c) => heard.push(`start ${c.trajectory.id}`),
        onResult: (r) => heard.push(`${r.status} ${r.id}`),
      },
    );
    expect(report.results.map((r) => [r.id, r.status, r.error?.kind])).toEqual([
      ["s2", "error", "timeout"],
      ["s1", "skipped", "timeout"],
    ]);
    expect(report.results[1]!.error!.message).toBe("not run: the run's time limit (0.3 s) was reached");
    expect(heard).toEqual(["start s2", "error s2", "skipped s1"]);
    expect(report.duration_ms).toBeLessThan(10_000);
    expect(host.host.sessionCount).toBe(0);
  });

  it("stopped before it starts: everything skipped as interrupted", async () => {
    const t = await recorded("m4", "math", [{ tool: "submit", input: { answer: "1" } }]);
    const report = await runGoldenTests(one(t), { clientFor, signal: AbortSignal.abort() });
    expect(report.results[0]).toMatchObject({
      status: "skipped",
      error: { kind: "interrupted", message: "not run: the run was interrupted" },
    });
    expect(report.summary.ok).toBe(false);
  });
});

describe("re-recording a golden episode (test --update)", () => {
  it("takes what came back under the golden's own id, server, task, origin and mark", async () => {
    const t = await recorded("r1", "dice", [
      { tool: "echo", input: { text: "same" } },
      { tool: "roll", input: { sides: 1000 } },
    ]);
    const golden: Trajectory = {
      ...t,
      origin: { kind: "import", from: null },
      reprompts: [{ at: 5, same: true }],
      steps: [...t.steps, { ...step(3, { tool: "roll", input: { sides: 6 } }), after_end: true }],
    };
    let replayed: Trajectory | null = null;
    const report = await runGoldenTests(one(golden), {
      clientFor,
      onResult: (_r, _i, r) => {
        replayed = r;
      },
    });
    expect(report.results[0]!.status).toBe("fail");
    expect(replayed).not.toBeNull();
    const again = replayed as unknown as Trajectory;
    expect(rerecordProblem(golden, again)).toBeNull();
    const next = rerecordedGolden(golden, again);
    expect(next).toMatchObject({
      id: "r1",
      server: "local",
      env: "dice",
      task: golden.task,
      origin: { kind: "import", from: null },
      golden: true,
      sid: again.sid,
      prompt: again.prompt,
      error: null,
      end_reason: again.end_reason,
    });
    expect(next).not.toHaveProperty("reprompts");
    // The new observations, without replay marks; the call made after the end is not kept.
    expect(next.steps.map((x) => [x.index, x.tool, x.blocks, x.reward])).toEqual(
      again.steps.map((x) => [x.index, x.tool, x.blocks, x.reward]),
    );
    expect(next.steps).toHaveLength(2);
    expect(next.steps.some((x) => "replay" in x)).toBe(false);
    expect(next.total_reward).toBe(again.total_reward);
  });

  it("refuses a re-run that stopped early", () => {
    const t = trajectory("r2", { steps: [step(1), step(2), step(3, { finished: true })] });
    expect(rerecordProblem(t, trajectory("r2-replay", { steps: [step(1)] }))).toBe(
      "the re-run stopped after step 1 of 3",
    );
  });
});
