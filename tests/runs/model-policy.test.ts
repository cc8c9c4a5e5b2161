// The model policy against the OpenAI-compatible fixture, a real second process
// (tests/fixtures/model-server): through the AI SDK, streaming and not, tool calls played through
// the relay, several calls in one turn, answers without a call, 429/5xx retried with Retry-After,
// on the built-in host and on the reference-shaped server. The API key reaches the endpoint and
// nothing else.
import fs from "node:fs";
import { createServer } from "node:net";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { buildSummary } from "@/lib/runs/summary";
import { type RunningModelServer, startModelServer } from "../fixtures/model-server/spawn";
import { type RunningReferenceServer, startReferenceServer } from "../fixtures/reference-server/spawn";
import { type TestPlayground, testPlayground } from "./helpers";

const KEY = "sk-fixture-7c1e9a0b55d24f3e";
let model: RunningModelServer;
let ref: RunningReferenceServer;
let t: TestPlayground;
const logged: string[] = [];
let closedPort = 0;

/** A loopback port nothing listens on (taken, then let go). */
function closedLoopbackPort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer().listen(0, "127.0.0.1", () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

beforeAll(async () => {
  [model, ref, closedPort] = await Promise.all([
    startModelServer(),
    startReferenceServer({ setupMs: 5 }),
    closedLoopbackPort(),
  ]);
  for (const m of ["log", "warn", "error", "info"] as const)
    vi.spyOn(console, m).mockImplementation(
      (...args: unknown[]) => void logged.push(args.map(String).join(" ")),
    );
  t = testPlayground({
    PLAYGROUND_MODELS: `fix=${model.baseUrl},down=http://127.0.0.1:${closedPort}/v1,far=http://10.255.255.1:8000/v1`,
    PLAYGROUND_MODEL_API_KEY_FIX: KEY,
    ORS_SERVERS: `py=${ref.url}`,
  });
});

afterAll(async () => {
  await t?.close();
  await Promise.all([model?.stop(), ref?.stop()]);
  vi.restoreAllMocks();
});

const start = (o: {
  env?: string;
  split?: string;
  tasks?: string;
  model: string;
  server?: string;
  endpoint?: string;
  stream?: boolean;
  keepRefs?: boolean;
  repeats?: number;
  maxAttempts?: number;
}) =>
  t.pg.runs.start({
    server: o.server ?? "local",
    env: o.env ?? "math",
    split: o.split ?? "test",
    tasks: o.tasks ?? "0-2",
    repeats: o.repeats,
    concurrency: 3,
    ...(o.maxAttempts ? { maxAttempts: o.maxAttempts } : {}),
    policy: {
      kind: "model",
      endpoint: o.endpoint ?? "fix",
      model: o.model,
      maxTurns: 10,
      ...(o.stream ? { stream: true } : {}),
      ...(o.keepRefs ? { keepRefs: true } : {}),
    },
  });

async function played(o: Parameters<typeof start>[0]) {
  const run = await start(o);
  await t.pg.runs.settled(run.id);
  const r = (await t.pg.store.getRun(run.id))!;
  const summary = buildSummary(
    r,
    await t.pg.store.runAggregates(run.id, { successAt: 1, histogramBins: 10 }),
  );
  const episodes = await t.pg.store.runEpisodes(run.id);
  const trajectories = await Promise.all(
    episodes.map(async (e) => (e.trajectoryId ? (await t.pg.store.get(e.trajectoryId))! : null)),
  );
  return { run: r, summary, episodes, trajectories };
}

describe("the model policy on the built-in host", () => {
  it("solves math: the model's text, call ids and tokens marked on each step, the key sent to the endpoint", async () => {
    for (const stream of [false, true]) {
      const { summary, episodes, trajectories } = await played({ model: "oracle", stream });
      expect(summary).toMatchObject({ completed: 3, errored: 0, successRate: 1, meanReward: 1 });
      expect(summary.tokens.promptPerEpisode).toBeGreaterThan(0);
      expect(summary.policyLabel).toBe("model oracle at fix");
      for (const [i, e] of episodes.entries()) {
        expect(e).toMatchObject({ status: "done", turns: 1, steps: 1, stop: "finished" });
        expect(e.promptTokens).toBeGreaterThan(0);
        const step = trajectories[i]!.steps[0]!;
        expect(step.agent).toMatchObject({
          policy: "model",
          model: "oracle",
          turn: 1,
          call_id: expect.stringMatching(/^call_/),
          message: expect.stringMatching(/the answer is \d+/),
          usage: { prompt_tokens: e.promptTokens, completion_tokens: e.completionTokens },
        });
      }
    }
    const stats = await model.stats();
    expect(stats.streamed).toBe(3);
    expect(stats.authorization).toEqual([`Bearer ${KEY}`]);
  });

  it("plays guess over several turns, rebuilding the chat from what it played", async () => {
    const { episodes, trajectories } = await played({ env: "guess", model: "oracle", tasks: "0" });
    expect(episodes[0]).toMatchObject({ status: "done", finished: true, stop: "finished" });
    const steps = trajectories[0]!.steps;
    expect(steps.length).toBe(episodes[0]!.turns);
    expect(steps.map((s) => s.agent?.turn)).toEqual(steps.map((_, i) => i + 1));
    // Bisection: each guess is inside what the answers so far left.
    expect(steps.at(-1)!.blocks[0]).toMatchObject({ text: expect.stringMatching(/^correct/) });
    const last = (await model.stats()).lastMessages!;
    expect(last.filter((m) => m.role === "tool").length).toBe(steps.length - 1);
  });

  it("plays several calls of one turn in order, marking the turn's text and tokens on its first call only", async () => {
    const g = await played({ env: "guess", model: "multi", tasks: "1" });
    const steps = g.trajectories[0]!.steps;
    expect(steps.slice(0, 2).map((s) => [s.tool, s.agent?.turn])).toEqual([
      ["hint", 1],
      ["guess", 1],
    ]);
    expect(steps[0]!.agent?.message).toBeDefined();
    expect(steps[1]!.agent?.message).toBeUndefined();
    expect(steps[1]!.agent?.usage).toBeUndefined();
    // On math the first call finishes the episode: the second is not played.
    const m = await played({ model: "multi", tasks: "0" });
    expect(m.trajectories[0]!.steps.length).toBe(1);
    expect(m.episodes[0]).toMatchObject({ reward: 1, stop: "finished" });
  });

  it("ends an episode when the model answers without a tool call, keeping its words", async () => {
    const { summary, episodes, trajectories } = await played({ model: "chatty", tasks: "0" });
    expect(episodes[0]).toMatchObject({
      status: "done",
      reward: 0,
      finished: false,
      stop: "no_tool_call",
      turns: 1,
      steps: 0,
    });
    expect(trajectories[0]!.agent_end).toMatchObject({
      reason: "no_tool_call",
      message: expect.stringMatching(/will not call a tool/),
    });
    // Its own end reason, not "closed by user"; counted (a failure), with why.
    expect(trajectories[0]!.end_reason).toBe("policy_stopped");
    expect(episodes[0]!.outcome).toBe("policy_stopped");
    expect(summary.successRate).toBe(0);
    expect(summary.outcomes).toMatchObject({ policy_stopped: 1, scored: 0 });
    expect(summary.stops).toEqual([{ stop: "no_tool_call", count: 1 }]);
    const broken = await played({ model: "broken-args", tasks: "0" });
    expect(broken.episodes[0]).toMatchObject({ status: "done", stop: "invalid_tool_call" });
    const wrong = await played({ model: "wrong", tasks: "0-1" });
    expect(wrong.summary).toMatchObject({ successRate: 0, meanReward: 0 });
  });

  it("retries 429 and 5xx answers, waiting as long as Retry-After says", async () => {
    await model.fail([{ status: 429, retryAfter: "1" }]);
    const started = Date.now();
    const a = await played({ model: "oracle", tasks: "0" });
    expect(a.episodes[0]).toMatchObject({ status: "done", reward: 1 });
    expect(Date.now() - started).toBeGreaterThanOrEqual(950);
    await model.fail([
      { status: 500, retryAfter: "0" },
      { status: 503, retryAfter: "0" },
    ]);
    const b = await played({ model: "oracle", tasks: "0" });
    expect(b.episodes[0]).toMatchObject({ status: "done", reward: 1 });
    expect((await model.stats()).failed).toBe(3);
    // Past the retries, with one attempt: the episode errors, saying why, and is not scored 0.
    await model.fail(Array.from({ length: 5 }, () => ({ status: 500, retryAfter: "0" })));
    const c = await played({ model: "oracle", tasks: "0", maxAttempts: 1 });
    expect(c.episodes[0]).toMatchObject({
      status: "errored",
      outcome: "model_error",
      reward: null,
      error: expect.stringMatching(/model endpoint "fix" .* failed with HTTP 500/),
    });
    expect(c.summary.errors).toMatchObject([{ count: 1 }]);
    expect(c.summary).toMatchObject({ completed: 0, unscored: 1, successRate: null, meanReward: null });
  });

  it("plays an episode again when the endpoint failed it, keeping every attempt", async () => {
    // Five failures exhaust the first attempt's retries; the second attempt is answered.
    await model.fail(Array.from({ length: 5 }, () => ({ status: 500, retryAfter: "0" })));
    const { summary, episodes, run } = await played({ model: "oracle", tasks: "0" });
    expect(episodes[0]).toMatchObject({ status: "done", outcome: "scored", reward: 1, attempts: 2 });
    const attempts = await t.pg.store.runAttempts(run.id);
    expect(attempts.map((a) => [a.attempt, a.outcome, a.counted])).toEqual([
      [1, "model_error", false],
      [2, "scored", true],
    ]);
    expect(attempts.every((a) => a.worker === t.pg.instance.id && a.endedAt! >= a.startedAt)).toBe(true);
    expect(attempts[0]!.trajectoryId).not.toBe(attempts[1]!.trajectoryId);
    expect(summary).toMatchObject({
      completed: 1,
      unscored: 0,
      successRate: 1,
      attempts: { total: 2, retried: 1 },
    });
  });

  it("errs clearly on an endpoint that is down, refused, or not configured", async () => {
    const down = await played({ model: "oracle", tasks: "0", endpoint: "down" });
    expect(down.episodes[0]).toMatchObject({
      status: "errored",
      error: `model endpoint "down" (http://127.0.0.1:${closedPort}/v1) failed: cannot connect to http://127.0.0.1:${closedPort}/v1: connection refused`,
    });
    const far = await played({ model: "oracle", tasks: "0", endpoint: "far" });
    expect(far.episodes[0]!.error).toMatch(
      /refused: model endpoint "far": 10\.255\.255\.1 is not a loopback address/,
    );
    await expect(start({ model: "oracle", endpoint: "nope" })).rejects.toMatchObject({
      status: 400,
      detail: expect.stringMatching(/unknown model endpoint "nope" \(configured: fix, down, far\)/),
    });
  });
});

describe("the model policy on the reference-shaped server", () => {
  it("plans the farm over three steps; the Pydantic schemas reach the model with their $refs inlined", async () => {
    const { episodes, trajectories } = await played({
      server: "py",
      env: "farmplanner",
      split: "train",
      tasks: "0",
      model: "oracle",
    });
    expect(episodes[0]).toMatchObject({ status: "done", finished: true, reward: 4.8, turns: 3, steps: 3 });
    expect(trajectories[0]!.tools?.map((x) => x.name)).toContain("plan");
    const plan = (await model.stats()).lastTools!.find((x) => x.function.name === "plan")!;
    expect(JSON.stringify(plan.function.parameters)).not.toContain("$ref");
    expect(plan.function.parameters).toMatchObject({
      properties: { slot_1: { properties: { crop: { type: "string" } } } },
    });
    await played({
      server: "py",
      env: "farmplanner",
      split: "train",
      tasks: "0",
      model: "oracle",
      keepRefs: true,
    });
    const kept = (await model.stats()).lastTools!.find((x) => x.function.name === "plan")!;
    expect(JSON.stringify(kept.function.parameters)).toContain('"$ref":"#/$defs/Slot"');
  });
});

describe("the key", () => {
  it("is in no run record, trajectory, summary, store file or log", async () => {
    const { items } = await t.pg.store.listRuns({ limit: 1000 });
    expect(items.length).toBeGreaterThan(5);
    const everything: string[] = [JSON.stringify(items), logged.join("\n")];
    for (const r of items) {
      everything.push(
        JSON.stringify(
          buildSummary(r, await t.pg.store.runAggregates(r.id, { successAt: 1, histogramBins: 10 })),
        ),
      );
      for await (const tr of t.pg.store.iterate({ run: r.id })) everything.push(JSON.stringify(tr));
    }
    for (const f of fs.readdirSync(t.dir))
      everything.push(fs.readFileSync(path.join(t.dir, f)).toString("latin1"));
    for (const text of everything) expect(text).not.toContain(KEY);
    expect(everything.join("").length).toBeGreaterThan(10_000);
  });
});
