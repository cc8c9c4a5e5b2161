// The conformance check against a deliberately broken server (our host with faults, served over
// real HTTP on loopback): each fault is flagged with the right outcome and spec section, and
// nothing else is. Some faults are the reference SDK's too, but not enough of its own behaviours
// are there to recognise it: every finding is the author's.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { builtinEnvironments } from "@/envs";
import { type ConformanceReport, runConformanceCheck } from "@/lib/conformance";
import { createOrsHandler, type OrsHandler } from "@/lib/ors/host";
import { proxyToHandler, startHttpServer } from "../relay/helpers";
import { brokenHandler, notPassing, owners, result } from "./helpers";

describe("conformance check of a broken server", () => {
  let host: OrsHandler;
  let server: Awaited<ReturnType<typeof startHttpServer>>;
  let report: ConformanceReport;

  beforeAll(async () => {
    host = createOrsHandler(builtinEnvironments, { pingIntervalMs: 300, idleTimeoutMs: 1_000 });
    const broken = brokenHandler(host);
    server = await startHttpServer(0, (req, res) => {
      proxyToHandler(broken, req, res).catch(() => res.destroy());
    });
    report = await runConformanceCheck({
      baseUrl: server.url,
      idleTimeoutMs: 1_000,
      idleGraceMs: 1_500,
      slowToolSeconds: 1.5,
    });
  }, 60_000);
  afterAll(async () => {
    await server?.close();
    await host?.close();
  });

  it("flags exactly the faults, each with its outcome", () => {
    // What the OpenReward client needs is looked at below and in openreward.test.ts.
    expect(notPassing(report, "openreward")).toEqual({
      "create-session-sse": "breaks-reference-client",
      tools: "breaks-reference-client",
      "call-chunking": "breaks-reference-client",
      // Cut every 4096 UTF-16 units: pieces with non-ASCII text are over 4096 bytes.
      "call-chunk-size": "differs-from-spec",
      // Our host's own: an unknown tool is {"ok": false}.
      "call-unknown-tool": "differs-from-spec",
      "malformed-body": "differs-from-spec",
      "invalid-body": "differs-from-spec",
      "unknown-path": "differs-from-spec",
      "delete-unknown-session": "differs-from-spec",
    });
    expect(report.summary.ok).toBe(false);
    expect(report.summary.clean).toBe(false);
  });

  it("recognises no framework: every finding is the author's, and the breaks count", () => {
    expect(report.framework).toBeNull();
    expect(new Set(Object.values(owners(report)))).toEqual(new Set(["author"]));
    expect(report.results.filter((r) => r.counted).map((r) => r.id)).toEqual([
      "tools",
      "create-session-sse",
      "call-chunking",
    ]);
    expect(report.summary.passed).toBe(false);
    expect(report.summary.owners.framework).toBe(0);
  });

  it("JSON from /create_session also fails the OpenReward client, which is not counted", () => {
    expect(result(report, "openreward-create-session-sse")).toMatchObject({
      outcome: "breaks-openreward-client",
      owner: "author",
      counted: false,
    });
  });

  it("pieces of 4096 characters with non-ASCII text are over 4096 bytes: counted in characters", () => {
    const r = result(report, "call-chunk-size");
    expect(r.spec).toEqual({ file: "ors-sse.txt", section: "Chunking" });
    expect(r.observed).toMatch(
      /^bigoutput\/dump \{\}: \d+ of \d+ pieces over 4096 bytes \(piece \d+: \d+ characters in \d+ bytes\): counted in characters/,
    );
  });

  it("JSON from /create_session breaks the reference client, which reads SSE", () => {
    const r = result(report, "create-session-sse");
    expect(r.spec).toEqual({ file: "ors-http-api.txt", section: "POST /create_session" });
    expect(r.observed).toMatch(/HTTP 200 \(application\/json, \d+ bytes\): \{"sid":/);
    expect(r.observed).toMatch(/no SSE event: the client raises 'Stream ended unexpectedly'/);
  });

  it("pieces starting with whitespace break it: the reference client lstrips them and loses text", () => {
    const r = result(report, "call-chunking");
    expect(r.spec).toEqual({ file: "ors-sse.txt", section: "Chunking" });
    expect(r.observed).toMatch(/^bigoutput\/dump \{\}: \d+ of \d+ pieces start with whitespace/);
    expect(r.observed).toMatch(
      /lstrips SSE data and rebuilds \d+ characters instead of \d+, text silently lost/,
    );
  });

  it("a key ToolSpec does not have breaks its ToolSpec(**tool)", () => {
    const r = result(report, "tools");
    expect(r.observed).toMatch(/^guess: tool "guess" has "title": ToolSpec\(\*\*tool\) raises TypeError/);
  });

  it("422 for bad bodies, 308 for unknown paths and 200 for an unknown delete differ from the spec", () => {
    const malformed = result(report, "malformed-body");
    expect(malformed.spec).toEqual({ file: "ors-http-api.txt", section: "Standard HTTP Status Codes" });
    expect(malformed.observed).toMatch(
      /POST \/math\/call: HTTP 422 .*a validation list where the spec says 400/,
    );
    expect(result(report, "invalid-body").observed).toMatch(/without "input": HTTP 422/);
    expect(result(report, "unknown-path").observed).toMatch(
      /HTTP 308 \(no content type, 0 bytes, Location: \/math\/conformance-no-such-endpoint-[0-9a-f]+\)/,
    );
    const del = result(report, "delete-unknown-session");
    expect(del.spec).toEqual({ file: "ors-http-api.txt", section: "POST /delete" });
    expect(del.observed).toMatch(/^HTTP 200 .*deleting a session never created succeeds/);
  });

  it("still deletes every session it created", () => {
    expect(host.host.sessionCount).toBe(0);
  });
});
