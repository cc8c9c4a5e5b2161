// The OpenReward client's requests (bare paths, X-Deployment, SSE /create_session, X-Secrets)
// through the recording relay to the built-in host: forwarded as they are, and recorded as an
// episode like any other — its environment taken from X-Deployment where no path names it.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { builtinEnvironments } from "@/envs";
import { createOrsHandler, type OrsHandler } from "@/lib/ors/host";
import { createOpenRewardClient } from "../fixtures/openreward-client/client";
import { makeRelay, recordRelay, relayFetch, type TestRelay } from "./helpers";

let host: OrsHandler;
let t: TestRelay;
let recording: ReturnType<typeof recordRelay>;

beforeAll(() => {
  host = createOrsHandler(builtinEnvironments, { log: () => {} });
  t = makeRelay(host, {});
  recording = recordRelay(t);
});

afterAll(async () => {
  await recording.close();
  await host.close();
  t.cleanup();
});

// The real client drops a base URL's path; one that keeps it (as this test client can) uses the relay.
const client = () =>
  createOpenRewardClient({
    baseUrl: "http://app.test/api/servers/local",
    keepBasePath: true,
    fetch: relayFetch(t.relay),
    waitScale: 0.01,
  });

describe("the OpenReward client through the relay", () => {
  it("plays and records an episode of bare paths (split + index: no env_name anywhere but X-Deployment)", async () => {
    const env = client().environments.get("guess");
    expect(await env.listSplits()).toContain("train");
    const session = await env.session({ split: "train", index: 0 }, { secrets: { ANY: "x" } }).open();
    const sid = session.sid!;
    const prompt = await session.getPrompt();
    expect(prompt[0]!.text).toMatch(/number/i);
    const first = await session.callTool("guess", { number: 50 });
    expect(first.finished).toBe(typeof first.reward === "number" && first.reward > 0);
    await session.close();
    expect(host.host.sessionCount).toBe(0);

    const summary = await recording.summaryOf("local", sid);
    expect(summary).toMatchObject({ env: "guess", num_steps: 1 });
    const rec = (await recording.store.get(summary.id))!;
    expect(rec.task).toEqual({ split: "train", index: 0 });
    expect(rec.prompt).toEqual(prompt.map((b) => ({ ...b, detail: null })));
    expect(rec.steps[0]).toMatchObject({ tool: "guess", input: { number: 50 }, ok: true });
    expect(rec.end_reason).not.toBeNull();
  });

  it("records a task-spec episode under the environment the task came from", async () => {
    const math = client().environments.get("math");
    const task = await math.getTask("train", 5);
    expect(task.environmentName).toBe("math");
    const session = await math.session({ task }).open();
    await session.getPrompt();
    expect(await session.callTool("submit", { answer: task.taskSpec.answer as string })).toMatchObject({
      reward: 1,
    });
    await session.close();
    const summary = await recording.summaryOf("local", session.sid!);
    expect(summary).toMatchObject({ env: "math", num_steps: 1, total_reward: 1 });
  });
});
