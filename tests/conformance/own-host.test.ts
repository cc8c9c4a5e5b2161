// The conformance check against our own host: in process (the handler as fetch) and as a real
// `scripts/serve.ts` process on loopback, where `check --strict` finds nothing. Every check passes
// (an unknown tool is the spec's `event: error`), every check is exercised (a slow tool for
// pings, a large non-ASCII result for chunks, the idle limit given), no framework is recognised, and
// the check leaves no session behind.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { builtinEnvironments } from "@/envs";
import { checkCommand } from "@/lib/cli/check-command";
import { type CheckResult, runConformanceCheck } from "@/lib/conformance";
import { createOrsHandler, type OrsHandler } from "@/lib/ors/host";
import { captureIo } from "../cli/helpers";
import { handlerFetch, type SpawnedServer, spawnOrsServer } from "../relay/helpers";
import { CHECK_IDS, problems, reportShape, result } from "./helpers";

describe("conformance check of our host, in process", () => {
  let handler: OrsHandler;
  beforeAll(() => {
    handler = createOrsHandler(builtinEnvironments, { pingIntervalMs: 300, idleTimeoutMs: 1_000 });
  });
  afterAll(() => handler.close());

  it("passes every check, reports each once as it is decided, and deletes its sessions", async () => {
    const seen: CheckResult[] = [];
    const report = await runConformanceCheck({
      baseUrl: "http://local.invalid",
      fetch: handlerFetch(handler),
      idleTimeoutMs: 1_000,
      idleGraceMs: 1_500,
      slowToolSeconds: 1.5,
      onResult: (r) => seen.push(r),
    });
    expect(problems(report)).toEqual([]);
    const openreward = report.results.filter((r) => r.group === "openreward");
    expect(openreward.map((r) => r.outcome)).toEqual(openreward.map(() => "pass"));
    expect(report.summary).toMatchObject({
      ok: true,
      clean: true,
      passed: true,
      owners: { author: 0, framework: 0 },
      total: CHECK_IDS.length,
    });
    expect(report.framework).toBeNull();
    expect(result(report, "call-unknown-tool")).toMatchObject({
      outcome: "pass",
      observed: expect.stringMatching(/^an unknown tool: event: error "Unknown tool /),
    });
    expect(report.summary.counts.pass).toBe(CHECK_IDS.length);
    expect(reportShape.safeParse(report).success).toBe(true);
    expect(report.results.map((r) => r.id)).toEqual(CHECK_IDS);
    expect(seen.map((r) => r.id).sort()).toEqual([...CHECK_IDS].sort());
    // The behaviours that need a particular tool were really exercised.
    expect(result(report, "call-chunking").observed).toMatch(
      /^bigoutput\/dump \{\}: \d+ characters in \d+ pieces/,
    );
    // Its non-ASCII text shows the pieces are cut by bytes.
    expect(result(report, "call-chunk-size").observed).toMatch(
      /^bigoutput\/dump \{\}: \d+ pieces of at most 4096 bytes .*hold non-ASCII text/,
    );
    expect(result(report, "call-env-mismatch").observed).toMatch(
      /^POST \/\w+\/call with a session of math: HTTP 404/,
    );
    expect(result(report, "task-negative-index").observed).toMatch(/^train\[-1\]: HTTP 400/);
    expect(result(report, "call-pings").observed).toMatch(/^slow\/wait .* ping comment/);
    expect(result(report, "idle-timeout").observed).toMatch(/HTTP 404/);
    expect(report.target).toEqual({
      environment: "math",
      task: { split: "train", index: 0 },
      tool: { name: "submit", input: { answer: "" } },
    });
    expect(handler.host.sessionCount).toBe(0);
  });

  it("stops at its overall time limit, says so, and still deletes its sessions", async () => {
    const report = await runConformanceCheck({
      baseUrl: "http://local.invalid",
      fetch: handlerFetch(handler),
      slowToolSeconds: 5,
      maxTimeMs: 1_500,
    });
    expect(report.summary.ok).toBe(false);
    const stopped = report.results.filter((r) => /overall time limit of 1\.5 s ran out/.test(r.observed));
    expect(stopped.length).toBeGreaterThan(0);
    expect(report.results).toHaveLength(CHECK_IDS.length);
    expect(report.durationMs).toBeLessThan(10_000);
    expect(handler.host.sessionCount).toBe(0);
  });
});

describe("conformance check of our host with API keys", () => {
  let handler: OrsHandler;
  beforeAll(() => {
    handler = createOrsHandler(builtinEnvironments, { apiKeys: ["sesame"], pingIntervalMs: 300 });
  });
  afterAll(() => handler.close());

  it("without the key: one error that says so, the rest not reached", async () => {
    const report = await runConformanceCheck({
      baseUrl: "http://local.invalid",
      fetch: handlerFetch(handler),
    });
    expect(result(report, "list-environments")).toMatchObject({
      outcome: "error",
      observed: expect.stringMatching(/HTTP 401 .*wants an API key \(give one with --api-key\)/),
    });
    expect(result(report, "prompt").observed).toMatch(/^not reached: the server wants an API key/);
    expect(report.summary.counts).toMatchObject({ error: 1, "breaks-reference-client": 0 });
    expect(report.summary.ok).toBe(false);
  });

  it("with the key (sent as X-API-Key on every request): clean", async () => {
    const report = await runConformanceCheck({
      baseUrl: "http://local.invalid",
      fetch: handlerFetch(handler),
      apiKey: "sesame",
      slowToolSeconds: 0,
    });
    expect(problems(report)).toEqual([
      expect.stringMatching(/^call-pings: not-exercised/),
      expect.stringMatching(/^idle-timeout: not-exercised/),
    ]);
    expect(handler.host.sessionCount).toBe(0);
  });
});

describe("conformance check of our host, a real scripts/serve.ts process", () => {
  let server: SpawnedServer;
  beforeAll(async () => {
    server = await spawnOrsServer(0, { ORS_PING_INTERVAL_MS: "300", ORS_IDLE_TIMEOUT_MS: "1000" });
  });
  afterAll(() => server?.stop());

  it("passes every check over HTTP", async () => {
    const report = await runConformanceCheck({
      baseUrl: server.url,
      idleTimeoutMs: 1_000,
      idleGraceMs: 1_500,
      slowToolSeconds: 1.5,
    });
    expect(problems(report)).toEqual([]);
    expect(report.summary).toMatchObject({ ok: true, clean: true, passed: true });
    const stats = await fetch(`${server.url}/list_environments`);
    expect(stats.status).toBe(200);
  });

  it("check --strict finds nothing: exit 0", async () => {
    const { out, io } = captureIo();
    const code = await checkCommand(
      [server.url, "--strict", "--idle-timeout", "1000", "--ping-time", "1.5s"],
      io,
    );
    expect(out.stdout).not.toMatch(
      /^(Differs from the spec|Breaks the reference Python client|Errors|Not exercised)/m,
    );
    expect(out.stdout).toMatch(
      /^Summary: 0 break the reference client, 0 differ from the spec, 0 errors, 0 not exercised, \d+ pass \(\d+ checks, .*\): clean$/m,
    );
    expect(code).toBe(0);
  });
});
