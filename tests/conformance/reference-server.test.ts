// The conformance check against the reference-shaped server (tests/fixtures/reference-server, a
// real process): it reports that server's documented deviations (its README's "Wire behaviour"),
// each with the right outcome, and passes the rest.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { checkCommand } from "@/lib/cli/check-command";
import { type ConformanceReport, runConformanceCheck } from "@/lib/conformance";
import { type RunningReferenceServer, startReferenceServer } from "../fixtures/reference-server/spawn";
import { notPassing, reportShape, result } from "./helpers";

const PORT = 8707;
const PORT_ALL_FIELDS = 8708;

describe("conformance check of the reference-shaped server", () => {
  let ref: RunningReferenceServer;
  let report: ConformanceReport;

  beforeAll(async () => {
    ref = await startReferenceServer({ port: PORT, pingMs: 300, idleMs: 1_000, reaperMs: 200, setupMs: 300 });
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
      // No tool of its own runs long without an input the check cannot guess (canvas battery).
      "call-pings": "not-exercised",
    });
    expect(report.summary.ok).toBe(false);
    expect(reportShape.safeParse(report).success).toBe(true);
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
    ref = await startReferenceServer({ port: PORT_ALL_FIELDS, pingMs: 300, extraFields: "all" });
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
