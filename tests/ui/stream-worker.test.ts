// The episode pages' worker (lib/ui/stream-worker.ts), driven through its message protocol against
// the real host on a loopback port: a tool call's stream is read whole in the worker, and the page
// hears only how it ended — never the result's pieces — whatever the result's size; failures keep
// the client's kind and detail; a large JSON text comes back parsed.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { builtinEnvironments } from "@/envs/index";
import { createOrsClient } from "@/lib/ors/client";
import { createOrsHandler, type OrsHandler, serveNode } from "@/lib/ors/host";
import type { WorkerReply, WorkerRequest } from "@/lib/ui/stream-protocol";
import { serveWorker } from "@/lib/ui/stream-worker";
import { waitUntil } from "../support/wait";

let served: Awaited<ReturnType<typeof serveNode>>;
let host: OrsHandler;

beforeAll(async () => {
  host = createOrsHandler(builtinEnvironments, { pingIntervalMs: 1000 });
  served = await serveNode(host, {
    port: 0,
    host: "127.0.0.1",
  });
});
afterAll(() => served.close());

/** A worker scope in this process: requests in, replies collected. */
function fakeWorker() {
  const replies: WorkerReply[] = [];
  let onMessage: ((e: MessageEvent<WorkerRequest>) => void) | null = null;
  serveWorker({
    postMessage: (m) => replies.push(m),
    addEventListener: (_type, l) => {
      onMessage = l;
    },
  });
  const send = (r: WorkerRequest) => onMessage!({ data: r } as MessageEvent<WorkerRequest>);
  const until = async (pred: (r: WorkerReply) => boolean, ms = 20_000) => {
    const start = Date.now();
    while (!replies.some(pred)) {
      if (Date.now() - start > ms) throw new Error(`no such reply: ${JSON.stringify(replies)}`);
      await new Promise((r) => setTimeout(r, 10));
    }
    return replies.find(pred)!;
  };
  return { replies, send, until };
}

async function session(env: string) {
  const client = createOrsClient({ baseUrl: served.url });
  const { sid } = await client.createSession();
  await client.create(sid, { env_name: env, split: "train", index: 0 });
  return { client, sid };
}

/** The page's request that the worker make a call on the served host. */
function callMessage(
  id: number,
  env: string,
  sid: string,
  call: Extract<WorkerRequest, { type: "call" }>["call"],
): WorkerRequest {
  return { type: "call", id, base: served.url, env, sid, call, headers: {} };
}

describe("stream worker", () => {
  it("reads a 20 MiB result in the worker and tells the page only that it ended", async () => {
    const { sid } = await session("bigoutput");
    const w = fakeWorker();
    w.send(
      callMessage(1, "bigoutput", sid, { name: "dump", input: { size: 20 * 1024 * 1024, ascii: true } }),
    );
    await w.until((r) => r.type === "call-done" || r.type === "call-error", 60_000);
    expect(w.replies).toEqual([{ type: "call-done", id: 1 }]);
  }, 90_000);

  it("hands a failure over with the client's kind, status and detail", async () => {
    const w = fakeWorker();
    w.send(callMessage(2, "math", "no-such-session", { name: "submit", input: { answer: "1" } }));
    const r = await w.until((x) => x.id === 2 && x.type === "call-error");
    expect(r).toMatchObject({
      type: "call-error",
      error: { name: "OrsClientError", kind: "http", status: 404 },
    });
    expect(r.type === "call-error" && r.error.detail).toMatch(/session/i);
  });

  it("stops a call the page aborts, without a reply", async () => {
    const { sid } = await session("slow");
    const w = fakeWorker();
    w.send(callMessage(3, "slow", sid, { name: "wait", input: { seconds: 30 } }));
    await waitUntil("the call running on the host", () => host.host.stats().runsRunning === 1);
    w.send({ type: "abort", id: 3 });
    await new Promise((r) => setTimeout(r, 300));
    expect(w.replies.filter((r) => r.id === 3)).toEqual([]);
  });

  it("parses a large JSON text, and says what a text that is not JSON was", async () => {
    const w = fakeWorker();
    const big = { steps: [{ blocks: [{ type: "text", text: "x".repeat(2_000_000) }] }] };
    w.send({ type: "parse-json", id: 4, text: JSON.stringify(big) });
    const r = await w.until((x) => x.id === 4);
    expect(r).toEqual({ type: "json", id: 4, body: big, error: null });
    w.send({ type: "parse-json", id: 5, text: "<html>" });
    const bad = await w.until((x) => x.id === 5);
    expect(bad).toMatchObject({ type: "json", body: null, error: expect.stringMatching(/JSON/) });
  });
});
