// A hostile upstream (tests/fixtures/hostile-server, a real process on loopback) against the relay
// served over real HTTP, with the recorder on a real SQLite store: a huge JSON body, endless SSE,
// endless frames, a line without a newline, garbage, a mid-stream close, a hang, headers then a
// hang. Each gets a clear error, the recorded step says what happened, other requests keep being
// answered meanwhile, and this process's memory stays bounded. Free ports.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { builtinEnvironments } from "@/envs";
import { createLiveFeeds } from "@/lib/episodes/live";
import { createRecorder, type Recorder } from "@/lib/episodes/recorder";
import { createOrsHandler, type OrsHandler } from "@/lib/ors/host";
import { orsPathFromUrl } from "@/lib/relay/relay";
import { openStore } from "@/lib/store/sqlite/store";
import type { TrajectoryStore } from "@/lib/store/types";
import type { TrajectoryStep } from "@/lib/trajectory/schema";
import {
  makeRelay,
  type SpawnedServer,
  serveFetchHandler,
  spawnHostileServer,
  type TestRelay,
} from "./helpers";

const MB = 1024 * 1024;
const LIMITS = {
  maxJsonBytes: 8 * MB,
  maxSseLineChars: 1 * MB,
  maxSseEventChars: 2 * MB,
  maxResultChars: 8 * MB,
  maxCallOtherChars: 2 * MB,
  streamIdleMs: 1_000,
  drainMaxMs: 3_000,
  drainIdleMs: 1_000,
  answerMaxMs: 3_000,
};
/** Extra memory one case may cost at its peak (the hostile server sends hundreds of MB). */
const RSS_BOUND = 200 * MB;

let local: OrsHandler;
let hostile: SpawnedServer;
let t: TestRelay;
let store: TrajectoryStore;
let recorder: Recorder;
let app: { url: string; close(): Promise<void> };
let sid: string;

beforeAll(async () => {
  local = createOrsHandler(builtinEnvironments);
  hostile = await spawnHostileServer(0, { HOSTILE_JSON_MB: "300", HOSTILE_RESULT_KB: "1024" });
  t = makeRelay(local, { hostile: hostile.url }, { timeoutMs: 2_000, limits: LIMITS });
  store = openStore({ dir: t.dataDir });
  recorder = createRecorder(store, {
    events: t.relay.events,
    live: createLiveFeeds(),
    sweepEveryMs: 0,
    maxStepBytes: 256 * 1024,
  });
  app = await serveFetchHandler(0, (req) => {
    const name = decodeURIComponent(new URL(req.url).pathname.split("/")[3] ?? "");
    return t.relay.handle(req, name, orsPathFromUrl(req.url, name));
  });
  const res = await fetch(`${app.url}/api/servers/hostile/create_session`, { method: "POST" });
  sid = ((await res.json()) as { sid: string }).sid;
});

afterAll(async () => {
  recorder?.stop();
  await recorder?.idle();
  await app?.close();
  await hostile?.stop();
  await store?.close();
  await local?.close();
  t?.cleanup();
});

interface CaseResult<T> {
  value: T;
  /** Peak RSS above the level before the case. */
  peakRss: number;
  /** Requests to another server answered meanwhile, and the slowest. */
  others: number;
  othersFailed: number;
  slowestMs: number;
}

/** Runs one case while measuring RSS and asking the app for something else every 50 ms. */
async function whileWatching<T>(run: () => Promise<T>): Promise<CaseResult<T>> {
  const base = process.memoryUsage().rss;
  let peak = base;
  const sampler = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().rss);
  }, 20);
  let stop = false;
  let others = 0;
  let othersFailed = 0;
  let slowestMs = 0;
  const other = (async () => {
    while (!stop) {
      const t0 = performance.now();
      try {
        const res = await fetch(`${app.url}/api/servers/local/health`, {
          signal: AbortSignal.timeout(5_000),
        });
        if (res.ok) others++;
        else othersFailed++;
        await res.arrayBuffer();
      } catch {
        othersFailed++;
      }
      slowestMs = Math.max(slowestMs, performance.now() - t0);
      await new Promise((r) => setTimeout(r, 50));
    }
  })();
  try {
    const value = await run();
    return { value, peakRss: peak - base, others, othersFailed, slowestMs };
  } finally {
    stop = true;
    clearInterval(sampler);
    await other;
  }
}

function expectHealthy(r: CaseResult<unknown>) {
  expect(r.othersFailed).toBe(0);
  expect(r.others).toBeGreaterThan(0);
  expect(r.slowestMs).toBeLessThan(2_000);
  expect(r.peakRss).toBeLessThan(RSS_BOUND);
}

/** Reads an answer to its end, keeping only its size and last 64 KB (never the whole of it). */
async function readTail(res: Response, abortAfterBytes = Number.POSITIVE_INFINITY) {
  const reader = res.body!.getReader();
  const dec = new TextDecoder();
  let tail = "";
  let bytes = 0;
  let broke: string | null = null;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      bytes += value.byteLength;
      tail = (tail + dec.decode(value, { stream: true })).slice(-64 * 1024);
      if (bytes > abortAfterBytes) {
        await reader.cancel();
        break;
      }
    }
  } catch (err) {
    broke = err instanceof Error ? err.message : String(err);
  }
  return { status: res.status, tail, bytes, broke };
}

function call(mode: string, init: RequestInit = {}) {
  return fetch(`${app.url}/api/servers/hostile/${mode}/call`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-session-id": sid, accept: "text/event-stream" },
    body: JSON.stringify({ name: "go", input: { mode } }),
    ...init,
  });
}

/** The recorded step of the latest call of `mode` (the tool input names the mode). */
async function recordedStep(mode: string): Promise<TrajectoryStep> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    await recorder.idle();
    const summary = await store.findBySession("hostile", sid);
    const steps = summary ? ((await store.get(summary.id))?.steps ?? []) : [];
    const step = steps.filter((s) => s.input.mode === mode).at(-1);
    if (step && step.ok !== null) return step;
    if (Date.now() > deadline) throw new Error(`no finished step for ${mode}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function detail(res: Response): Promise<string> {
  return ((await res.json()) as { detail: string }).detail;
}

describe("a hostile upstream gets a clear error, bounded memory, and the app keeps answering", () => {
  it("a JSON answer of 300 MB, chunked without a length → 502 at the limit", async () => {
    const r = await whileWatching(async () => {
      const res = await fetch(`${app.url}/api/servers/hostile/huge-json/tasks`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ split: "train" }),
      });
      return { status: res.status, detail: await detail(res) };
    });
    expect(r.value.status).toBe(502);
    expect(r.value.detail).toMatch(/sent a JSON answer larger than 8388608 bytes to \/huge-json\/tasks/);
    expectHealthy(r);
  });

  it("an endless stream of result chunks → event: error at the result limit; the step says so", async () => {
    const r = await whileWatching(async () => readTail(await call("endless-sse")));
    expect(r.value.status).toBe(200);
    expect(r.value.tail).toMatch(
      /event: error\ndata: relay: hostile sent the result is larger than 8388608 characters/,
    );
    expect(r.value.bytes).toBeLessThan(12 * MB);
    const step = await recordedStep("endless-sse");
    expect(step).toMatchObject({ ok: false, error: expect.stringMatching(/larger than 8388608 characters/) });
    expectHealthy(r);
  });

  it("endless unknown frames → event: error; the step keeps a bounded part of its frames and says so", async () => {
    const r = await whileWatching(async () => readTail(await call("endless-frames")));
    expect(r.value.tail).toMatch(/event: error\ndata: relay: .*not part of a result/);
    const step = await recordedStep("endless-frames");
    expect(step.error).toMatch(/not part of a result/);
    expect(step.truncated?.frames_dropped).toBeGreaterThan(100);
    expect(JSON.stringify(step).length).toBeLessThanOrEqual(256 * 1024);
    expectHealthy(r);
  });

  it("an SSE line that never ends → event: error at the line limit", async () => {
    const r = await whileWatching(async () => readTail(await call("no-newline")));
    expect(r.value.tail).toMatch(
      /event: error\ndata: relay: hostile sent an SSE line longer than 1048576 characters/,
    );
    const step = await recordedStep("no-newline");
    expect(step.error).toMatch(/line longer than/);
    expectHealthy(r);
  });

  it("garbage frames and an `end` that is not JSON → the step says the result is not JSON", async () => {
    const r = await whileWatching(async () => readTail(await call("garbage")));
    expect(r.value.status).toBe(200);
    const step = await recordedStep("garbage");
    expect(step).toMatchObject({ ok: false, error: expect.stringMatching(/not JSON/) });
    expectHealthy(r);
  });

  it("a stream cut in the middle → the client gets event: error; the step says it ended before `end`", async () => {
    const r = await whileWatching(async () => readTail(await call("mid-close")));
    expect(r.value.tail).not.toMatch(/event: end/);
    expect(r.value.tail).toMatch(
      /event: error\ndata: relay: server "hostile": the stream (ended|broke) before `end`/,
    );
    const step = await recordedStep("mid-close");
    expect(step).toMatchObject({ ok: false, error: expect.stringMatching(/before `end`/) });
    expectHealthy(r);
  });

  it("a server that accepts the connection and never answers → 504", async () => {
    const r = await whileWatching(async () => {
      const res = await call("hang");
      return { status: res.status, detail: await detail(res) };
    });
    expect(r.value.status).toBe(504);
    expect(r.value.detail).toMatch(/timed out after 2 s/);
    expectHealthy(r);
  });

  it("headers then nothing → 504 for JSON, event: error for a stream; the step says so", async () => {
    const r = await whileWatching(async () => {
      const json = await fetch(`${app.url}/api/servers/hostile/headers-hang/tools`);
      const stream = await readTail(await call("headers-hang"));
      return { status: json.status, detail: await detail(json), stream };
    });
    expect(r.value.status).toBe(504);
    expect(r.value.detail).toMatch(/stopped sending/);
    expect(r.value.stream.tail).toMatch(/event: error\ndata: relay: hostile sent nothing for 1 s/);
    const step = await recordedStep("headers-hang");
    expect(step.error).toMatch(/sent nothing for 1 s/);
    expectHealthy(r);
  });

  it("a server that trickles a byte at a time → 504 for JSON, event: error for a stream at the total deadline", async () => {
    const r = await whileWatching(async () => {
      const started = Date.now();
      const [json, stream] = await Promise.all([
        fetch(`${app.url}/api/servers/hostile/trickle/tools`),
        call("trickle").then(readTail),
      ]);
      return { status: json.status, detail: await detail(json), stream, ms: Date.now() - started };
    });
    expect(r.value.status).toBe(504);
    expect(r.value.detail).toMatch(/did not end within 3 s/);
    expect(r.value.stream.tail).toMatch(/event: error\ndata: relay: hostile's answer did not end within 3 s/);
    // Never silent for the idle limit (1 s), yet ended at the total deadline, not later.
    expect(r.value.ms).toBeLessThan(10_000);
    const step = await recordedStep("trickle");
    expect(step).toMatchObject({ ok: false, error: expect.stringMatching(/did not end within 3 s/) });
    expectHealthy(r);
  });

  it("a client that leaves an endless call: the answer is read on within bounds and the step recorded", async () => {
    const r = await whileWatching(async () => readTail(await call("endless-frames"), 256 * 1024));
    expect(r.value.bytes).toBeGreaterThan(256 * 1024);
    const step = await recordedStep("endless-frames");
    expect(step.error).toMatch(/not part of a result|took too long/);
    expectHealthy(r);
  });

  it("a 1 MB result passes whole to the client; the stored step is cut to the cap and says so", async () => {
    const r = await whileWatching(async () => readTail(await call("big-result")));
    expect(r.value.tail).toMatch(/event: end\ndata: .*"finished":false\}\}/);
    expect(r.value.bytes).toBeGreaterThan(MB);
    const step = await recordedStep("big-result");
    expect(step.ok).toBe(true);
    expect(step.reward).toBe(1);
    expect(step.truncated).toMatchObject({ blocks_cut: 1 });
    expect(step.truncated!.original_bytes).toBeGreaterThan(MB);
    expect(
      new TextEncoder().encode(JSON.stringify({ ...step, truncated: undefined })).length,
    ).toBeLessThanOrEqual(256 * 1024);
    expectHealthy(r);
  });
});
