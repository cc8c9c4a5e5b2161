// Label sets, labels and review queues through the app's route handlers, in process, on a real
// SQLite store: a queue of an oracle run's episodes for two reviewers, blind review, labels checked
// against their set, the agreement report checked against a hand computation, confirmed false
// positives turned into golden episodes, labels exported with the trajectories.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseTrajectories } from "@/lib/trajectory/jsonl";
import type { Trajectory } from "@/lib/trajectory/schema";
import { appUnderTest } from "./helpers";

let app: Awaited<ReturnType<typeof appUnderTest>>;
let runId: string;

beforeAll(async () => {
  app = await appUnderTest({
    sets: () => import("@/app/api/review/label-sets/route"),
    set: () => import("@/app/api/review/label-sets/[id]/route"),
    labels: () => import("@/app/api/review/labels/route"),
    queues: () => import("@/app/api/review/queues/route"),
    queue: () => import("@/app/api/review/queues/[id]/route"),
    episode: () => import("@/app/api/review/queues/[id]/episodes/[position]/route"),
    agreement: () => import("@/app/api/review/queues/[id]/agreement/route"),
    golden: () => import("@/app/api/review/queues/[id]/golden/route"),
    trajExport: () => import("@/app/api/trajectories/export/route"),
  });
  runId = await app.oracleRun("0-9");
}, 120_000);

afterAll(async () => {
  await app?.close();
});

const SCHEMA = {
  type: "object",
  properties: {
    correct: { type: "boolean", description: "Is the answer right?" },
    failure: { type: "string", enum: ["none", "arithmetic", "format"] },
    note: { type: "string" },
  },
  required: ["correct"],
};

async function newSet(body: Record<string, unknown> = {}) {
  return app.json<{ id: string; verdict: string | null }>(
    app.call("sets", "POST", "/api/review/label-sets", {
      body: { server: "local", env: "math", name: "verdict", schema: SCHEMA, ...body },
    }),
  );
}

describe("label sets", () => {
  it("refuses what is not a small JSON Schema of an object, and a verdict field that is not one", async () => {
    for (const [schema, why] of [
      [{ type: "string" }, /JSON Schema of an object/],
      [{ type: "object", properties: {} }, /at least one field/],
      [{ type: "object", properties: { a: { type: "nonsense" } } }, /AJV/],
    ] as const) {
      const r = await newSet({ schema });
      expect(r.status).toBe(400);
      expect(r.body.detail).toMatch(why);
    }
    expect((await newSet({ verdict: "note" })).body.detail).toMatch(
      /"note" is not a boolean or number field/,
    );
    expect((await newSet({ extra: 1 })).status).toBe(400);
    expect((await app.json(app.call("sets", "POST", "/api/review/label-sets", { body: "{" }))).status).toBe(
      400,
    );
  });

  it("creates one (its verdict found), lists it by environment, reads and deletes it", async () => {
    const r = await newSet({ name: "throwaway" });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({ verdict: "correct", target: "episode", env: "math" });
    const list = await app.json<{ items: { id: string }[] }>(
      app.call("sets", "GET", "/api/review/label-sets?env=math"),
    );
    expect(list.body.items.map((s) => s.id)).toContain(r.body.id);
    expect((await app.json(app.call("sets", "GET", "/api/review/label-sets?env=guess"))).body).toEqual({
      items: [],
    });
    const params = { id: r.body.id };
    expect((await app.json(app.call("set", "GET", "/x", { params }))).status).toBe(200);
    expect((await app.json(app.call("set", "DELETE", "/x", { params }))).body).toEqual({
      deleted: r.body.id,
    });
    expect((await app.json(app.call("set", "GET", "/x", { params }))).status).toBe(404);
  });
});

describe("a queue reviewed by two people", () => {
  let setId: string;
  let queueId: string;
  /** Queue position → the task index of its episode. */
  const taskAt = new Map<number, number>();
  const trajectoryOfTask = new Map<number, string>();

  it("samples the run's episodes and assigns each to both reviewers", async () => {
    setId = (await newSet()).body.id;
    const bad = await app.json(
      app.call("queues", "POST", "/api/review/queues", {
        body: { labelSet: setId, run: "nope", reviewers: ["ann"] },
      }),
    );
    expect(bad).toMatchObject({ status: 404, body: { detail: 'no run with id "nope"' } });
    const q = await app.json<{
      id: string;
      size: number;
      reviewers: string[];
      blind: boolean;
      progress: unknown;
    }>(
      app.call("queues", "POST", "/api/review/queues", {
        body: {
          labelSet: setId,
          run: runId,
          size: 10,
          stratified: true,
          reviewers: ["ann", "bob"],
          perEpisode: 2,
        },
      }),
    );
    expect(q.status).toBe(201);
    expect(q.body).toMatchObject({
      size: 10,
      reviewers: ["ann", "bob"],
      blind: true,
      progress: [
        { reviewer: "ann", assigned: 10, labelled: 0 },
        { reviewer: "bob", assigned: 10, labelled: 0 },
      ],
    });
    queueId = q.body.id;
    const listed = await app.json<{ items: { id: string }[] }>(
      app.call("queues", "GET", `/api/review/queues?run=${runId}`),
    );
    expect(listed.body.items.map((x) => x.id)).toEqual([queueId]);
  });

  it("shows a reviewer one episode at a time, blind: no reward, no metadata, nobody else's labels", async () => {
    for (let position = 0; position < 10; position++) {
      const e = await app.json<{
        revealed: boolean;
        total: number;
        index: number;
        previous: number | null;
        next: number | null;
        trajectory: Trajectory & { total_reward: number | null };
      }>(
        app.call("episode", "GET", `/x?reviewer=ann`, {
          params: { id: queueId, position: String(position) },
        }),
      );
      expect(e.status).toBe(200);
      expect(e.body).toMatchObject({ revealed: false, total: 10, index: position });
      expect(e.body.previous).toBe(position === 0 ? null : position - 1);
      expect(e.body.next).toBe(position === 9 ? null : position + 1);
      expect(e.body.trajectory.total_reward).toBeNull();
      expect(e.body.trajectory.steps.every((s) => s.reward === null && s.metadata === null)).toBe(true);
      const task = e.body.trajectory.task as { index: number };
      taskAt.set(position, task.index);
      trajectoryOfTask.set(task.index, e.body.trajectory.id);
    }
    expect([...taskAt.values()].sort((a, b) => a - b)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    const who = await app.json(app.call("episode", "GET", "/x", { params: { id: queueId, position: "0" } }));
    expect(who).toMatchObject({ status: 400, body: { detail: expect.stringMatching(/reviewer=/) } });
    const stranger = await app.json(
      app.call("episode", "GET", "/x?reviewer=carl", { params: { id: queueId, position: "0" } }),
    );
    expect(stranger.status).toBe(404);
  });

  it("checks a label against its set before writing it", async () => {
    const trajectoryId = trajectoryOfTask.get(1)!;
    const put = (body: Record<string, unknown>) =>
      app.json(
        app.call("labels", "PUT", "/api/review/labels", {
          body: { labelSet: setId, trajectoryId, reviewer: "ann", ...body },
        }),
      );
    expect((await put({ value: { correct: "yes" } })).body.detail).toMatch(/^value: .*correct.*boolean/);
    expect((await put({ value: { failure: "oops" } })).body.detail).toMatch(/correct: required/);
    expect((await put({ value: { correct: true }, step: 1 })).body.detail).toMatch(/labels whole episodes/);
    expect((await put({ value: { correct: true }, labelSet: "nope" })).status).toBe(404);
    expect((await put({ value: { correct: true }, trajectoryId: "nope" })).status).toBe(404);
    expect((await put({ value: { correct: true }, reviewer: "  " })).status).toBe(400);
  });

  // task:      0  1  2  3  4  5  6  7  8  9
  // verifier:  F  T  T  T  T  F  T  T  T  T   (the oracle answers wrong on 0 and 5)
  // ann:       F  T  T  T  T  T  T  T  F  F
  // bob:       F  T  T  T  T  T  T  F  F  F
  const ann = [false, true, true, true, true, true, true, true, false, false];
  const bob = [false, true, true, true, true, true, true, false, false, false];

  it("records both reviewers' labels; a labelled episode shows its reward", async () => {
    for (const [reviewer, verdicts] of [
      ["ann", ann],
      ["bob", bob],
    ] as const)
      for (let task = 0; task < 10; task++) {
        const r = await app.json(
          app.call("labels", "PUT", "/api/review/labels", {
            body: {
              labelSet: setId,
              trajectoryId: trajectoryOfTask.get(task),
              reviewer,
              value: { correct: verdicts[task], failure: verdicts[task] ? "none" : "arithmetic" },
            },
          }),
        );
        expect(r.status).toBe(200);
      }
    const position = [...taskAt].find(([, t]) => t === 5)![0];
    const e = await app.json<{
      revealed: boolean;
      label: { value: unknown };
      trajectory: { total_reward: number };
    }>(
      app.call("episode", "GET", "/x?reviewer=bob", { params: { id: queueId, position: String(position) } }),
    );
    expect(e.body).toMatchObject({ revealed: true, label: { value: { correct: true, failure: "none" } } });
    expect(e.body.trajectory.total_reward).toBe(0);
    const q = await app.json(app.call("queue", "GET", "/x", { params: { id: queueId } }));
    expect(q.body.progress).toEqual([
      { reviewer: "ann", assigned: 10, labelled: 10 },
      { reviewer: "bob", assigned: 10, labelled: 10 },
    ]);
  });

  it("reports the verifier's agreement as computed by hand", async () => {
    const r = await app.json<{
      confusion: Record<string, string[]>;
      rates: Record<string, { k: number; n: number; rate: number; ci95: [number, number] }>;
      kappa: { a: string; b: string; n: number; observed: number; expected: number; kappa: number }[];
      disputed: string[];
      unlabelled: string[];
    }>(app.call("agreement", "GET", "/x", { params: { id: queueId } }));
    expect(r.status).toBe(200);
    const ids = (tasks: number[]) => tasks.map((t) => trajectoryOfTask.get(t)!).sort();
    const cell = (name: string) => [...r.body.confusion[name]!].sort();
    // Majorities: tasks 0-6, 8, 9 agreed; 7 split (disputed, left out).
    expect(cell("tp")).toEqual(ids([1, 2, 3, 4, 6]));
    expect(cell("fp")).toEqual(ids([8, 9]));
    expect(cell("fn")).toEqual(ids([5]));
    expect(cell("tn")).toEqual(ids([0]));
    expect(r.body.disputed).toEqual(ids([7]));
    expect(r.body.unlabelled).toEqual([]);
    // FP rate = FP / (FP + TN) = 2/3; FN rate = FN / (FN + TP) = 1/6; agreement (5 + 1) / 9.
    expect(r.body.rates.falsePositive).toMatchObject({ k: 2, n: 3 });
    expect(r.body.rates.falsePositive.rate).toBeCloseTo(2 / 3, 12);
    expect(r.body.rates.falseNegative).toMatchObject({ k: 1, n: 6 });
    expect(r.body.rates.agreement).toMatchObject({ k: 6, n: 9 });
    // Wilson 95% of 1 of 6: centre (1/6 + z²/12)/(1 + z²/6), half z·√(5/216 + z²/144)/(1 + z²/6).
    const z = 1.959964;
    const d = 1 + (z * z) / 6;
    const centre = (1 / 6 + (z * z) / 12) / d;
    const half = (z * Math.sqrt(5 / 216 + (z * z) / 144)) / d;
    expect(r.body.rates.falseNegative.ci95[0]).toBeCloseTo(centre - half, 9);
    expect(r.body.rates.falseNegative.ci95[1]).toBeCloseTo(centre + half, 9);
    // κ: they agree on 9 of 10; ann says correct 7 times, bob 6: pe = 0.7·0.6 + 0.3·0.4 = 0.54.
    expect(r.body.kappa).toHaveLength(1);
    expect(r.body.kappa[0]).toMatchObject({ a: "ann", b: "bob", n: 10 });
    expect(r.body.kappa[0]!.observed).toBeCloseTo(0.9, 12);
    expect(r.body.kappa[0]!.expected).toBeCloseTo(0.54, 12);
    expect(r.body.kappa[0]!.kappa).toBeCloseTo(0.36 / 0.46, 12);
  });

  it("turns the confirmed false positives into golden episodes with the reward reviewers said, once", async () => {
    const r = await app.json<{ golden: { from: string; id: string; reward: number }[] }>(
      app.call("golden", "POST", "/x", { params: { id: queueId } }),
    );
    expect(r.status).toBe(200);
    expect(r.body.golden.map((g) => g.from).sort()).toEqual(
      [trajectoryOfTask.get(8), trajectoryOfTask.get(9)].sort(),
    );
    for (const g of r.body.golden) {
      const copy = (await app.pg.store.get(g.id))!;
      const original = (await app.pg.store.get(g.from))!;
      expect(original.total_reward).toBe(1);
      expect(copy).toMatchObject({ golden: true, total_reward: 0, origin: { kind: "review", from: g.from } });
      expect(copy.steps.map((s) => s.input)).toEqual(original.steps.map((s) => s.input));
      expect(copy.steps.at(-1)!.reward).toBe(0);
      expect(copy.run).toBeUndefined();
      expect(copy.labels).toBeUndefined();
    }
    const again = await app.json<{ golden: { id: string }[] }>(
      app.call("golden", "POST", "/x", { params: { id: queueId } }),
    );
    expect(again.body.golden.map((g) => g.id).sort()).toEqual(r.body.golden.map((g) => g.id).sort());
    expect((await app.pg.store.list({ golden: true })).total).toBe(2);
  });

  it("exports the labels with the trajectories, and they import back", async () => {
    const res = await app.call("trajExport", "GET", `/api/trajectories/export?run=${runId}`);
    expect(res.status).toBe(200);
    const parsed = parseTrajectories(await res.text());
    expect(parsed.ok).toBe(true);
    if (!parsed.ok) return;
    const t8 = parsed.trajectories.find((t) => t.id === trajectoryOfTask.get(8))!;
    expect(t8.labels?.map((l) => [l.reviewer, l.value.correct, l.set.name])).toEqual([
      ["ann", false, "verdict"],
      ["bob", false, "verdict"],
    ]);
    expect(t8.labels![0]!.set.schema).toEqual(SCHEMA);
  });
});
