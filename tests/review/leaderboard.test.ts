// Leaderboards and run reports through the app's route handlers, in process: every run of a split
// with the figures its own summary gives (GET /api/runs/<id>), best first, grouped by policy across
// environment versions; the run and the leaderboard as one HTML file with no script and a strict CSP.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { worstFirst } from "@/lib/review/report-html";
import { appUnderTest, ORACLE } from "./helpers";

let app: Awaited<ReturnType<typeof appUnderTest>>;
let oracle: string;
let random: string;
let otherSplit: string;

beforeAll(async () => {
  app = await appUnderTest({
    board: () => import("@/app/api/leaderboards/[server]/[env]/[split]/route"),
    run: () => import("@/app/api/runs/[id]/route"),
    report: () => import("@/app/api/runs/[id]/report/route"),
  });
  oracle = await app.oracleRun("0-9");
  const r = await app.pg.runs.start({
    server: "local",
    env: "math",
    split: "train",
    tasks: "0-9",
    repeats: 2,
    policy: { kind: "random", seed: 3 },
  });
  await app.pg.runs.settled(r.id);
  random = r.id;
  const t = await app.pg.runs.start({
    server: "local",
    env: "math",
    split: "test",
    tasks: "0-1",
    policy: ORACLE,
  });
  await app.pg.runs.settled(t.id);
  otherSplit = t.id;
}, 120_000);

afterAll(async () => {
  await app?.close();
});

interface Row {
  runId: string;
  policyKind: string;
  group: string;
  version: string | null;
  n: number;
  successRate: number | null;
  success: { k: number; n: number; ci95: [number, number] | null };
  meanReward: number | null;
  ci95: [number, number] | null;
  passAtK: Record<string, number | null>;
  tokensPerEpisode: number | null;
  msPerEpisode: number | null;
}

const board = (split = "train") =>
  app.json<{ rows: Row[]; groups: { key: string; runIds: string[] }[]; versions: { version: string }[] }>(
    app.call("board", "GET", `/api/leaderboards/local/math/${split}`, {
      params: { server: "local", env: "math", split },
    }),
  );

describe("GET /api/leaderboards/<server>/<env>/<split>", () => {
  it("has one row per run of the split, best first, each with its run's own figures", async () => {
    const b = await board();
    expect(b.status).toBe(200);
    expect(b.body.rows.map((r) => r.runId)).toEqual([oracle, random]);
    expect(b.body.rows.map((r) => r.runId)).not.toContain(otherSplit);
    for (const row of b.body.rows) {
      const own = await app.json<Record<string, unknown>>(
        app.call("run", "GET", "/x", { params: { id: row.runId } }),
      );
      expect(row.n).toBe(own.body.completed);
      expect(row.successRate).toBe(own.body.successRate);
      expect(row.meanReward).toBe(own.body.meanReward);
      expect(row.ci95).toEqual(own.body.ci95);
      expect(row.passAtK).toEqual(own.body.passAtK);
      expect(row.msPerEpisode).toBe((own.body.durationMs as { p50: number }).p50);
    }
    const top = b.body.rows[0]!;
    expect(top).toMatchObject({
      policyKind: "script",
      n: 10,
      successRate: 0.8,
      success: { k: 8, n: 10 },
      tokensPerEpisode: null,
    });
    expect(b.body.rows[1]).toMatchObject({ policyKind: "random", n: 20, group: "random seed 3" });
    expect(Object.keys(b.body.rows[1]!.passAtK)).toEqual(["1", "2"]);
  });

  it("groups runs of one policy and names the environment version each played", async () => {
    const again = await app.oracleRun("0-4");
    const b = await board();
    const g = b.body.groups.find((x) => x.key.startsWith("script "))!;
    expect(g.runIds).toEqual([oracle, again]);
    expect(new Set(b.body.rows.map((r) => r.version))).toEqual(new Set(["v1"]));
    expect(b.body.versions).toHaveLength(1);
  });

  it("is empty for a split no run played, and refuses a format it does not make", async () => {
    expect((await board("nope")).body.rows).toEqual([]);
    const bad = await app.json(
      app.call("board", "GET", "/api/leaderboards/local/math/train?format=pdf", {
        params: { server: "local", env: "math", split: "train" },
      }),
    );
    expect(bad).toMatchObject({
      status: 400,
      body: { detail: expect.stringMatching(/^format: expected json or html/) },
    });
  });
});

describe("reports as one HTML file", () => {
  const checkSelfContained = (html: string, res: Response) => {
    expect(res.headers.get("content-type")).toBe("text/html; charset=utf-8");
    expect(res.headers.get("content-disposition")).toMatch(/^attachment; filename="/);
    expect(res.headers.get("content-security-policy")).toMatch(/default-src 'none'.*sandbox/);
    expect(html).toMatch(
      /<meta http-equiv="Content-Security-Policy" content="default-src &#39;none&#39;; style-src &#39;sha256-/,
    );
    expect(html).not.toMatch(/<script|<link |<iframe|src="http|url\(/i);
  };

  it("a run: summary, histogram, pass@k, tasks worst first, errors, links back", async () => {
    const res = await app.call("report", "GET", `/api/runs/${oracle}/report`, { params: { id: oracle } });
    expect(res.status).toBe(200);
    const html = await res.text();
    checkSelfContained(html, res);
    expect(html).toContain(`<h1>Run ${oracle}: script`);
    expect(html).toContain("80.0%");
    expect(html).toMatch(/<svg class="chart" role="img" aria-label="Rewards of 10 completed episodes/);
    expect(html).toContain('<th class="num">pass@1</th>');
    const tasks = [...html.matchAll(/<tr><td class="num mono">(\d+)<\/td>/g)].map((m) => Number(m[1]));
    expect(tasks.slice(0, 2)).toEqual([0, 5]);
    expect(tasks).toHaveLength(10);
    expect(html).toContain(`href="http://127.0.0.1:3000/runs/${oracle}"`);
    expect(html).toMatch(/href="http:\/\/127\.0\.0\.1:3000\/trajectories\/[A-Za-z0-9_-]+"/);
    expect(html).toContain("No episode errored.");
    const missing = await app.json(app.call("report", "GET", "/x", { params: { id: "nope" } }));
    expect(missing).toMatchObject({ status: 404, body: { detail: 'no run with id "nope"' } });
  });

  it("a leaderboard: its rows in order, with links to the runs", async () => {
    const res = await app.call("board", "GET", "/api/leaderboards/local/math/train?format=html", {
      params: { server: "local", env: "math", split: "train" },
    });
    const html = await res.text();
    checkSelfContained(html, res);
    const linked = [...html.matchAll(/href="http:\/\/127\.0\.0\.1:3000\/runs\/([A-Za-z0-9_-]+)"/g)].map(
      (m) => m[1],
    );
    expect(linked[0]).toBe(oracle);
    expect(linked).toContain(random);
  });

  it("orders tasks worst first: lowest mean, then fewest successes, never completed last", () => {
    const row = (index: number, mean: number | null, successes = 0, completed = 1) => ({
      index,
      rewards: [],
      episodeIds: [],
      mean,
      spread: null,
      completed,
      successes,
      succeeded: null,
      p: null,
      signal: null,
      always: null,
    });
    expect(
      worstFirst([row(1, 1, 1), row(2, null, 0, 0), row(3, 0.5, 0), row(4, 0.5, 1), row(5, 0)]).map(
        (t) => t.index,
      ),
    ).toEqual([5, 3, 4, 1, 2]);
  });
});
