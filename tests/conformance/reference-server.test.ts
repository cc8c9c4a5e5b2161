// The conformance check against the reference-shaped server (tests/fixtures/reference-server, a
// real process): it reports that server's documented deviations (its README's "Wire behaviour"),
// each with the right outcome, passes the rest, recognises the reference Python SDK under it and
// says every finding is the SDK's — so `check` exits 0 there, and 1 with --strict.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { checkCommand } from "@/lib/cli/check-command";
import { type ConformanceReport, runConformanceCheck } from "@/lib/conformance";
import { captureIo } from "../cli/helpers";
import { type RunningReferenceServer, startReferenceServer } from "../fixtures/reference-server/spawn";
import { notPassing, owners, reportShape, result } from "./helpers";

describe("conformance check of the reference-shaped server", () => {
  let ref: RunningReferenceServer;
  let report: ConformanceReport;

  beforeAll(async () => {
    ref = await startReferenceServer({ pingMs: 300, idleMs: 1_000, reaperMs: 200, setupMs: 300 });
    report = await runConformanceCheck({ baseUrl: ref.url, idleTimeoutMs: 1_000, idleGraceMs: 1_000 });
  }, 90_000);
  afterAll(() => ref?.stop());

  it("reports its documented deviations, and nothing else", () => {
    expect(notPassing(report)).toEqual({
      // Results cut every 4096 characters wherever the cut falls (farmplanner's observe).
      "call-chunking": "breaks-reference-client",
      // SSE for every /create_session, which the reference client reads fine.
      "create-session-json": "differs-from-spec",
      // FastAPI's 422 lists.
      "create-task-source": "differs-from-spec",
      "malformed-body": "differs-from-spec",
      "invalid-body": "differs-from-spec",
      // 308 to the first environment for unknown paths, unknown environments included.
      "unknown-path": "differs-from-spec",
      "unknown-environment": "differs-from-spec",
      // A deleted session is unknown again (404), deleting an unknown one answers 200.
      "deleted-session": "differs-from-spec",
      "delete-unknown-session": "differs-from-spec",
      // Task ids are not bound to a session.
      "isolation-task-id": "differs-from-spec",
      // Python list indexing: task -1 is the last one.
      "task-negative-index": "differs-from-spec",
      // An unknown tool is a tool logic error: end {"ok": false}.
      "call-unknown-tool": "differs-from-spec",
      // An unknown task_id: event: error with no task_id event first.
      "call-reconnect-unknown": "differs-from-spec",
      // /{other env}/call is answered by the session's environment.
      "call-env-mismatch": "differs-from-spec",
      // farmplanner's survey is ASCII: characters and bytes count alike.
      "call-chunk-size": "not-exercised",
      // No tool of its own runs long without an input the check cannot guess (canvas battery).
      "call-pings": "not-exercised",
      // X-Deployment is not read (four environments); /task and /task_range carry no env_name.
      "openreward-bare-paths": "breaks-openreward-client",
      "openreward-env-name": "breaks-openreward-client",
    });
    expect(report.summary.ok).toBe(false);
    expect(reportShape.safeParse(report).success).toBe(true);
  });

  it("recognises the reference Python SDK, and every finding is the SDK's: passed", () => {
    expect(report.framework).toMatchObject({ id: "reference-python-sdk", name: "reference Python SDK" });
    // All six of its own behaviours were seen.
    expect(report.framework!.evidence).toHaveLength(6);
    const findings = Object.entries(notPassing(report)).filter(([, o]) => o !== "not-exercised");
    expect(Object.keys(owners(report)).sort()).toEqual(findings.map(([id]) => id).sort());
    expect(new Set(Object.values(owners(report)))).toEqual(new Set(["framework"]));
    expect(report.summary).toMatchObject({
      passed: true,
      owners: { author: 0, framework: findings.length },
      waived: 0,
    });
    expect(report.results.some((r) => r.counted)).toBe(false);
    // Each finding names the known deviation it is.
    expect(result(report, "call-chunking").deviations).toEqual(["chunk-cut-anywhere"]);
    expect(result(report, "invalid-body").deviations).toEqual(["validation-422"]);
    expect(result(report, "unknown-environment").deviations).toEqual(["redirect-default-env"]);
    expect(result(report, "call-env-mismatch").deviations).toEqual(["env-mismatch-accepted"]);
    expect(result(report, "task-negative-index").deviations).toEqual(["negative-index"]);
    expect(result(report, "call-unknown-tool").deviations).toEqual(["unknown-tool-ok-false"]);
    expect(result(report, "call-reconnect-unknown").deviations).toEqual(["reconnect-unknown-no-task-id"]);
  });

  it("names the five known deviations of the reference server by their checks", () => {
    expect(result(report, "call-env-mismatch").observed).toMatch(
      /^POST \/coffeeshop\/call with a session of farmplanner: HTTP 200, answered by the session's environment/,
    );
    expect(result(report, "task-negative-index").observed).toMatch(
      /^train\[-1\]: HTTP 200 with the last task \(train\[\d+\]\)/,
    );
    expect(result(report, "call-unknown-tool").observed).toMatch(
      /HTTP 200, end \{"ok": false, "error": "'no_such_tool_[0-9a-f]+' is not a valid tool"\}/,
    );
    expect(result(report, "call-reconnect-unknown").observed).toMatch(
      /^error "unknown task_id" without a task_id event first/,
    );
    // Not exercised here, and why (the check of canvas/tree below exercises it).
    expect(result(report, "call-chunk-size").observed).toMatch(/the pieces are ASCII/);
  });

  it("SSE /create_session is what the reference client expects; JSON would be the spec's", () => {
    expect(result(report, "create-session-sse").observed).toMatch(
      /^HTTP 200 text\/event-stream: task_id, end; sid/,
    );
    expect(result(report, "create-session-json").observed).toMatch(
      /answers SSE .* the spec answers \{"sid": \.\.\.\}/,
    );
  });

  it("names the piece that starts with a space and what the reference client loses", () => {
    const r = result(report, "call-chunking");
    expect(r.spec).toEqual({ file: "ors-sse.txt", section: "Chunking" });
    expect(r.observed).toMatch(
      /^farmplanner\/observe \{\}: \d+ of \d+ pieces start with whitespace \(piece \d+: " /,
    );
    expect(r.observed).toMatch(/rebuilds (\d+) characters instead of (\d+), text silently lost/);
  });

  it("422 lists, 308 redirects, 404 after delete and 200 for an unknown delete, with their sections", () => {
    expect(result(report, "invalid-body").observed).toMatch(
      /HTTP 422 \(application\/json, \d+ bytes\): \{"detail":\[\{"type":"missing","loc":\["body","input"\].*a validation list where the spec says 400/,
    );
    const redirect = result(report, "unknown-environment");
    expect(redirect.spec).toEqual({ file: "ors-http-api.txt", section: "GET /{env_name}/tools" });
    expect(redirect.observed).toMatch(
      /HTTP 308 .*Location: \/farmplanner\/no-such-env-[0-9a-f]+\/tools.*a redirect where the spec says 404/,
    );
    const deleted = result(report, "deleted-session");
    expect(deleted.spec).toEqual({ file: "ors-http-api.txt", section: "GET /{env_name}/prompt" });
    expect(deleted.observed).toMatch(/prompt: HTTP 404 \(the spec answers 410 Gone for a deleted session\)/);
    expect(result(report, "delete-unknown-session").observed).toMatch(/^HTTP 200/);
  });

  it("sees requests wait for its slow setup, and its idle sessions reaped", () => {
    const wait = result(report, "setup-wait").observed;
    const promptMs = Number(/prompt (\d+) ms/.exec(wait)?.[1] ?? /prompt ([\d.]+) s/.exec(wait)?.[1]);
    expect(promptMs).toBeGreaterThanOrEqual(250);
    expect(result(report, "idle-timeout").observed).toMatch(/idle, \/ping: HTTP 404/);
  });

  it("leaves no session behind", async () => {
    expect((await ref.stats()).activeSessions).toBe(0);
  });
});

describe("the check command on the reference-shaped server with every extra field", () => {
  let ref: RunningReferenceServer;
  beforeAll(async () => {
    ref = await startReferenceServer({ pingMs: 300, extraFields: "all" });
  }, 60_000);
  afterAll(() => ref?.stop());

  it("with a named slow tool sees the pings; extra ToolSpec keys break the reference client; exit 1", async () => {
    let out = "";
    const code = await checkCommand(
      [
        ref.url,
        "--json",
        "--env",
        "canvas",
        "--tool",
        "battery",
        "--input",
        '{"action": "wait", "power_mw": 2}',
      ],
      { stdout: (s) => (out += s), stderr: () => {} },
    );
    expect(code).toBe(1);
    const report = reportShape.parse(JSON.parse(out)) as ConformanceReport;
    expect(report.target.tool).toEqual({ name: "battery", input: { action: "wait", power_mw: 2 } });
    expect(result(report, "call-pings")).toMatchObject({ outcome: "pass" });
    expect(result(report, "call-pings").observed).toMatch(
      /^canvas\/battery ran [\d.]+ s: \d+ ping comment\(s\)/,
    );
    // `annotations` in every /tools entry: ToolSpec(**tool) raises TypeError.
    expect(result(report, "tools")).toMatchObject({ outcome: "breaks-reference-client" });
    expect(result(report, "tools").observed).toMatch(
      /has "annotations": ToolSpec\(\*\*tool\) raises TypeError/,
    );
    // `usage` in every tool output: the reference client ignores it, the strict RunToolOutput does not.
    expect(result(report, "call-framing")).toMatchObject({ outcome: "differs-from-spec" });
    expect(result(report, "call-framing").observed).toMatch(/not a valid RunToolOutput: .*usage/);
  });
});

describe("the check command on the reference-shaped server: the SDK's findings are no alarm", () => {
  let ref: RunningReferenceServer;
  const dirs: string[] = [];
  const tempDir = () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), "ors-check-"));
    dirs.push(dir);
    return dir;
  };
  beforeAll(async () => {
    ref = await startReferenceServer({ pingMs: 300 });
  }, 60_000);
  afterAll(async () => {
    await ref?.stop();
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  /** A tree of 300 leaves, drawn with box-drawing characters: a result over 4 KB, not ASCII. */
  const bigTree = JSON.stringify({
    root: {
      name: "root",
      children: Array.from({ length: 300 }, (_, i) => ({ name: `leaf-${i}`, children: [] })),
    },
  });

  it("exit 0: the text report puts every finding under the framework, named", async () => {
    const { out, io } = captureIo();
    const code = await checkCommand(
      [ref.url, "--env", "canvas", "--tool", "tree", "--input", bigTree, "--ping-time", "0"],
      io,
    );
    expect(code).toBe(0);
    expect(out.stdout).toMatch(
      /^server framework: reference Python SDK \(recognised by 6 of its own behaviours\)$/m,
    );
    expect(out.stdout).toMatch(/^The server framework's: reference Python SDK \(\d+\)$/m);
    expect(out.stdout).toMatch(
      /^ {2}Known deviations of the reference Python SDK, which the environment's author cannot fix; not counted \(--strict counts them\)\.$/m,
    );
    // No section of the author's findings.
    expect(out.stdout).not.toMatch(
      /^(Breaks the reference Python client|Differs from the spec|Errors) \(\d+\)$/m,
    );
    // The tree's box-drawing characters show the pieces are counted in characters.
    expect(out.stdout).toMatch(
      /^ {2}! call-chunk-size — [^\n]*\n {6}canvas\/tree: \d+ of \d+ pieces over 4096 bytes [^\n]*counted in characters/m,
    );
    expect(out.stdout).toMatch(
      /^Summary: .*: nothing for the environment's author to fix: \d+ findings are the reference Python SDK's, not the environment's \(--strict counts them\)$/m,
    );
  });

  it("--strict counts them: exit 1, and JUnit fails the same checks", async () => {
    const dir = tempDir();
    const junit = path.join(dir, "check.xml");
    const { out, io } = captureIo();
    expect(
      await checkCommand([ref.url, "--strict", "--json", "--ping-time", "0", "--junit", junit], io),
    ).toBe(1);
    const report = reportShape.parse(JSON.parse(out.stdout)) as ConformanceReport;
    expect(report.policy).toEqual({ strict: true, allow: [] });
    expect(report.summary.passed).toBe(false);
    const counted = report.results.filter((r) => r.counted);
    expect(counted).toHaveLength(report.summary.owners.framework);
    expect(new Set(counted.map((r) => r.owner))).toEqual(new Set(["framework"]));
    const xml = readFileSync(junit, "utf8");
    expect(xml).toMatch(
      new RegExp(
        `<testsuite name="ORS conformance check of ${ref.url.replace(/[.]/g, "\\.")}" tests="${report.results.length}" failures="${counted.length}" errors="0" skipped="${report.summary.counts["not-exercised"]}"`,
      ),
    );
    expect(xml).toContain('<testcase classname="conformance.calls" name="call-unknown-tool" time=');
    expect(xml).toMatch(
      /<failure message="an unknown tool: HTTP 200, end \{&quot;ok&quot;: false, [^"]*" type="differs-from-spec">/,
    );
  });

  it("--allow and --allow-file waive checks: reported as waived, never counted, even with --strict", async () => {
    const dir = tempDir();
    const strict = captureIo();
    await checkCommand([ref.url, "--strict", "--json", "--ping-time", "0"], strict.io);
    const ids = (JSON.parse(strict.out.stdout) as ConformanceReport).results
      .filter((r) => r.counted)
      .map((r) => r.id);
    expect(ids).toContain("call-chunking");
    // Every counted id but the first in the file (with comments and a blank line); the first by flag.
    const file = path.join(dir, "waivers.txt");
    writeFileSync(
      file,
      `# The reference Python SDK's deviations, waived in CI\n\n${ids
        .slice(1)
        .map((id, i) => (i % 2 ? `${id}  # the SDK's` : id))
        .join("\n")}\n`,
    );
    const junit = path.join(dir, "check.xml");
    const { out, io } = captureIo();
    const code = await checkCommand(
      [
        ref.url,
        "--strict",
        "--json",
        "--ping-time",
        "0",
        "--allow",
        ids[0]!,
        "--allow-file",
        file,
        "--junit",
        junit,
      ],
      io,
    );
    expect(code).toBe(0);
    const report = reportShape.parse(JSON.parse(out.stdout)) as ConformanceReport;
    expect(report.policy.allow.sort()).toEqual([...ids].sort());
    expect(report.summary).toMatchObject({ passed: true, waived: ids.length });
    expect(
      report.results
        .filter((r) => r.waived)
        .map((r) => r.id)
        .sort(),
    ).toEqual([...ids].sort());
    const xml = readFileSync(junit, "utf8");
    expect(xml).toMatch(/failures="0" errors="0"/);
    expect(xml).toMatch(/<system-out>Breaks the reference Python client \(not counted: waived\)\n/);
  });
});
