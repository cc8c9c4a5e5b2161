// The `check` command: its options, waivers, exit codes (0 no finding counts, 1 one does — a break
// or an error of the author's, anything with --strict — 2 usage, 130 on Ctrl-C), text, `--json` and
// JUnit output; in process and as the real `npm run check` script.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { builtinEnvironments } from "@/envs";
import { checkCommand, parseAllowFile, parseCheckArgs } from "@/lib/cli/check-command";
import type { ConformanceReport } from "@/lib/conformance";
import { createOrsHandler, type OrsHandler } from "@/lib/ors/host";
import { captureIo, runScript } from "../cli/helpers";
import { handlerFetch, proxyToHandler, startHttpServer } from "../relay/helpers";
import {
  brokenHandler,
  CHECK_IDS,
  openRewardHandler,
  reportShape,
  result,
  unknownToolAsOkFalse,
} from "./helpers";

describe("check command: options", () => {
  it("parses every option", () => {
    const parsed = parseCheckArgs(
      [
        "http://127.0.0.1:8080/",
        "--json",
        "--env=math",
        "--task",
        "test:7",
        "--tool",
        "submit",
        "--input",
        '{"answer": "4"}',
        "--idle-timeout",
        "2s",
        "--timeout",
        "1500",
        "--max-time",
        "2m",
        "--ping-time",
        "0",
        "--strict",
        "--allow",
        "call-chunking",
        "--allow=unknown-path",
        "--allow-file",
        "waivers.txt",
        "--junit",
        "out/check.xml",
      ],
      { ORS_API_KEY: "from-env" },
    );
    expect(parsed).toEqual({
      json: true,
      junit: "out/check.xml",
      allowFiles: ["waivers.txt"],
      quality: null,
      probe: null,
      options: {
        baseUrl: "http://127.0.0.1:8080",
        env: "math",
        task: { split: "test", index: 7 },
        tool: { name: "submit", input: { answer: "4" } },
        idleTimeoutMs: 2000,
        requestTimeoutMs: 1500,
        maxTimeMs: 120_000,
        slowToolSeconds: 0,
        apiKey: "from-env",
        strict: true,
        allow: ["call-chunking", "unknown-path"],
      },
    });
    expect(parseCheckArgs(["http://h:1"])).toEqual({
      json: false,
      junit: null,
      allowFiles: [],
      options: { baseUrl: "http://h:1" },
      quality: null,
      probe: null,
    });
    expect(
      parseCheckArgs(
        ["http://h:1", "--quality", "--split", "test", "--tasks", "7", "--seed", "3", "--data-dir", "d"],
        {},
        "/work",
      )?.quality,
    ).toEqual({ split: "test", tasks: 7, seed: 3, dataDir: "/work/d", appUrl: null });
    expect(parseCheckArgs(["http://h:1", "--api-key", "k"], { ORS_API_KEY: "env" })?.options.apiKey).toBe(
      "k",
    );
    expect(parseCheckArgs(["--help"])).toBeNull();
    expect(parseCheckArgs(["http://h:1", "--ping-time", "0s"])?.options.slowToolSeconds).toBe(0);
    expect(parseCheckArgs(["http://h:1", "--ping-time", "1.5s"])?.options.slowToolSeconds).toBe(1.5);
  });

  it.each([
    [[], /give the server's URL/],
    [["http://h:1", "http://h:2"], /one URL only/],
    [["ftp://h"], /must be http:\/\/ or https:\/\//],
    [["not a url"], /not a URL/],
    [["http://u:p@h:1"], /must not carry credentials/],
    [["http://h:1", "--bogus"], /unknown option --bogus/],
    [["http://h:1", "--env"], /--env needs a value/],
    [["http://h:1", "--task", "train"], /--task: expected SPLIT:INDEX/],
    [["http://h:1", "--task", "train:-1"], /--task: expected SPLIT:INDEX/],
    [["http://h:1", "--input", "{}"], /--input needs --tool NAME/],
    [["http://h:1", "--tool", "t", "--input", "[1]"], /--input: expected a JSON object/],
    [["http://h:1", "--tool", "t", "--input", "{nope"], /--input: not JSON/],
    [["http://h:1", "--timeout", "soon"], /--timeout: expected milliseconds/],
    [["http://h:1", "--timeout", "0"], /--timeout: must be more than 0/],
    [["http://h:1", "--json=yes"], /--json takes no value/],
    [["http://h:1", "--strict=1"], /--strict takes no value/],
    [
      ["http://h:1", "--allow", "call-chunkin"],
      /--allow: no check "call-chunkin" \(the ids are the report's/,
    ],
    [["http://h:1", "--allow"], /--allow needs a value/],
    [
      ["http://h:1", "--allow-file", "/nonexistent/waivers.txt"],
      /--allow-file: cannot read \/nonexistent\/waivers\.txt \(ENOENT\)/,
    ],
    [["http://h:1", "--junit", ""], /--junit: empty file name/],
    [
      ["http://h:1", "--junit", "/nonexistent/dir/check.xml"],
      /--junit: the folder \/nonexistent\/dir does not exist/,
    ],
  ])("%j is a usage error: exit 2 with the reason and the usage", async (argv, reason) => {
    const { out, io } = captureIo();
    expect(await checkCommand(argv, io)).toBe(2);
    expect(out.stderr).toMatch(reason);
    expect(out.stderr).toMatch(/^usage: check <URL> \[options\]/m);
    expect(out.stdout).toBe("");
  });

  it("--help prints the usage on stdout: exit 0", async () => {
    const { out, io } = captureIo();
    expect(await checkCommand(["-h"], io)).toBe(0);
    expect(out.stdout).toMatch(/--idle-timeout MS/);
  });
});

describe("--allow-file", () => {
  it("one check id a line; # comments, blank lines and spaces around ignored", () => {
    expect(
      parseAllowFile(
        "# waived in CI\n\ncall-chunking\n  unknown-path   # the SDK's 308\r\n#deleted-session\n",
        "w.txt",
      ),
    ).toEqual(["call-chunking", "unknown-path"]);
    expect(parseAllowFile("", "w.txt")).toEqual([]);
    // A byte-order mark, as some editors write one, is no part of the first id.
    expect(parseAllowFile("\uFEFFcall-chunking\n", "w.txt")).toEqual(["call-chunking"]);
  });

  it("names the file and line of an unknown id, or of two on one line", () => {
    expect(() => parseAllowFile("call-chunking\n\nunknown-pth\n", "w.txt")).toThrow(
      '--allow-file w.txt:3: no check "unknown-pth"',
    );
    expect(() => parseAllowFile("call-chunking unknown-path", "w.txt")).toThrow(
      '--allow-file w.txt:1: one check id a line, got "call-chunking unknown-path"',
    );
  });
});

describe("check command: runs", () => {
  let host: OrsHandler;
  /**
   * Our host with what the OpenReward client needs in front, so the reports here do not move with
   * it, and one difference from the spec for --strict and waivers to act on: an unknown tool
   * answered `{"ok": false}`, as the reference server does.
   */
  let local: typeof fetch;
  let broken: Awaited<ReturnType<typeof startHttpServer>>;
  beforeAll(async () => {
    host = createOrsHandler(builtinEnvironments, { pingIntervalMs: 300 });
    local = handlerFetch(
      openRewardHandler(
        unknownToolAsOkFalse(host),
        builtinEnvironments.map((e) => e.name),
      ),
    );
    const handler = brokenHandler(host);
    broken = await startHttpServer(0, (req, res) => {
      proxyToHandler(handler, req, res).catch(() => res.destroy());
    });
  });
  afterAll(async () => {
    await broken?.close();
    await host?.close();
  });

  it("text report of our host, grouped by outcome with a summary line: exit 0", async () => {
    const { out, io } = captureIo();
    const code = await checkCommand(["http://local.invalid", "--ping-time", "0"], {
      ...io,
      fetch: local,
    });
    expect(code).toBe(0);
    expect(out.stdout).toMatch(/^ORS conformance check of http:\/\/local\.invalid\n/);
    // Its one difference from the spec comes first: an unknown tool is {"ok": false}.
    expect(out.stdout).toMatch(/^Differs from the spec \(1\)\n {2}! call-unknown-tool — /m);
    expect(out.stdout).toMatch(/^Not exercised \(2\)$/m);
    expect(out.stdout).toMatch(/^ {2}- call-pings — /m);
    expect(out.stdout).toMatch(new RegExp(`^Passed \\(${CHECK_IDS.length - 3}\\)$`, "m"));
    expect(out.stdout).toMatch(/^ {6}ors-sse\.txt "Chunking"$/m);
    expect(out.stdout).not.toMatch(/server framework/);
    expect(out.stdout).toMatch(
      /^Summary: 0 break the reference client, 1 differs from the spec, 0 errors, 2 not exercised, \d+ pass \(\d+ checks, .*\): usable by the reference client$/m,
    );
    expect(out.stdout.includes("\u001b[")).toBe(false); // no colours unless asked
  });

  it("--strict counts the difference (exit 1), --allow waives it (exit 0); JUnit says the same", async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), "ors-check-"));
    try {
      const junit = path.join(dir, "check.xml");
      const strict = captureIo();
      const code = await checkCommand(
        ["http://local.invalid", "--ping-time", "0", "--strict", "--junit", junit],
        { ...strict.io, fetch: local },
      );
      expect(code).toBe(1);
      expect(strict.out.stdout).toMatch(/^Summary: .*: 1 finding counts under --strict$/m);
      const xml = readFileSync(junit, "utf8");
      expect(xml).toMatch(
        /^<\?xml version="1\.0" encoding="UTF-8"\?>\n<testsuites name="ORS conformance check" /,
      );
      expect(xml).toMatch(new RegExp(`tests="${CHECK_IDS.length}" failures="1" errors="0" skipped="2"`));
      expect(xml).toMatch(
        /<testcase classname="conformance\.calls" name="call-unknown-tool" time="[\d.]+">\n {6}<failure message="an unknown tool: HTTP 200, end \{&quot;ok&quot;: false/,
      );
      expect(xml).toMatch(
        /<testcase classname="conformance\.calls" name="call-pings" time="[\d.]+">\n {6}<skipped message=/,
      );

      writeFileSync(path.join(dir, "waivers.txt"), "call-unknown-tool # our host answers {ok: false}\n");
      const waived = captureIo();
      expect(
        await checkCommand(
          [
            "http://local.invalid",
            "--ping-time",
            "0",
            "--strict",
            "--allow-file",
            "waivers.txt",
            "--junit",
            "check.xml",
          ],
          { ...waived.io, fetch: local, cwd: dir },
        ),
      ).toBe(0);
      expect(waived.out.stdout).toMatch(/^Waived \(1\)\n.*\n {2}! call-unknown-tool — /m);
      expect(readFileSync(junit, "utf8")).toMatch(/failures="0" errors="0" skipped="2"/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("without --strict, a difference from the spec does not count: JUnit passes it with its text", async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), "ors-check-"));
    try {
      const { io } = captureIo();
      expect(
        await checkCommand(["http://local.invalid", "--ping-time", "0", "--junit", "check.xml"], {
          ...io,
          fetch: local,
          cwd: dir,
        }),
      ).toBe(0);
      expect(readFileSync(path.join(dir, "check.xml"), "utf8")).toMatch(
        /name="call-unknown-tool" time="[\d.]+">\n {6}<system-out>Differs from the spec \(not counted: counted only with --strict\)\n/,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("--json of our host has the documented shape: exit 0", async () => {
    const { out, io } = captureIo();
    const code = await checkCommand(["http://local.invalid", "--json", "--ping-time", "0"], {
      ...io,
      fetch: local,
    });
    expect(code).toBe(0);
    const report = reportShape.parse(JSON.parse(out.stdout));
    expect(report.results.map((r) => r.id)).toEqual(CHECK_IDS);
    expect(report.summary.ok).toBe(true);
  });

  it("progress lines on stderr, one per check", async () => {
    const { out, io } = captureIo();
    await checkCommand(["http://local.invalid", "--ping-time", "0"], {
      ...io,
      progress: true,
      fetch: local,
    });
    const lines = out.stderr.trim().split("\n");
    expect(lines).toHaveLength(CHECK_IDS.length);
    expect(lines[0]).toMatch(/^\[ 1\] ✓ health$/);
  });

  const run = (args: string[]) => runScript("check.ts", args);

  it("the npm run check script on a broken server: the JSON report on stdout, exit 1", async () => {
    const { code, stdout } = await run([broken.url, "--json", "--ping-time", "0"]).done;
    expect(code).toBe(1);
    const report = reportShape.parse(JSON.parse(stdout)) as ConformanceReport;
    expect(result(report, "call-chunking").outcome).toBe("breaks-reference-client");
    expect(result(report, "create-session-sse").outcome).toBe("breaks-reference-client");
    expect(host.host.sessionCount).toBe(0);
  });

  it("the script exits 2 on a usage mistake", async () => {
    expect((await run(["--nope"]).done).code).toBe(2);
  });

  it("Ctrl-C stops the script with exit 130 after deleting the sessions it made", async () => {
    const { child, done } = run([broken.url, "--idle-timeout", "60s"]);
    // The idle check holds a session open for a minute: interrupt once the check has sessions.
    while (host.host.sessionCount === 0 && child.exitCode === null)
      await new Promise((r) => setTimeout(r, 25));
    child.kill("SIGINT");
    const { code } = await done;
    expect(code).toBe(130);
    expect(host.host.sessionCount).toBe(0);
  });
});
