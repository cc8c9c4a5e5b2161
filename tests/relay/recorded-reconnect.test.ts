// A call whose stream drops between the relay and the server: the client is told with an error that
// names its task_id, re-posts it through the relay, and the recorder continues the same step (one
// step, its true latency, a "relay: resumed" mark), as the episode page then shows it.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { builtinEnvironments } from "@/envs";
import { createOrsClient } from "@/lib/ors/client";
import { createOrsHandler, type OrsHandler } from "@/lib/ors/host";
import {
  makeRelay,
  proxyToHandler,
  readBody,
  recordRelay,
  relayFetch,
  startHttpServer,
  type TestRelay,
} from "./helpers";

let host: OrsHandler;
let proxy: Awaited<ReturnType<typeof startHttpServer>>;
let t: TestRelay;
let recording: ReturnType<typeof recordRelay>;
let drops = 0;

beforeAll(async () => {
  host = createOrsHandler(builtinEnvironments);
  // In front of the host: the first /call stream (no task_id) is cut right after its task_id.
  proxy = await startHttpServer(0, async (req, res) => {
    const body = await readBody(req);
    const isFirstCall =
      req.url?.endsWith("/call") && !JSON.parse(body.toString() || "{}").task_id && drops === 0;
    let seen = "";
    await proxyToHandler(
      host,
      req,
      res,
      (text) => {
        seen += text;
        if (isFirstCall && seen.includes("event: task_id")) {
          drops++;
          return "drop-after";
        }
        return undefined;
      },
      body,
    );
  });
  t = makeRelay(host, { flaky: proxy.url });
  recording = recordRelay(t);
});

afterAll(async () => {
  await recording.close();
  await proxy.close();
  await host.close();
  t.cleanup();
});

describe("a dropped call through the relay", () => {
  it("is continued in the same step when the client re-posts its task_id", async () => {
    const ors = createOrsClient({
      baseUrl: "http://app.test/api/servers/flaky",
      fetch: relayFetch(t.relay),
      backoffBaseMs: 50,
    });
    const { sid } = await ors.createSession();
    await ors.create(sid, { env_name: "slow", split: "train", index: 0 });
    await ors.prompt("slow", sid);
    let taskId = "";
    const reconnects: string[] = [];
    const call = { name: "wait", input: { seconds: 0.3 } };
    const onEvent = (e: { type: string; data?: string }) => {
      if (e.type === "task_id") taskId = e.data ?? "";
    };
    // The relay ends the cut stream with an error that says the call can be resumed; this client
    // knows the relay's mark and re-posts the call with its task_id by itself.
    const out = await ors.callTool("slow", sid, call, {
      onEvent: (e) => {
        onEvent(e);
        if (e.type === "reconnect") reconnects.push(e.data ?? "");
      },
    });
    expect(drops).toBe(1);
    expect(reconnects).toHaveLength(1);
    expect(reconnects[0]).toContain(`re-post the call with task_id ${taskId}`);
    expect(out.ok).toBe(true);
    const summary = await recording.summaryOf("flaky", sid);
    const rec = (await recording.store.get(summary.id))!;
    expect(rec.steps).toHaveLength(1);
    const [s] = rec.steps;
    expect(s).toMatchObject({ ok: true, tool: "wait", metadata: { seconds: 0.3 } });
    expect(s!.events.some((e) => e.kind === "comment" && e.comment === "relay: resumed")).toBe(true);
    expect(s!.latency_ms).toBeGreaterThanOrEqual(300);
  });
});
