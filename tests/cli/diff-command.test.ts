// `ors-playground diff A B` as a user types it (the real command, a child process) against real
// hosts on loopback: the fixture `shop` in two versions (tests/fixtures/diff), its report as text,
// JSON, Markdown and JUnit, the exit codes (1 breaking, 0 unchanged, 2 could not run); and
// `--replay RUN`: a run recorded with the real `run` command, replayed on another environment, its
// flipped tasks with their first differing step. Usage mistakes in process.
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseDiffArgs } from "@/lib/cli/diff-command";
import type { DiffReport } from "@/lib/conformance/diff/report";
import { SHOP_CHANGES } from "../fixtures/diff/expected";
import { type SpawnedServer, spawnOrsServer, unusedPort } from "../relay/helpers";
import { tempDir } from "../runs/helpers";
import { flags, recordRun, runBin } from "./helpers";

const FIXTURES = path.resolve(__dirname, "../fixtures");

let v1: SpawnedServer;
let v2: SpawnedServer;
let quality: SpawnedServer;

beforeAll(async () => {
  [v1, v2, quality] = await Promise.all([
    spawnOrsServer(0, { ORS_ENVS: path.join(FIXTURES, "diff/shop-v1.ts") }),
    spawnOrsServer(0, { ORS_ENVS: path.join(FIXTURES, "diff/shop-v2.ts") }),
    spawnOrsServer(0, { ORS_ENVS: path.join(FIXTURES, "quality-envs.ts") }),
  ]);
}, 120_000);

afterAll(async () => {
  await Promise.all([v1?.stop(), v2?.stop(), quality?.stop()]);
});

describe("diff A B", () => {
  it("reports shop v1 → v2: the changes worst first, JSON, Markdown and JUnit, exit 1", async () => {
    const dir = tempDir("diff-cli-");
    const out = (f: string) => path.join(dir, f);
    const r = await runBin([
      "diff",
      v1.url,
      v2.url,
      "--env",
      "shop",
      "--json",
      out("diff.json"),
      "--markdown",
      out("diff.md"),
      "--junit",
      out("diff.xml"),
      "--data-dir",
      dir,
    ]);
    expect(r.code, r.stderr).toBe(1);
    expect(r.stdout).toContain(`ORS diff: ${v1.url}, environment shop → ${v2.url}, environment shop`);
    expect(r.stdout).toContain(
      "✗ breaking   tool lookup renamed to search (the same input schema and description)",
    );
    expect(r.stdout).toContain("Verdict: breaking: 8 breaking changes, 6 compatible, 5 cosmetic");
    const report = JSON.parse(fs.readFileSync(out("diff.json"), "utf8")) as DiffReport;
    expect(report).toMatchObject({
      schemaVersion: 1,
      format: "ors-diff",
      verdict: "breaking",
      counts: { breaking: 8, compatible: 6, cosmetic: 5 },
      passed: false,
      omitted: { changes: 0, gained: 0, lost: 0, flips: 0 },
      behaviour: null,
    });
    expect(report.changes.map((c) => `${c.class} ${c.kind} ${c.path}`)).toEqual(SHOP_CHANGES);
    const md = fs.readFileSync(out("diff.md"), "utf8");
    expect(md.split("\n")[0]).toBe("### ❌ ORS diff: breaking: 8 breaking changes, 6 compatible, 5 cosmetic");
    expect(md.indexOf("**Breaking changes**")).toBeLessThan(md.indexOf("<details>"));
    expect(md).toContain("- tool refund removed (`shop/tools/refund`)");
    const xml = fs.readFileSync(out("diff.xml"), "utf8");
    expect(xml).toMatch(/<testsuites name="ORS diff" tests="19" failures="8" errors="0" skipped="0"/);
    expect(xml).toContain(
      '<testcase classname="diff.shop.breaking" name="tool-removed /tools/refund" time="0.000">',
    );
  }, 120_000);

  it("finds no change between a server and itself (exit 0), and writes Markdown to stdout", async () => {
    const r = await runBin(["diff", v1.url, v1.url, "--markdown", "-", "--data-dir", tempDir("diff-cli-")]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.split("\n")[0]).toBe("### ✅ ORS diff: unchanged: no surface change");
  }, 60_000);

  it("cannot run: a server down, an unknown environment, an unknown server name (exit 2)", async () => {
    const data = tempDir("diff-cli-");
    const down = await runBin(["diff", v1.url, `http://127.0.0.1:${await unusedPort()}`, "--data-dir", data]);
    expect(down.code).toBe(2);
    expect(down.stderr).toMatch(/diff: .*(unreachable|ECONNREFUSED|refused)/i);
    const env = await runBin(["diff", v1.url, v2.url, "--env", "nope", "--data-dir", data]);
    expect(env.code).toBe(2);
    expect(env.stderr).toContain('the server has no environment "nope" (it has shop');
    const name = await runBin(["diff", "staging", v2.url, "--data-dir", data]);
    expect(name.code).toBe(2);
    expect(name.stderr).toContain('no server named "staging"');
    // A name the playground knows is resolved to its URL.
    const known = await runBin(["diff", "v1", v1.url, "--env", "shop", "--data-dir", data], {
      env: { ORS_SERVERS: `v1=${v1.url}` },
    });
    expect(known.code, known.stderr).toBe(0);
    expect(known.stdout).toContain(`ORS diff: v1 (${v1.url}), environment shop`);
  }, 60_000);

  it("--replay: a recorded run replayed on B, the lost tasks with their first differing step; --max-flips", async () => {
    const data = tempDir("diff-replay-");
    const runId = await recordRun(
      quality.url,
      flags({
        env: "sound",
        split: "train",
        tasks: "0-9",
        policy: "script",
        script: path.join(FIXTURES, "quality/oracle.ts"),
      }),
      data,
    );
    const json = path.join(data, "diff.json");
    const args = [
      "diff",
      quality.url,
      quality.url,
      "--env-a",
      "sound",
      "--env-b",
      "coinflip",
      "--replay",
      runId,
    ];
    const r = await runBin([...args, "--json", json, "--data-dir", data]);
    expect(r.code, r.stderr).toBe(1);
    const report = JSON.parse(fs.readFileSync(json, "utf8")) as DiffReport;
    const b = report.behaviour!;
    expect(b).toMatchObject({
      run: runId,
      env: "coinflip",
      split: "train",
      paired: 10,
      gained: [],
      error: null,
    });
    expect(b.lost.length).toBeGreaterThan(0);
    expect(report.verdict).toBe("flips");
    // The surface: the description of coinflip's submit differs; nothing breaks.
    expect(report.counts.breaking).toBe(0);
    const flip = b.flips[0]!;
    expect(flip).toMatchObject({ direction: "lost", a: { reward: 1 }, b: { reward: 0 } });
    expect(flip.firstDifference).toEqual({ step: 1, what: expect.stringContaining("reward 1 then 0") });
    expect(flip.compareHref).toBe(
      `/trajectories/compare?a=${flip.a.trajectory!.id}&b=${flip.b.trajectory!.id}`,
    );
    expect(r.stdout).toContain(`task ${flip.task} lost: reward 1 → 0; first difference at step 1`);
    const allowed = await runBin([...args, "--max-flips", "100", "--data-dir", data]);
    expect(allowed.code, allowed.stderr).toBe(0);
    const unknown = await runBin([...args.slice(0, -1), "nope", "--data-dir", data]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('no run with id "nope"');
  }, 180_000);
});

describe("parseDiffArgs", () => {
  it("refuses what it cannot use, naming it", () => {
    expect(() => parseDiffArgs(["http://a"])).toThrow("give the two servers to compare");
    expect(() => parseDiffArgs(["http://a", "http://b", "--max-flips", "-1"])).toThrow(
      "--max-flips: expected an integer",
    );
    expect(() => parseDiffArgs(["http://a", "http://b", "--json", "-", "--markdown", "-"])).toThrow(
      "only one of",
    );
    expect(() => parseDiffArgs(["http://a", "http://b", "--junit", "/nope/x.xml"])).toThrow(
      "--junit: the folder /nope does not exist",
    );
    expect(parseDiffArgs(["http://a", "http://b", "--env", "m", "--env-b", "n"], {}, "/tmp")).toMatchObject({
      envA: "m",
      envB: "n",
      maxFlips: 0,
      tasks: 1000,
    });
  });
});
