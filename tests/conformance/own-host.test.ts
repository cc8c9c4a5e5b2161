// The conformance check against our own host: in process (the handler as fetch) and as a real
// `scripts/serve.ts` process on loopback. Every check passes but one — an unknown tool is answered
// as a tool logic error (`{"ok": false}`), where the spec makes it an error of the call — and that
// finding is the author's (no framework is recognised). Every check is exercised (a slow tool for
// pings, a large non-ASCII result for chunks, the idle limit given), and the check leaves no session
// behind.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { builtinEnvironments } from "@/envs";
import { type CheckResult, runConformanceCheck } from "@/lib/conformance";
import { createOrsHandler, type OrsHandler } from "@/lib/ors/host";
import { handlerFetch, type SpawnedServer, spawnOrsServer } from "../relay/helpers";
import { CHECK_IDS, problems, reportShape, result } from "./helpers";

/**
 * What our host does that the spec does not say: an unknown tool answers end {"ok": false}. What
 * the OpenReward client needs beyond the spec (bare paths, env_name, SSE session ids) it does.
 */
const OWN_HOST_FINDINGS = [
  expect.stringMatching(
    /^call-unknown-tool: differs-from-spec: an unknown tool: HTTP 200, end \{"ok": false/,
  ),
];

describe("conformance check of our host, in process", () => {
  let handler: OrsHandler;
  beforeAll(() => {
    handler = createOrsHandler(builtinEnvironments, { pingIntervalMs: 300, idleTimeoutMs: 1_000 });
  });
  afterAll(() => handler.close());

  it("passes every check but the unknown tool's, reports each once as it is decided, and deletes its sessions", async () => {
    const seen: CheckResult[] = [];
    const report = await runConformanceCheck({
      baseUrl: "http://local.invalid",
      fetch: handlerFetch(handler),
      idleTimeoutMs: 1_000,
      idleGraceMs: 1_500,
      slowToolSeconds: 1.5,
      onResult: (r) => seen.push(r),
    });
    expect(problems(report)).toEqual(OWN_HOST_FINDINGS);
    const openreward = report.results.filter((r) => r.group === "openreward");
    expect(openreward.map((r) => r.outcome)).toEqual(openreward.map(() => "pass"));
    expect(report.summary).toMatchObject({
      ok: true,
      clean: false,
      passed: true,
      owners: { author: 1, framework: 0 },
      total: CHECK_IDS.length,
    });
    expect(report.framework).toBeNull();
    expect(result(report, "call-unknown-tool")).toMatchObject({ owner: "author", counted: false });
    expect(report.summary.counts.pass).toBe(CHECK_IDS.length - 1);
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
      ...OWN_HOST_FINDINGS,
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

  it("passes every check but the unknown tool's over HTTP", async () => {
    const report = await runConformanceCheck({
      baseUrl: server.url,
      idleTimeoutMs: 1_000,
      idleGraceMs: 1_500,
      slowToolSeconds: 1.5,
    });
    expect(problems(report)).toEqual(OWN_HOST_FINDINGS);
    expect(report.summary).toMatchObject({ ok: true, passed: true });
    const stats = await fetch(`${server.url}/list_environments`);
    expect(stats.status).toBe(200);
  });
});
