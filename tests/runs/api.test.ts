// The runs' HTTP API through its route handlers, in process, on the app's own playground (its
// built-in host, a temp data folder, the model fixture as a real process): start, list, summary,
// live progress (SSE), cancel and resume, compare, exports, the trajectories' run filter, the model
// endpoints, and a model turn for a live episode.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readSseFrames } from "@/lib/ors/protocol";
import type { Playground } from "@/lib/playground";
import { AGENT_HEADER } from "@/lib/relay/annotations";
import { type RunningModelServer, startModelServer } from "../fixtures/model-server/spawn";
import { FIXTURES, sleepyRun, tempDir } from "./helpers";

type Handler = (
  req: Request,
  ctx: { params: Promise<Record<string, string>> },
) => Promise<Response> | Response;
type Route = Record<string, Handler>;

const KEY = "sk-api-test-3b8e0c";
let model: RunningModelServer;
let pg: Playground;
const routes: Record<string, Route> = {};

beforeAll(async () => {
  model = await startModelServer();
  process.env.PLAYGROUND_DATA_DIR = tempDir("runs-api-");
  process.env.PLAYGROUND_MODELS = `fix=${model.baseUrl}`;
  process.env.PLAYGROUND_MODEL_API_KEY_FIX = KEY;
  process.env.PLAYGROUND_SCRIPT_ROOTS = FIXTURES;
  const load = async (name: string, p: Promise<unknown>) => {
    routes[name] = (await p) as Route;
  };
  await Promise.all([
    load("runs", import("@/app/api/runs/route")),
    load("run", import("@/app/api/runs/[id]/route")),
    load("events", import("@/app/api/runs/[id]/events/route")),
    load("cancel", import("@/app/api/runs/[id]/cancel/route")),
    load("resume", import("@/app/api/runs/[id]/resume/route")),
    load("export", import("@/app/api/runs/[id]/export/route")),
    load("compare", import("@/app/api/runs/compare/route")),
    load("models", import("@/app/api/models/route")),
    load("modelTurn", import("@/app/api/trajectories/[id]/model-turn/route")),
    load("trajectories", import("@/app/api/trajectories/route")),
    load("trajExport", import("@/app/api/trajectories/export/route")),
  ]);
  pg = (await import("@/lib/playground")).getPlayground();
});

afterAll(async () => {
  await model?.stop();
  for (const k of [
    "PLAYGROUND_DATA_DIR",
    "PLAYGROUND_MODELS",
    "PLAYGROUND_MODEL_API_KEY_FIX",
    "PLAYGROUND_SCRIPT_ROOTS",
  ])
    delete process.env[k];
});

async function call(
  route: string,
  method: string,
  path: string,
  o: { body?: unknown; params?: Record<string, string> } = {},
) {
  const req = new Request(`http://app.test${path}`, {
    method,
    ...(o.body !== undefined
      ? {
          body: typeof o.body === "string" ? o.body : JSON.stringify(o.body),
          headers: { "content-type": "application/json" },
        }
      : {}),
  });
  return routes[route]![method]!(req, { params: Promise.resolve(o.params ?? {}) });
}

const json = async (res: Response | Promise<Response>) => {
  const r = await res;
  return { status: r.status, body: (await r.json()) as Record<string, unknown> & { detail?: string } };
};

const oracle = { kind: "script", module: `${FIXTURES}/math-oracle.ts` };

async function startRun(body: Record<string, unknown>) {
  const r = await json(call("runs", "POST", "/api/runs", { body }));
  expect(r.status).toBe(201);
  return r.body.id as string;
}

/** A session on the built-in host with an episode of guess (train, task `index`), its prompt read. */
async function guessEpisode(index: number) {
  const ors = pg.clientFor("local");
  const { sid } = await ors.createSession();
  await ors.create(sid, { env_name: "guess", split: "train", index });
  await ors.prompt("guess", sid);
  return { ors, sid };
}

async function summary(id: string) {
  return json(call("run", "GET", `/api/runs/${id}`, { params: { id } }));
}

describe("POST /api/runs and GET /api/runs/{id}", () => {
  const mathTrain = { server: "local", env: "math", split: "train" };
  it.each<[string, unknown, number, RegExp]>([
    ["a body that is not JSON", "{", 400, /./],
    ["no policy", mathTrain, 400, /^policy: /],
    ["an unknown kind of policy", { ...mathTrain, policy: { kind: "telepathy" } }, 400, /./],
    ["a field it does not know", { ...mathTrain, policy: oracle, extra: 1 }, 400, /extra/],
    // A model endpoint given by URL is the CLI's alone.
    [
      "a model endpoint given by URL",
      { ...mathTrain, policy: { kind: "model", endpoint: "cli", baseUrl: "http://x", model: "m" } },
      400,
      /./,
    ],
    [
      "a script outside the allowed folders",
      { ...mathTrain, policy: { kind: "script", module: "/etc/passwd.js" } },
      403,
      /outside the folders scripts may run from/,
    ],
  ])("refuses %s with a detail naming what is wrong", async (_what, body, status, detail) => {
    expect(await json(call("runs", "POST", "/api/runs", { body }))).toMatchObject({
      status,
      body: { detail: expect.stringMatching(detail) },
    });
  });

  it("answers 404 for a run it does not have", async () => {
    expect(await summary("nope")).toMatchObject({ status: 404, body: { detail: 'no run with id "nope"' } });
  });

  it("starts a run; its summary has the named fields; the list and the run filter of trajectories find it", async () => {
    const id = await startRun({
      server: "local",
      env: "math",
      split: "test",
      tasks: "0-9",
      repeats: 2,
      concurrency: 5,
      policy: oracle,
    });
    await pg.runs.settled(id);
    const s = await summary(id);
    expect(s.status).toBe(200);
    expect(s.body).toMatchObject({
      id,
      status: "done",
      server: "local",
      env: "math",
      split: "test",
      policy: oracle,
      episodes: 20,
      completed: 20,
      errored: 0,
      running: 0,
      successRate: 0.8,
      meanReward: 0.8,
      passAtK: { "1": 0.8, "2": 0.8 },
      errors: [],
    });
    // Every task answered the same on both repeats: 16 ones and 4 zeros, n = 20.
    const [lo, hi] = s.body.ci95 as [number, number];
    const half = 2.093 * (Math.sqrt((16 * 0.2 ** 2 + 4 * 0.8 ** 2) / 19) / Math.sqrt(20));
    expect(lo).toBeCloseTo(0.8 - half, 6);
    expect(hi).toBeCloseTo(0.8 + half, 6);
    const tasks = s.body.tasks as { index: number; rewards: number[]; episodeIds: string[] }[];
    expect(tasks.map((x) => [x.index, x.rewards])).toEqual(
      Array.from({ length: 10 }, (_, i) => [i, i % 5 === 0 ? [0, 0] : [1, 1]]),
    );
    const list = await json(call("runs", "GET", "/api/runs?env=math"));
    expect(list.body.items).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ id, status: "done", completed: 20, successRate: 0.8 }),
      ]),
    );
    const traj = await json(call("trajectories", "GET", `/api/trajectories?run=${id}&limit=100`));
    expect(traj.body.total).toBe(20);
    expect(new Set((traj.body.items as { id: string }[]).map((x) => x.id))).toEqual(
      new Set(tasks.flatMap((x) => x.episodeIds)),
    );
  });
});

describe("GET /api/runs/{id}/events", () => {
  it("streams progress, each episode and the status until the run stops", async () => {
    const id = await startRun(sleepyRun("0-3", { concurrency: 2 }));
    const res = await call("events", "GET", `/api/runs/${id}/events`, { params: { id } });
    expect(res.headers.get("content-type")).toMatch(/text\/event-stream/);
    const seen: { event: string; data: Record<string, unknown> }[] = [];
    for await (const f of readSseFrames(res.body!))
      if (f.kind === "event") seen.push({ event: f.event, data: JSON.parse(f.data) });
    expect(seen[0]).toMatchObject({ event: "progress", data: { runId: id, total: 4, status: "running" } });
    const ended = seen.filter((e) => e.event === "episode" && e.data.status === "done");
    expect(ended.length).toBe(4);
    expect(
      seen.some(
        (e) => e.event === "progress" && typeof e.data.rate === "number" && (e.data.rate as number) > 0,
      ),
    ).toBe(true);
    expect(seen.find((e) => e.event === "status")?.data).toMatchObject({ status: "done" });
    expect(seen.at(-1)).toMatchObject({ event: "progress", data: { status: "done", done: 4, running: 0 } });
  });
});

describe("cancel, resume, delete over HTTP", () => {
  it("cancels a running run, resumes it, refuses what does not apply", async () => {
    const id = await startRun(sleepyRun("0-3", { concurrency: 1 }));
    expect(await json(call("run", "DELETE", `/api/runs/${id}`, { params: { id } }))).toMatchObject({
      status: 409,
    });
    expect(await json(call("cancel", "POST", `/api/runs/${id}/cancel`, { params: { id } }))).toMatchObject({
      status: 200,
      body: { id, status: "cancelled" },
    });
    expect(await json(call("cancel", "POST", `/api/runs/${id}/cancel`, { params: { id } }))).toMatchObject({
      status: 409,
    });
    expect(await json(call("resume", "POST", `/api/runs/${id}/resume`, { params: { id } }))).toMatchObject({
      status: 200,
      body: { id, status: "running" },
    });
    await pg.runs.settled(id);
    expect((await summary(id)).body).toMatchObject({ status: "done", completed: 4 });
    expect(await json(call("resume", "POST", `/api/runs/${id}/resume`, { params: { id } }))).toMatchObject({
      status: 409,
    });
    expect(await json(call("run", "DELETE", `/api/runs/${id}`, { params: { id } }))).toMatchObject({
      status: 200,
    });
    expect(await summary(id)).toMatchObject({ status: 404 });
    expect((await json(call("trajectories", "GET", `/api/trajectories?run=${id}`))).body.total).toBe(0);
  });
});

describe("compare and exports", () => {
  let a = "";
  let b = "";
  beforeAll(async () => {
    a = await startRun({ server: "local", env: "math", split: "test", tasks: "0-9", policy: oracle });
    b = await startRun({
      server: "local",
      env: "math",
      split: "test",
      tasks: "0-9",
      policy: { kind: "model", endpoint: "fix", model: "oracle" },
    });
    await Promise.all([pg.runs.settled(a), pg.runs.settled(b)]);
  });

  it("compares two runs task by task: gained, lost, the paired mean difference and its interval", async () => {
    const c = await json(call("compare", "GET", `/api/runs/compare?a=${a}&b=${b}`));
    expect(c.body).toMatchObject({
      gained: [0, 5],
      lost: [],
      paired: 10,
      a: { id: a, successRate: 0.8 },
      b: { id: b, successRate: 1 },
    });
    expect(c.body.meanDelta).toBeCloseTo(0.2, 12);
    // Differences: two 1s and eight 0s; sd = sqrt((2·0.8² + 8·0.2²)/9); t(9) = 2.262.
    const half = 2.262 * (Math.sqrt((2 * 0.64 + 8 * 0.04) / 9) / Math.sqrt(10));
    expect((c.body.ci95 as number[])[0]).toBeCloseTo(0.2 - half, 9);
    expect((c.body.ci95 as number[])[1]).toBeCloseTo(0.2 + half, 9);
    expect((c.body.tasks as { index: number; delta: number }[]).map((x) => x.delta)).toEqual([
      1, 0, 0, 0, 0, 1, 0, 0, 0, 0,
    ]);
    expect(await json(call("compare", "GET", `/api/runs/compare?a=${a}`))).toMatchObject({ status: 400 });
    expect(await json(call("compare", "GET", `/api/runs/compare?a=${a}&b=nope`))).toMatchObject({
      status: 404,
    });
  });

  const lines = async (res: Response | Promise<Response>) => {
    const r = await res;
    expect(r.status).toBe(200);
    return (await r.text())
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as Record<string, unknown>);
  };

  it("exports a run as chat JSONL: OpenAI messages with tool calls and tool answers, tools, reward", async () => {
    const rows = await lines(
      call("export", "GET", `/api/runs/${b}/export?format=chat-jsonl`, { params: { id: b } }),
    );
    expect(rows.length).toBe(10);
    const first = rows[0]!;
    expect(Object.keys(first)).toEqual(
      expect.arrayContaining(["messages", "tools", "reward", "env", "task", "runId"]),
    );
    expect(first).toMatchObject({ reward: 1, env: "math", task: { split: "test", index: 0 }, runId: b });
    const messages = first.messages as Record<string, unknown>[];
    expect(messages.map((m) => m.role)).toEqual(["user", "assistant", "tool"]);
    expect(messages[0]!.content).toMatch(/^What is|^If x/);
    expect(messages[1]).toMatchObject({
      content: expect.stringMatching(/the answer is/),
      tool_calls: [
        { type: "function", function: { name: "submit", arguments: expect.stringMatching(/^\{"answer":/) } },
      ],
    });
    const callId = (messages[1]!.tool_calls as { id: string }[])[0]!.id;
    expect(messages[2]).toEqual({ role: "tool", tool_call_id: callId, content: "Correct!" });
    expect(first.tools).toEqual([
      {
        type: "function",
        function: {
          name: "submit",
          description: expect.stringMatching(/Submit your final answer/),
          parameters: expect.objectContaining({ type: "object", required: ["answer"] }),
        },
      },
    ]);
  });

  it("exports ATIF documents: steps by source, tool calls and their observations, metrics, rewards in extra", async () => {
    const rows = await lines(
      call("export", "GET", `/api/runs/${b}/export?format=atif`, { params: { id: b } }),
    );
    const d = rows[3]!;
    expect(d).toMatchObject({
      schema_version: "ATIF-v1.4",
      agent: {
        name: "ors-playground",
        model_name: "oracle",
        tool_definitions: [{ function: { name: "submit" } }],
      },
      final_metrics: { total_steps: 2, extra: { total_reward: 1 } },
      extra: {
        ors: { env: "math", total_reward: 1, finished: true, run: { id: b, task_index: 3, repeat: 0 } },
      },
    });
    const steps = d.steps as Record<string, unknown>[];
    expect(steps.map((s) => [s.step_id, s.source])).toEqual([
      [1, "user"],
      [2, "agent"],
    ]);
    const agent = steps[1]!;
    const id = (agent.tool_calls as { tool_call_id: string }[])[0]!.tool_call_id;
    expect(agent).toMatchObject({
      timestamp: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      message: expect.stringMatching(/the answer is/),
      tool_calls: [{ tool_call_id: id, function_name: "submit", arguments: { answer: expect.any(String) } }],
      observation: { results: [{ source_call_id: id, content: "Correct!" }] },
      metrics: { prompt_tokens: expect.any(Number), completion_tokens: expect.any(Number) },
      extra: { ors_steps: [{ reward: 1, finished: true, ok: true }] },
    });
    const fm = d.final_metrics as Record<string, number>;
    expect(fm.total_prompt_tokens).toBe((agent.metrics as Record<string, number>).prompt_tokens);
    // The same from the trajectories' export, filtered by run; a bad format is refused.
    expect(
      (await lines(call("trajExport", "GET", `/api/trajectories/export?run=${b}&format=atif`))).length,
    ).toBe(10);
    expect(await json(call("trajExport", "GET", "/api/trajectories/export?format=csv"))).toMatchObject({
      status: 400,
    });
    expect(
      await json(call("export", "GET", `/api/runs/${b}/export?format=csv`, { params: { id: b } })),
    ).toMatchObject({ status: 400 });
    // No key anywhere.
    const all = await (await call("trajExport", "GET", `/api/trajectories/export?run=${b}`)).text();
    expect(all).not.toContain(KEY);
  });
});

describe("model endpoints and a model at the controls of a live episode", () => {
  it("lists the endpoints without their keys", async () => {
    const r = await json(call("models", "GET", "/api/models"));
    expect(r.body).toEqual({ items: [{ name: "fix", baseUrl: model.baseUrl, hasApiKey: true }] });
    expect(JSON.stringify(r.body)).not.toContain(KEY);
  });

  it("proposes the next call from the recorded episode; the call sent with its agent header is marked so", async () => {
    const { ors, sid } = await guessEpisode(3);
    // The person plays first.
    await ors.callTool("guess", sid, { name: "guess", input: { number: 10 } });
    await pg.recorder.idle();
    const t = (await pg.store.findRunning("local", sid))!;
    const turn = await json(
      call("modelTurn", "POST", `/api/trajectories/${t.id}/model-turn`, {
        body: { endpoint: "fix", model: "oracle" },
        params: { id: t.id },
      }),
    );
    expect(turn.status).toBe(200);
    expect(turn.body).toMatchObject({ turn: 2, stop: null, usage: { promptTokens: expect.any(Number) } });
    // The model saw the person's step as its own earlier call, with the answer.
    const seen = (await model.stats()).lastMessages!;
    expect(seen.map((m) => m.role)).toEqual(["user", "assistant", "tool"]);
    const [proposed] = turn.body.toolCalls as {
      id: string;
      tool: string;
      input: { number: number };
      agent: string;
    }[];
    expect(proposed!.tool).toBe("guess");
    await ors.callTool(
      "guess",
      sid,
      { name: proposed!.tool, input: proposed!.input },
      { headers: { [AGENT_HEADER]: proposed!.agent } },
    );
    await pg.recorder.idle();
    const after = (await pg.store.get(t.id))!;
    expect(after.steps[0]!.agent).toBeUndefined();
    expect(after.steps[1]!.agent).toMatchObject({
      policy: "model",
      model: "oracle",
      turn: 2,
      call_id: proposed!.id,
      message: expect.any(String),
    });
    await ors.delete(sid);
    await pg.recorder.idle();
    expect(
      await json(
        call("modelTurn", "POST", `/api/trajectories/${t.id}/model-turn`, {
          body: { endpoint: "fix", model: "oracle" },
          params: { id: t.id },
        }),
      ),
    ).toMatchObject({ status: 409, body: { detail: expect.stringMatching(/the episode has ended/) } });
    expect(
      await json(
        call("modelTurn", "POST", "/api/trajectories/nope/model-turn", {
          body: { endpoint: "fix", model: "oracle" },
          params: { id: "nope" },
        }),
      ),
    ).toMatchObject({ status: 404 });
  });

  it("a model turn its client gave up on (a paused Play) ends quietly, without an error", async () => {
    const { ors, sid } = await guessEpisode(4);
    await pg.recorder.idle();
    const t = (await pg.store.findRunning("local", sid))!;
    await model.delay(2000);
    try {
      const gone = new AbortController();
      const req = new Request(`http://app.test/api/trajectories/${t.id}/model-turn`, {
        method: "POST",
        body: JSON.stringify({ endpoint: "fix", model: "oracle" }),
        headers: { "content-type": "application/json" },
        signal: gone.signal,
      });
      const pending = routes.modelTurn!.POST!(req, { params: Promise.resolve({ id: t.id }) });
      setTimeout(() => gone.abort(), 200);
      expect((await pending).status).toBe(499);
    } finally {
      await model.delay(0);
      await ors.delete(sid);
    }
  });
});
