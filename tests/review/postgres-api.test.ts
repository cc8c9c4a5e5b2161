// Review and baselines through the app's route handlers on the PostgreSQL store (the test run's
// throwaway cluster, a database of this file's own): a queue labelled by two reviewers and its
// agreement report, a share link played by a person, the leaderboard with both runs' own figures,
// the run report — what tests/review/*-api.test.ts check on SQLite, end to end on the other store.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { PlayerProgress } from "@/lib/review/share";
import { postgresDatabase } from "../support/postgres";
import { appUnderTest } from "./helpers";

const db = await postgresDatabase("review-api");

describe("review and baselines on PostgreSQL", () => {
  let app: Awaited<ReturnType<typeof appUnderTest>>;
  beforeAll(async () => {
    app = await appUnderTest(
      {
        sets: () => import("@/app/api/review/label-sets/route"),
        labels: () => import("@/app/api/review/labels/route"),
        queues: () => import("@/app/api/review/queues/route"),
        agreement: () => import("@/app/api/review/queues/[id]/agreement/route"),
        shares: () => import("@/app/api/shares/route"),
        join: () => import("@/app/api/play/[token]/join/route"),
        next: () => import("@/app/api/play/[token]/next/route"),
        relay: () => import("@/app/api/play/[token]/servers/[name]/[...path]/route"),
        board: () => import("@/app/api/leaderboards/[server]/[env]/[split]/route"),
        run: () => import("@/app/api/runs/[id]/route"),
        report: () => import("@/app/api/runs/[id]/report/route"),
      },
      db.url,
    );
    expect(app.pg.storage.kind).toBe("postgres");
  }, 120_000);
  afterAll(async () => {
    await app?.close();
  });

  it("a queue of an oracle run labelled by two reviewers: the agreement report as computed by hand", async () => {
    const runId = await app.oracleRun("0-4");
    const set = await app.json<{ id: string }>(
      app.call("sets", "POST", "/x", {
        body: {
          server: "local",
          env: "math",
          name: "verdict",
          schema: { type: "object", properties: { correct: { type: "boolean" } } },
        },
      }),
    );
    const q = await app.json<{ id: string; size: number }>(
      app.call("queues", "POST", "/x", {
        body: { labelSet: set.body.id, run: runId, reviewers: ["ann", "bob"], perEpisode: 2 },
      }),
    );
    expect(q.body.size).toBe(5);
    // The oracle misses task 0. ann: all correct but 0; bob: all correct.
    for (const e of await app.pg.store.runEpisodes(runId))
      for (const [reviewer, correct] of [
        ["ann", e.taskIndex !== 0],
        ["bob", true],
      ] as const) {
        const r = await app.call("labels", "PUT", "/x", {
          body: { labelSet: set.body.id, trajectoryId: e.trajectoryId, reviewer, value: { correct } },
        });
        expect(r.status).toBe(200);
      }
    const a = await app.json<{
      confusion: Record<string, string[]>;
      disputed: string[];
      kappa: { observed: number; expected: number; kappa: number }[];
    }>(app.call("agreement", "GET", "/x", { params: { id: q.body.id } }));
    // Task 0 is split (disputed); 1-4 are true positives.
    expect(Object.fromEntries(Object.entries(a.body.confusion).map(([k, v]) => [k, v.length]))).toEqual({
      tp: 4,
      fp: 0,
      fn: 0,
      tn: 0,
    });
    expect(a.body.disputed).toHaveLength(1);
    // Agree on 4 of 5; ann says correct 4 times, bob 5: pe = 0.8 · 1 + 0.2 · 0 = 0.8 → κ = 0.
    expect(a.body.kappa[0]).toMatchObject({ observed: 0.8, expected: 0.8, kappa: 0 });
  });

  it("a share link played by a person; the leaderboard has both runs with their own figures; the report", async () => {
    const share = await app.json<{ token: string }>(
      app.call("shares", "POST", "/x", {
        body: { server: "local", env: "math", split: "train", tasks: "0-1" },
      }),
    );
    const token = share.body.token;
    await app.call("join", "POST", "/x", { params: { token }, body: { player: "Ada" } });
    let p = await app.json<PlayerProgress>(
      app.call("next", "POST", "/x", { params: { token }, body: { player: "Ada" } }),
    );
    for (const answer of [
      String((await app.pg.clientFor("local").task("math", "train", 0)).task.answer),
      "nonsense",
    ]) {
      const res = await app.call("relay", "POST", `/api/play/${token}/servers/local/math/call`, {
        params: { token, name: "local", path: "math/call" },
        headers: { "x-session-id": p.body.current!.sid },
        body: { name: "submit", input: { answer } },
      });
      expect(await res.text()).toContain("event: end");
      p = await app.json<PlayerProgress>(
        app.call("next", "POST", "/x", { params: { token }, body: { player: "Ada" } }),
      );
    }
    expect(p.body).toMatchObject({ played: 2, current: null });
    const board = await app.json<{
      rows: { runId: string; policyKind: string; successRate: number; meanReward: number }[];
    }>(app.call("board", "GET", "/x", { params: { server: "local", env: "math", split: "train" } }));
    expect(board.body.rows.map((r) => r.policyKind).sort()).toEqual(["human", "script"]);
    for (const row of board.body.rows) {
      const own = await app.json<{ successRate: number; meanReward: number }>(
        app.call("run", "GET", "/x", { params: { id: row.runId } }),
      );
      expect([row.successRate, row.meanReward]).toEqual([own.body.successRate, own.body.meanReward]);
    }
    expect(board.body.rows.find((r) => r.policyKind === "human")).toMatchObject({ successRate: 0.5 });
    const report = await app.call("report", "GET", "/x", { params: { id: p.body.runId } });
    expect(await report.text()).toContain("<h1>Run ");
  });
});
