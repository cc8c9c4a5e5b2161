// The checks of what the OpenReward client needs (paths without the environment, env_name in /task
// and /task_range, SSE /create_session), on servers that do all three — the reference-shaped server
// configured to, and our host behind a router that adds them — and on servers that do not: each is
// labelled as the OpenReward client's need (breaks-openreward-client), not counted by default, and
// on the reference SDK the framework's.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { builtinEnvironments, math } from "@/envs";
import { checkCommand } from "@/lib/cli/check-command";
import { type ConformanceReport, runConformanceCheck } from "@/lib/conformance";
import { createOrsHandler, type OrsHandler } from "@/lib/ors/host";
import { captureIo } from "../cli/helpers";
import { type RunningReferenceServer, startReferenceServer } from "../fixtures/reference-server/spawn";
import { handlerFetch } from "../relay/helpers";
import { brokenHandler, openRewardHandler, reportShape, result } from "./helpers";

const OPENREWARD = ["openreward-bare-paths", "openreward-env-name", "openreward-create-session-sse"];

/** Each of the three needs met. */
const ALL_MET = Object.fromEntries(OPENREWARD.map((id) => [id, "pass"]));

/** The check run in process through `fetch`, as if on a server at http://local.invalid. */
const checkVia = (fetch: typeof globalThis.fetch) =>
  runConformanceCheck({ baseUrl: "http://local.invalid", fetch, slowToolSeconds: 0 });

function openreward(report: ConformanceReport) {
  return Object.fromEntries(OPENREWARD.map((id) => [id, result(report, id).outcome]));
}

describe("the reference-shaped server", () => {
  let multi: RunningReferenceServer;
  let single: RunningReferenceServer;
  let multiReport: ConformanceReport;
  let singleReport: ConformanceReport;

  beforeAll(async () => {
    [multi, single] = await Promise.all([
      startReferenceServer({ pingMs: 300 }),
      startReferenceServer({ pingMs: 300, envs: ["farmplanner"], taskEnvName: true }),
    ]);
    [multiReport, singleReport] = await Promise.all([
      runConformanceCheck({ baseUrl: multi.url, slowToolSeconds: 0 }),
      runConformanceCheck({ baseUrl: single.url, slowToolSeconds: 0 }),
    ]);
  }, 90_000);
  afterAll(async () => {
    await Promise.all([multi?.stop(), single?.stop()]);
  });

  it("as the SDK is (four environments, no env_name in /task): two needs unmet, the SDK's, not counted", () => {
    expect(openreward(multiReport)).toEqual({
      "openreward-bare-paths": "breaks-openreward-client",
      "openreward-env-name": "breaks-openreward-client",
      "openreward-create-session-sse": "pass",
    });
    const bare = result(multiReport, "openreward-bare-paths");
    expect(bare).toMatchObject({ group: "openreward", owner: "framework", counted: false });
    expect(bare.deviations).toEqual(["x-deployment-ignored"]);
    // X-Deployment names an environment other than the first; the SDK sends the path to the first.
    expect(bare.observed).toMatch(
      /^with X-Deployment: (coffeeshop|triagedesk|canvas): GET \/tools: farmplanner's answer \(via 308 to \/farmplanner\/tools\)/,
    );
    // A session's own paths work: the SDK resolves the environment by the session.
    expect(bare.observed).not.toMatch(/\/prompt|\/call|\/task_tools/);
    expect(result(multiReport, "openreward-env-name")).toMatchObject({
      owner: "framework",
      deviations: ["task-without-env-name"],
      observed: expect.stringMatching(
        /^POST \/farmplanner\/task: no env_name \(the OpenReward client reads it/,
      ),
    });
    expect(result(multiReport, "openreward-create-session-sse").observed).toMatch(
      /^HTTP 200 text\/event-stream with the sid "[0-9a-f-]{36}"$/,
    );
    expect(multiReport.summary.passed).toBe(true);
    expect(reportShape.safeParse(multiReport).success).toBe(true);
  });

  it("one environment with env_name: all three met, paths without the environment with and without X-Deployment", () => {
    expect(openreward(singleReport)).toEqual(ALL_MET);
    expect(result(singleReport, "openreward-bare-paths").observed).toBe(
      "/tools, /splits, /num_tasks, /task, /prompt, /task_tools, /call reach farmplanner without X-Deployment and with X-Deployment: farmplanner",
    );
    expect(result(singleReport, "openreward-env-name").observed).toBe(
      'POST /farmplanner/task: env_name "farmplanner"; POST /farmplanner/task_range: env_name "farmplanner"',
    );
    // What one environment cannot show is said so, with why.
    expect(result(singleReport, "call-env-mismatch")).toMatchObject({
      outcome: "not-exercised",
      observed: "the server hosts one environment: there is no other one to name in the path",
    });
  });

  it("leaves no session behind", async () => {
    expect((await multi.stats()).activeSessions).toBe(0);
    expect((await single.stats()).activeSessions).toBe(0);
  });
});

describe("our host behind a router that does what the OpenReward client needs", () => {
  let many: OrsHandler;
  let one: OrsHandler;
  beforeAll(() => {
    many = createOrsHandler(builtinEnvironments, { pingIntervalMs: 300 });
    one = createOrsHandler([math], { pingIntervalMs: 300 });
  });
  afterAll(async () => {
    await many?.close();
    await one?.close();
  });

  it("several environments: X-Deployment routes paths without the environment, sessions follow theirs", async () => {
    const names = builtinEnvironments.map((e) => e.name);
    const report = await checkVia(handlerFetch(openRewardHandler(many, names)));
    expect(openreward(report)).toEqual(ALL_MET);
    expect(result(report, "openreward-bare-paths").observed).toMatch(
      /^\/tools, \/splits, \/num_tasks, \/task, \/prompt, \/task_tools, \/call reach \w+ with X-Deployment: \w+$/,
    );
    expect(many.host.sessionCount).toBe(0);
  });

  it("one environment: with and without X-Deployment", async () => {
    const report = await checkVia(handlerFetch(openRewardHandler(one, ["math"])));
    expect(openreward(report)).toEqual(ALL_MET);
    expect(result(report, "openreward-bare-paths").observed).toMatch(
      /reach math without X-Deployment and with X-Deployment: math$/,
    );
  });

  it("a server that answers /create_session with JSON: named, the author's, counted only with --strict", async () => {
    const fetch = handlerFetch(brokenHandler(one));
    const report = await checkVia(fetch);
    // The broken fixture answers /create_session with JSON, whatever the client asks.
    expect(result(report, "openreward-create-session-sse")).toMatchObject({
      outcome: "breaks-openreward-client",
      owner: "author",
      counted: false,
      observed: expect.stringMatching(
        /^asked with Accept: text\/event-stream, answers HTTP 200 \(application\/json, \d+ bytes\): \{"sid":.*the OpenReward client reads the session id from SSE$/,
      ),
    });
    const strict = captureIo();
    await checkCommand(["http://local.invalid", "--json", "--strict", "--ping-time", "0"], {
      ...strict.io,
      fetch,
    });
    const counted = (JSON.parse(strict.out.stdout) as ConformanceReport).results.filter((r) => r.counted);
    expect(counted.map((r) => r.id)).toContain("openreward-create-session-sse");
  });
});
