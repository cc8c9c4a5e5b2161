// The quality checks on the reference-shaped server (tests/fixtures/reference-server, a real process
// serving the quality fixtures as Python classes: tests/fixtures/reference-server/environments/
// quality.ts): the same findings as on our host — its crashing tool raises, so the server answers
// `event: error` — and none on the sound environment.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Playground } from "@/lib/playground";
import { type RunningReferenceServer, startReferenceServer } from "../../fixtures/reference-server/spawn";
import {
  checkQuality,
  expectFindings,
  ORACLE,
  ORACLE_MISSES,
  outcomes,
  QUALITY_ENV_NAMES,
  qualityPlayground,
  qualityResult,
} from "./helpers";

const TASKS = 12;
let ref: RunningReferenceServer;
let pg: Playground;

beforeAll(async () => {
  ref = await startReferenceServer({ setupMs: 5, envs: QUALITY_ENV_NAMES });
  pg = qualityPlayground({ ORS_SERVERS: `py=${ref.url}` }).pg;
});
afterAll(async () => {
  await pg?.close();
  await ref?.stop();
});

const check = (env: string, oracle?: string) => checkQuality(pg, "py", { env, tasks: TASKS, oracle });

describe("quality checks on the reference-shaped server", () => {
  it("find nothing on the sound environment", async () => {
    const report = await check("sound", ORACLE);
    expectFindings(report, []);
    expect(new Set(Object.values(outcomes(report)))).toEqual(new Set(["pass"]));
    expect(report.sample!.tools.map((t) => t.name)).toEqual(["note", "submit"]);
    // Played on that server, recorded under its name.
    const recorded = await pg.store.list({ run: report.sample!.plays[0]!.runId });
    expect(recorded.total).toBe(TASKS);
    expect(recorded.items.every((i) => i.server === "py" && i.env === "sound")).toBe(true);
  });

  it.each([
    ["leaky", "none", "answer-leak"],
    ["coinflip", "none", "nondeterministic"],
    ["anyreward", "oracle.ts", "trivial-reward"],
    ["sound", "oracle-misses.ts", "oracle-below-max"],
    ["noreward", "none", "no-reward"],
    ["crashy", "oracle.ts", "tool-crash"],
  ])("%s (oracle: %s): %s, and nothing else", async (env, oracle, finding) => {
    const report = await check(
      env,
      oracle === "none" ? undefined : oracle === "oracle.ts" ? ORACLE : ORACLE_MISSES,
    );
    expectFindings(report, [finding]);
    const r = qualityResult(report, finding);
    expect(r.evidence.length).toBeGreaterThan(0);
    for (const e of r.evidence) expect(report.sample!.tasks).toContain(e.task);
  });

  it("tool-crash names the call whose exception the server answered with event: error", async () => {
    const report = await check("crashy");
    const r = qualityResult(report, "tool-crash");
    const e = r.evidence[0]!;
    expect(e.call!.tool).toBe("inspect");
    expect(e.call!.input.slot).toBeGreaterThanOrEqual(3);
    expect(e.what).toMatch(/^random: inspect failed: event: error "list index out of range"$/);
    const t = await pg.store.get(e.trajectory!.id);
    const step = t!.steps.find((s) => s.index === e.trajectory!.step)!;
    expect(step.events.some((f) => f.kind === "event" && f.event === "error")).toBe(true);
  });
});
