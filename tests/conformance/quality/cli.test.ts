// `check URL --quality` as the real command (bin/ors-playground.mjs, a child process) against real
// servers on loopback — our standalone host serving tests/fixtures/quality-envs.ts, and the
// reference-shaped server serving the same environments — : the report's quality part (text, JSON,
// JUnit), the exit codes, waivers, and the episodes recorded in the data folder the app reads,
// under the server's name. Usage mistakes in process.
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { checkCommand, parseAllowFile } from "@/lib/cli/check-command";
import type { ConformanceReport } from "@/lib/conformance";
import { QUALITY_CHECK_IDS } from "@/lib/conformance/quality/types";
import { openStore } from "@/lib/store/sqlite/store";
import { captureIo, flags, runBin } from "../../cli/helpers";
import { type RunningReferenceServer, startReferenceServer } from "../../fixtures/reference-server/spawn";
import { type SpawnedServer, spawnOrsServer } from "../../relay/helpers";
import { tempDir } from "../../runs/helpers";
import { qualityReportShape } from "../helpers";
import { ORACLE, ORACLE_MISSES, QUALITY_ENV_NAMES, QUALITY_ENVS_MODULE } from "./helpers";

let host: SpawnedServer;
let ref: RunningReferenceServer;

beforeAll(async () => {
  [host, ref] = await Promise.all([
    spawnOrsServer(0, { ORS_ENVS: QUALITY_ENVS_MODULE }),
    startReferenceServer({ setupMs: 5, envs: QUALITY_ENV_NAMES }),
  ]);
});

afterAll(async () => {
  await Promise.all([host?.stop(), ref?.stop()]);
});

/** `ors-playground check <args>`, the real command. */
const cli = (args: string[]) => runBin(["check", ...args]);

const serverName = (url: string) => `127-0-0-1-${new URL(url).port}`;

describe("check --quality from the command line", () => {
  it("finds the leak on our host: JSON and JUnit, exit 1, the episodes recorded where the app reads them", async () => {
    const dir = tempDir("quality-cli-");
    const junit = path.join(dir, "check.xml");
    const data = path.join(dir, "data");
    const r = await cli([
      host.url,
      "--quality",
      "--json",
      ...flags({ env: "leaky", tasks: "6", "data-dir": data, junit }),
    ]);
    expect(r.code, r.stderr).toBe(1);
    const report = JSON.parse(r.stdout) as ConformanceReport;
    expect(qualityReportShape.safeParse(report.quality).success).toBe(true);
    const q = report.quality!;
    expect(q.server).toBe(serverName(host.url));
    expect(q.results.filter((x) => x.outcome === "finding").map((x) => x.id)).toEqual(["answer-leak"]);
    expect(report.summary.passed).toBe(false);
    expect(q.sample).toMatchObject({ environment: "leaky", split: "train", requested: 6 });
    expect(r.stderr).toContain(`added the server ${host.url} to the playground as "${serverName(host.url)}"`);
    // No playground runs on this store: the links are paths, with the command that serves them.
    expect(r.stderr).toContain(
      `no playground runs on this store now: open the links below in one started with \`ors-playground start --data-dir ${data}\``,
    );
    // The app finds the server and each episode the finding links to.
    const servers = JSON.parse(fs.readFileSync(path.join(data, "servers.json"), "utf8")) as unknown;
    expect(JSON.stringify(servers)).toContain(host.url);
    const store = openStore({ dir: data });
    try {
      for (const e of q.results[0]!.evidence) {
        const t = await store.get(e.trajectory!.id);
        expect(t).toMatchObject({
          server: serverName(host.url),
          env: "leaky",
          task: { split: "train", index: e.task },
        });
      }
    } finally {
      await store.close();
    }
    const xml = fs.readFileSync(junit, "utf8");
    expect(xml).toContain('<testsuite name="ORS quality check of leaky/train: 6 of 30 tasks (seed 1)');
    expect(xml).toMatch(
      /<testcase classname="quality" name="answer-leak" time="[\d.]+">\s*<failure message="task field &quot;answer&quot; is in the prompt of 6 of 6 tasks" type="quality-finding">/,
    );
    expect(xml).toContain('<testcase classname="quality" name="nondeterministic" time="0.000"/>');
    expect(xml).toMatch(
      /<testcase classname="quality" name="oracle-below-max" time="0.000">\s*<skipped message="no --oracle was given"\/>/,
    );
  });

  it("passes a waived finding (exit 0), and says so in the text with the links to the episodes", async () => {
    const dir = tempDir("quality-cli-");
    const r = await cli([
      host.url,
      "--quality",
      ...flags({
        env: "leaky",
        tasks: "3",
        allow: "answer-leak",
        "data-dir": dir,
        "app-url": "http://127.0.0.1:4999/",
      }),
    ]);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toContain("Environment quality of leaky/train: 3 of 30 tasks (seed 1)");
    expect(r.stdout).toMatch(/✗ answer-leak — .* \(waived\)/);
    expect(r.stdout).toMatch(/open: http:\/\/127\.0\.0\.1:4999\/trajectories\/[\w-]+\n/);
    expect(r.stdout).toMatch(/quality: no finding, 1 waived\n$/);
  });

  it("exits 0 on the sound environment of the reference-shaped server with its oracle", async () => {
    const dir = tempDir("quality-cli-");
    const r = await cli([
      ref.url,
      "--quality",
      ...flags({ env: "sound", tasks: "6", oracle: ORACLE, "data-dir": dir }),
    ]);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    // The protocol part is the reference SDK's, the quality part clean.
    expect(r.stdout).toMatch(/nothing for the environment's author to fix: .*; quality: no finding\n$/);
    for (const id of QUALITY_CHECK_IDS) expect(r.stdout).toContain(`✓ ${id} — `);
  });

  it("exits 1 on the reference-shaped server for an oracle that misses, naming the tasks", async () => {
    const dir = tempDir("quality-cli-");
    const r = await cli([
      ref.url,
      "--quality",
      "--json",
      ...flags({ env: "sound", tasks: "6", oracle: ORACLE_MISSES, "data-dir": dir }),
    ]);
    expect(r.code, r.stderr).toBe(1);
    const q = (JSON.parse(r.stdout) as ConformanceReport).quality!;
    const finding = q.results.find((x) => x.id === "oracle-below-max")!;
    expect(finding.outcome).toBe("finding");
    expect(finding.evidence.map((e) => e.task)).toEqual(q.sample!.tasks.filter((i) => i % 3 === 0));
  });

  it("exits 2 when the environment or split cannot be played, saying why", async () => {
    const dir = tempDir("quality-cli-");
    const r = await cli([
      host.url,
      "--quality",
      ...flags({ env: "sound", split: "nope", tasks: "2", "data-dir": dir }),
    ]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('check: --quality: sound has no split "nope" (it has train)');
    expect(r.stdout).toContain('not played: sound has no split "nope" (it has train)');
  });
});

describe("check --quality in process", () => {
  it("says on stderr what it plays, phase by phase, on a terminal", async () => {
    const { io, out } = captureIo();
    const code = await checkCommand(
      [host.url, "--quality", "--env", "sound", "--tasks", "2", "--data-dir", tempDir("quality-cli-")],
      { ...io, progress: true, env: {} },
    );
    expect(code, out.stderr).toBe(0);
    for (const line of [
      "[quality] sampling",
      "[quality] playing 2/2",
      "[quality] replaying 2/2",
      "[quality] reading",
    ])
      expect(out.stderr).toContain(`${line}\n`);
    expect(out.stdout).toMatch(/quality: no finding\n$/);
  });
});

describe("check --quality usage", () => {
  it.each([
    [["--split", "train"], "--split goes with --quality"],
    [["--oracle", "x.ts"], "--oracle goes with --quality"],
    [["--quality", "--tasks", "0"], "--tasks: expected an integer from 1 to 200"],
    [["--quality", "--tasks", "2.5"], "--tasks: expected an integer from 1 to 200"],
    [["--quality", "--oracle", "no-such-oracle.ts"], "--oracle: no file"],
    [["--quality", "--app-url", "ftp://x"], "--app-url: the URL must be http:// or https://"],
    [["--allow", "answer-leaks"], 'no check "answer-leaks"'],
  ])("%j: %s", async (args, message) => {
    const { io, out } = captureIo();
    expect(await checkCommand(["http://127.0.0.1:1", ...args], io)).toBe(2);
    expect(out.stderr).toContain(message);
  });

  it("takes the quality checks' ids as waivers, and lists the flags in --help", async () => {
    expect(parseAllowFile("tool-crash   # a known crash, fixed next week\nanswer-leak\n", "w.txt")).toEqual([
      "tool-crash",
      "answer-leak",
    ]);
    const { io, out } = captureIo();
    expect(await checkCommand(["--help"], io)).toBe(0);
    for (const flag of [
      "--quality",
      "--split NAME",
      "--tasks N",
      "--seed N",
      "--oracle MODULE",
      "--data-dir DIR",
    ])
      expect(out.stdout).toContain(flag);
  });
});
