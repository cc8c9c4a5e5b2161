// `check URL --probe` as a user types it (the real command, a child process) against real servers on
// loopback: the gameable fixtures and `math` on our standalone host, the sound environment on the
// reference-shaped server; the reference an oracle, a baseline run or golden episodes; the findings
// in the JSON, the text and the JUnit report, with a reproduce command that really reproduces; the
// exit codes; usage mistakes.
import { execFile } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ConformanceReport } from "@/lib/conformance";
import { openStore } from "@/lib/store/sqlite/store";
import { toJsonl } from "@/lib/trajectory/jsonl";
import type { Trajectory } from "@/lib/trajectory/schema";
import { flags, recordRun, runBin } from "../../cli/helpers";
import { type RunningReferenceServer, startReferenceServer } from "../../fixtures/reference-server/spawn";
import { type SpawnedServer, spawnOrsServer } from "../../relay/helpers";
import { tempDir } from "../../runs/helpers";
import { reportShape } from "../helpers";
import { ORACLE } from "../quality/helpers";

const GAMING = path.resolve(__dirname, "../../fixtures/gaming-envs.ts");

let gaming: SpawnedServer;
let builtins: SpawnedServer;
let ref: RunningReferenceServer;
const data = tempDir("probe-cli-");

beforeAll(async () => {
  [gaming, builtins, ref] = await Promise.all([
    spawnOrsServer(0, { ORS_ENVS: GAMING }),
    spawnOrsServer(0),
    startReferenceServer({ setupMs: 5, envs: ["sound"] }),
  ]);
}, 120_000);

afterAll(async () => {
  await Promise.all([gaming?.stop(), builtins?.stop(), ref?.stop()]);
});

const findings = (r: ConformanceReport) =>
  r.probe!.results.filter((x) => x.outcome === "finding").map((x) => x.id);

/** `check URL --probe --json` with these flags, recording into `data`. */
const probeJson = (url: string, more: Record<string, string>) =>
  runBin(["check", url, "--probe", "--json", ...flags({ ...more, "data-dir": data })]);

describe("check --probe from the command line", () => {
  it("finds the format game on hedge: JSON, text, JUnit, exit 1; its reproduce command reproduces", async () => {
    const junit = path.join(data, "hedge.xml");
    const args = [
      gaming.url,
      "--probe",
      ...flags({ env: "hedge", oracle: ORACLE, tasks: "6", "data-dir": data }),
    ];
    const r = await runBin(["check", ...args, "--json", "--junit", junit]);
    expect(r.code, r.stderr).toBe(1);
    const report = JSON.parse(r.stdout) as ConformanceReport;
    expect(reportShape.safeParse(report).error).toBeUndefined();
    expect(findings(report)).toEqual(["format-games"]);
    expect(report.summary.passed).toBe(false);
    const f = report.probe!.results.find((x) => x.id === "format-games")!;
    expect(f).toMatchObject({ counted: true, share: 1, evidenceTotal: 6 });
    const e = f.evidence[0]!;
    expect(e.variant).toMatch(/^hedge "\d+ or \d+"$/);
    expect(e.trajectory!.href).toMatch(/^\/trajectories\/[\w-]+\?step=1$/);
    // The command, run as printed, plays the episode again: the hedge is paid.
    const { stdout } = await promisify(execFile)("bash", ["-c", e.reproduce]);
    expect(stdout).toContain('"reward":1');
    expect(stdout).toContain("event: end");
    const xml = fs.readFileSync(junit, "utf8");
    expect(xml).toContain(`<testsuite name="ORS reward probes of hedge/train: 6 tasks at ${gaming.url}"`);
    expect(xml).toMatch(
      /<testcase classname="probe" name="format-games" time="0.000">\s*<failure message="earned 100% of the best reward/,
    );
    const text = await runBin(["check", ...args]);
    expect(text.code).toBe(1);
    expect(text.stdout).toContain("Can the reward be gamed? of hedge/train: 6 tasks (seed 1)");
    expect(text.stdout).toMatch(/✗ format-games — Hedged and near-miss answers/);
    expect(text.stdout).toContain("        reproduce: U='");
    expect(text.stdout).toMatch(/Summary: .*; probe: 1 finding \(format-games\)\n$/);
  }, 180_000);

  it("a sound environment gets no finding: math on our host, sound on the reference-shaped server (exit 0)", async () => {
    const math = await probeJson(builtins.url, { env: "math", oracle: ORACLE });
    expect(math.code, math.stderr).toBe(0);
    const m = JSON.parse(math.stdout) as ConformanceReport;
    expect(findings(m)).toEqual([]);
    expect(m.probe!.sample).toMatchObject({ environment: "math", split: "train", failed: 0 });
    expect(m.probe!.results.filter((x) => x.outcome === "pass").length).toBeGreaterThanOrEqual(7);
    const py = await probeJson(ref.url, { env: "sound", oracle: ORACLE });
    expect(py.code, py.stderr).toBe(0);
    expect(findings(JSON.parse(py.stdout) as ConformanceReport)).toEqual([]);
  }, 240_000);

  it("a baseline run or golden episodes as the reference", async () => {
    const runId = await recordRun(
      gaming.url,
      flags({ env: "afterpay", split: "train", tasks: "0-5", policy: "script", script: ORACLE }),
      data,
    );
    const base = await probeJson(gaming.url, { baseline: runId });
    expect(base.code, base.stderr).toBe(1);
    const b = JSON.parse(base.stdout) as ConformanceReport;
    expect(b.probe!.reference).toEqual({ kind: "baseline", source: runId, runId });
    expect(b.probe!.sample).toMatchObject({ environment: "afterpay", tasks: [0, 1, 2, 3, 4, 5] });
    expect(findings(b)).toEqual(["after-finished"]);

    // The same episodes as a golden file, on the environment that lets a second answer count.
    const store = openStore({ dir: data });
    let golden: Trajectory[];
    try {
      golden = (
        await Promise.all((await store.runEpisodes(runId)).map((e) => store.get(e.trajectoryId!)))
      ).map((t) => ({ ...t!, env: "retry" }));
    } finally {
      await store.close();
    }
    const file = path.join(data, "golden.jsonl");
    fs.writeFileSync(file, toJsonl(golden));
    const g = await probeJson(gaming.url, { golden: file });
    expect(g.code, g.stderr).toBe(1);
    const gr = JSON.parse(g.stdout) as ConformanceReport;
    expect(gr.probe!.reference).toEqual({ kind: "golden", source: file, runId: null });
    expect(findings(gr)).toEqual(["retry-until-pays"]);
  }, 240_000);

  it("refuses what it cannot use (exit 2): no reference, two, an unknown baseline, a flag without --probe", async () => {
    const none = await runBin(["check", gaming.url, "--probe"]);
    expect(none.code).toBe(2);
    expect(none.stderr).toContain(
      "--probe compares what each probe earns with the best reward: give --oracle MODULE, --baseline RUN or --golden FILE",
    );
    const stray = await runBin(["check", gaming.url, "--baseline", "r1"]);
    expect(stray.code).toBe(2);
    expect(stray.stderr).toContain("--baseline goes with --probe");
    const unknown = await runBin(["check", gaming.url, "--probe", "--baseline", "nope", "--data-dir", data]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('check: --probe: --baseline: no run with id "nope"');
  }, 120_000);
});
