// The `check` command: its options, exit codes (0 usable, 1 a break or an error, 2 usage, 130 on
// Ctrl-C), text and `--json` output; in process and as the real `npm run check` script.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { builtinEnvironments } from "@/envs";
import { checkCommand, parseCheckArgs } from "@/lib/cli/check-command";
import type { ConformanceReport } from "@/lib/conformance";
import { createOrsHandler, type OrsHandler } from "@/lib/ors/host";
import { captureIo, runScript } from "../cli/helpers";
import { handlerFetch, proxyToHandler, startHttpServer } from "../relay/helpers";
import { brokenHandler, CHECK_IDS, reportShape, result } from "./helpers";

const BROKEN_PORT = 8709;

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
      ],
      { ORS_API_KEY: "from-env" },
    );
    expect(parsed).toEqual({
      json: true,
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
      },
    });
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

describe("check command: runs", () => {
  let host: OrsHandler;
  let broken: Awaited<ReturnType<typeof startHttpServer>>;
  beforeAll(async () => {
    host = createOrsHandler(builtinEnvironments, { pingIntervalMs: 300 });
    const handler = brokenHandler(host);
    broken = await startHttpServer(BROKEN_PORT, (req, res) => {
      proxyToHandler(handler, req, res).catch(() => res.destroy());
    });
  });
  afterAll(async () => {
    await broken?.close();
    await host?.close();
  });

  it("text report of a clean server, grouped by outcome with a summary line: exit 0", async () => {
    const { out, io } = captureIo();
    const code = await checkCommand(["http://local.invalid", "--ping-time", "0"], {
      ...io,
      fetch: handlerFetch(host),
    });
    expect(code).toBe(0);
    expect(out.stdout).toMatch(/^ORS conformance check of http:\/\/local\.invalid\n/);
    expect(out.stdout).toMatch(/^Not exercised \(2\)$/m);
    expect(out.stdout).toMatch(/^ {2}- call-pings — /m);
    expect(out.stdout).toMatch(new RegExp(`^Passed \\(${CHECK_IDS.length - 2}\\)$`, "m"));
    expect(out.stdout).toMatch(/^ {6}ors-sse\.txt "Chunking"$/m);
    expect(out.stdout).toMatch(
      /^Summary: 0 break the reference client, 0 differ from the spec, 0 errors, 2 not exercised, \d+ pass \(\d+ checks, .*\): clean$/m,
    );
    expect(out.stdout.includes("\u001b[")).toBe(false); // no colours unless asked
  });

  it("--json of a clean server has the documented shape: exit 0", async () => {
    const { out, io } = captureIo();
    const code = await checkCommand(["http://local.invalid", "--json", "--ping-time", "0"], {
      ...io,
      fetch: handlerFetch(host),
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
      fetch: handlerFetch(host),
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
