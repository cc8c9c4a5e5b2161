// Import validation: JSON, JSON arrays and JSONL; clear errors with line numbers; nothing
// half-imported through the HTTP route.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseTrajectories, toJsonl } from "@/lib/trajectory/jsonl";
import { tempDir, trajectory } from "../episodes/helpers";

describe("parseTrajectories", () => {
  it("accepts one JSON object (pretty or not), an array, and JSONL", () => {
    const t = trajectory("one");
    expect(parseTrajectories(JSON.stringify(t, null, 2))).toEqual({ ok: true, trajectories: [t] });
    expect(parseTrajectories(JSON.stringify(t))).toMatchObject({ ok: true });
    expect(parseTrajectories(JSON.stringify([t, trajectory("two")]))).toMatchObject({ ok: true });
    const r = parseTrajectories(`${toJsonl([t, trajectory("two")])}\n\n`);
    expect(r.ok && r.trajectories.map((x) => x.id)).toEqual(["one", "two"]);
  });

  it("names the line and the field of each bad record", () => {
    const good = JSON.stringify(trajectory("g"));
    const badField = JSON.stringify({ ...trajectory("b"), total_reward: "lots" });
    const r = parseTrajectories([good, "{not json", badField, JSON.stringify(trajectory("g"))].join("\n"));
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.errors[0]).toMatch(/^line 2: invalid JSON/);
    expect(r.errors[1]).toMatch(/^line 3: total_reward: /);
    expect(r.errors[2]).toBe('line 4: duplicate id "g" (also line 1)');
  });

  it("rejects unknown fields, a bad format tag, empty files", () => {
    const extra = parseTrajectories(JSON.stringify({ ...trajectory("e"), secrets: { a: "b" } }));
    expect(!extra.ok && extra.errors[0]).toMatch(/^trajectory: .*secrets/);
    const fmt = parseTrajectories(JSON.stringify({ ...trajectory("f"), format: "other/9" }));
    expect(!fmt.ok && fmt.errors[0]).toMatch(/^trajectory: format/);
    const step = trajectory("s");
    (step.steps[0] as { reward: unknown }).reward = "x";
    const st = parseTrajectories(JSON.stringify([trajectory("ok"), step]));
    expect(!st.ok && st.errors[0]).toMatch(/^item 2: steps\.0\.reward/);
    expect(parseTrajectories("  \n")).toEqual({ ok: false, errors: [expect.stringMatching(/empty/)] });
  });
});

describe("labels in the format", () => {
  const set = {
    id: "lsA",
    name: "verdict",
    target: "episode" as const,
    schema: { type: "object", properties: { correct: { type: "boolean" } } },
    verdict: "correct",
  };
  const label = { set, step: null, reviewer: "ann", value: { correct: true }, created_at: 1, updated_at: 2 };

  it("carries labels through JSONL unchanged", () => {
    const t = trajectory("lab", { labels: [label, { ...label, step: 2, reviewer: "bob" }] });
    expect(parseTrajectories(toJsonl([t]))).toEqual({ ok: true, trajectories: [t] });
  });

  it("names what is wrong in a label", () => {
    const bad = trajectory("bad", { labels: [{ ...label, step: 0 }] });
    const r = parseTrajectories(JSON.stringify(bad));
    expect(!r.ok && r.errors[0]).toMatch(/^trajectory: labels\.0\.step/);
    const noSet = parseTrajectories(
      JSON.stringify({ ...trajectory("x"), labels: [{ ...label, set: { id: "y" } }] }),
    );
    expect(!noSet.ok && noSet.errors[0]).toMatch(/labels\.0\.set\.name/);
  });
});

describe("POST /api/trajectories/import", () => {
  let POST: (req: Request) => Promise<Response>;
  let LIST: (req: Request) => Promise<Response>;
  beforeAll(async () => {
    process.env.PLAYGROUND_DATA_DIR = tempDir("traj-import-");
    ({ POST } = await import("@/app/api/trajectories/import/route"));
    ({ GET: LIST } = await import("@/app/api/trajectories/route"));
  });
  afterAll(() => {
    delete process.env.PLAYGROUND_DATA_DIR;
  });
  const post = (body: string) =>
    POST(new Request("http://t/api/trajectories/import", { method: "POST", body }));
  const count = async () =>
    ((await (await LIST(new Request("http://t/api/trajectories"))).json()) as { total: number }).total;

  it("imports nothing when any line is bad, everything when all are good, skips existing ids", async () => {
    const before = await count();
    const bad = await post(`${JSON.stringify(trajectory("i1"))}\n{"format":"ors-trajectory/1"}\n`);
    expect(bad.status).toBe(400);
    const body = (await bad.json()) as { detail: string; errors: string[] };
    expect(body.detail).toMatch(/^nothing imported: line 2: /);
    expect(await count()).toBe(before);
    const ok = await post(toJsonl([trajectory("i1"), trajectory("i2")]));
    expect(await ok.json()).toEqual({ imported: ["i1", "i2"], skipped: [] });
    const again = await post(toJsonl([trajectory("i2"), trajectory("i3")]));
    expect(await again.json()).toEqual({ imported: ["i3"], skipped: ["i2"] });
    expect(await count()).toBe(before + 3);
  });
});
