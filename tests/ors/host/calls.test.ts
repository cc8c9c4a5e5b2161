// Tool calls over SSE (ors-sse.txt): exact frames, chunking and reassembly, an unknown tool's
// `event: error`, tool-level failures as `end` {ok:false}, pings, reconnection by task_id (running, completed, unknown, other session),
// client disconnects, the per-call time limit and the bounded result cache.
import { afterEach, describe, expect, it } from "vitest";
import { readSseFrames, type SseFrame } from "@/lib/ors/protocol";
import { closeHandlers, controls, makeHandler } from "./helpers";
import { ev, expectError, framesOf, newEpisode, resultOf, send, until } from "./wire";

afterEach(closeHandlers);

const call = (
  h: ReturnType<typeof makeHandler>,
  sid: string,
  body: object,
  env = "qa",
  signal?: AbortSignal,
) => send(h, `/${env}/call`, { sid, body, headers: { accept: "text/event-stream" }, signal });

function taskIdOf(frames: SseFrame[]): string {
  const f = frames[0];
  if (f?.kind !== "event" || f.event !== "task_id") throw new Error("first frame is not task_id");
  return f.data;
}

describe("call frames", () => {
  it("sends task_id then one end event with the exact RunToolOutput JSON", async () => {
    const h = makeHandler();
    const sid = await newEpisode(h, { env_name: "qa", split: "test", index: 0 });
    const res = await call(h, sid, { name: "submit", input: { answer: "4" } });
    expect(res.headers.get("cache-control")).toBe("no-cache, no-transform");
    const text = await res.text();
    const taskId = text.match(/^event: task_id\ndata: ([0-9a-f-]{36})\n\n/)![1]!;
    expect(text).toBe(
      `event: task_id\ndata: ${taskId}\n\n` +
        'event: end\ndata: {"ok":true,"output":{"blocks":[{"text":"Correct!","detail":null,"type":"text"}],"metadata":null,"reward":1,"finished":true}}\n\n',
    );
  });

  it("chunks a large result into ≤4096-character pieces that never start with whitespace", async () => {
    const h = makeHandler();
    const sid = await newEpisode(h, { env_name: "qa", split: "train", index: 0 });
    const frames = await framesOf(await call(h, sid, { name: "big", input: { size: 50_000 } }));
    const events = frames.filter((f) => f.kind === "event") as { event: string; data: string }[];
    expect(events[0]!.event).toBe("task_id");
    const pieces = events.slice(1);
    expect(pieces.length).toBeGreaterThan(12);
    expect(pieces.slice(0, -1).every((e) => e.event === "chunk")).toBe(true);
    expect(pieces.at(-1)!.event).toBe("end");
    for (const p of pieces) {
      expect(p.data.length).toBeLessThanOrEqual(4096);
      expect(p.data).not.toMatch(/^\s/);
    }
    const result = resultOf(frames) as { ok: true; output: { blocks: { text: string }[]; reward: number } };
    expect(result.output.blocks[0]!.text).toHaveLength(50_000);
    expect(result.output.reward).toBe(0.5);
  });

  it("answers an unknown tool with event: error (spec: tool name not recognized); the session goes on", async () => {
    const h = makeHandler();
    const sid = await newEpisode(h, { env_name: "qa", split: "train", index: 0 });
    const frames = await framesOf(await call(h, sid, { name: "nope", input: {} }));
    const message =
      'Unknown tool "nope" (tool not found); the tools of this session: submit, counter, big, held, boom, malformed, peek';
    expect(frames).toEqual([ev("task_id", taskIdOf(frames)), ev("error", message)]);
    // Kept like any result: a re-post with its task_id gets the same error.
    const again = await framesOf(await call(h, sid, { name: "nope", input: {}, task_id: taskIdOf(frames) }));
    expect(again).toEqual(frames);
    // A task-specific tool is a tool of its own session only.
    const other = await newEpisode(h, { env_name: "indexed", split: "huge", index: 7 });
    expect(
      resultOf(await framesOf(await call(h, other, { name: "hint", input: {} }, "indexed"))),
    ).toMatchObject({
      ok: true,
    });
    expect((await framesOf(await call(h, sid, { name: "hint", input: {} }))).at(-1)).toMatchObject({
      event: "error",
      data: expect.stringMatching(/^Unknown tool "hint"/),
    });
    expect(resultOf(await framesOf(await call(h, sid, { name: "counter", input: {} })))).toMatchObject({
      ok: true,
    });
  });

  it("answers tool-level failures as end {ok:false, error}; the session goes on", async () => {
    const h = makeHandler();
    const sid = await newEpisode(h, { env_name: "qa", split: "train", index: 0 });
    const failure = async (body: object) => resultOf(await framesOf(await call(h, sid, body)));
    expect(await failure({ name: "submit", input: { answer: 4 } })).toEqual({
      ok: false,
      error: expect.stringMatching(/^Invalid input: answer: /),
    });
    expect(await failure({ name: "submit", input: {} })).toEqual({
      ok: false,
      error: expect.stringMatching(/^Invalid input: answer: /),
    });
    expect(await failure({ name: "boom", input: {} })).toEqual({ ok: false, error: "kaboom" });
    expect(await failure({ name: "malformed", input: {} })).toEqual({
      ok: false,
      error: 'Tool "malformed" returned an invalid result: blocks.0.type: expected "text" or "image"',
    });
    expect(await failure({ name: "counter", input: {} })).toMatchObject({ ok: true });
  });

  it("answers 400 naming the field for a malformed call body, 404 for a session of another env", async () => {
    const h = makeHandler();
    const sid = await newEpisode(h, { env_name: "qa", split: "train", index: 0 });
    await expectError(call(h, sid, { input: {} }), 400, /^name: /);
    await expectError(call(h, sid, { name: "submit", input: [] }), 400, /^input: /);
    await expectError(call(h, sid, { name: "submit", input: {}, extra: 1 }), 400, /extra/);
    await expectError(
      call(h, sid, { name: "noop", input: {} }, "indexed"),
      404,
      /runs environment "qa", not "indexed"/,
    );
    await expectError(call(h, "ghost", { name: "submit", input: {} }), 404, /Session not found/);
  });

  it("checks the path's environment first on a session whose setup failed: 404, not the setup's 500", async () => {
    const h = makeHandler();
    const sid = await newEpisode(h, { env_name: "broken", split: "train", index: 0 });
    await expectError(
      call(h, sid, { name: "noop", input: {} }, "qa"),
      404,
      /runs environment "broken", not "qa"/,
    );
    await expectError(
      call(h, sid, { name: "noop", input: {} }, "broken"),
      500,
      /^Setup of environment broken failed/,
    );
  });
});

describe("pings and reconnection", () => {
  it("sends ': ping' comments while a tool runs, then the result", async () => {
    const h = makeHandler({ pingIntervalMs: 20 });
    const sid = await newEpisode(h, { env_name: "qa", split: "train", index: 0 });
    const res = await call(h, sid, { name: "held", input: {} });
    const frames: SseFrame[] = [];
    for await (const f of readSseFrames(res.body!)) {
      frames.push(f);
      if (frames.filter((x) => x.kind === "comment").length === 3) controls.toolGate.resolve();
    }
    expect(frames[0]).toMatchObject({ kind: "event", event: "task_id" });
    expect(frames.slice(1, 4)).toEqual([
      { kind: "comment", comment: "ping" },
      { kind: "comment", comment: "ping" },
      { kind: "comment", comment: "ping" },
    ]);
    expect(resultOf(frames)).toMatchObject({ ok: true, output: { blocks: [{ text: "released held" }] } });
  });

  it("keeps working after the client disconnects; a re-POST with the task_id streams, then replays", async () => {
    const h = makeHandler({ pingIntervalMs: 10_000 });
    const sid = await newEpisode(h, { env_name: "qa", split: "train", index: 0 });
    const ac = new AbortController();
    const first = await call(h, sid, { name: "held", input: {} }, "qa", ac.signal);
    const reader = first.body!.getReader();
    const head = new TextDecoder().decode((await reader.read()).value);
    const taskId = head.match(/^event: task_id\ndata: (\S+)\n\n$/)![1]!;
    ac.abort();
    await reader.cancel();
    // Reconnect while the run is still going: task_id at once, the result when it comes.
    const again = call(h, sid, { name: "held", input: {}, task_id: taskId });
    const running = await again;
    controls.toolGate.resolve();
    const frames = await framesOf(running);
    expect(frames).toEqual([
      ev("task_id", taskId),
      ev(
        "end",
        '{"ok":true,"output":{"blocks":[{"text":"released held","detail":null,"type":"text"}],"metadata":null,"reward":1,"finished":false}}',
      ),
    ]);
    // Completed: replayed identically.
    expect(await framesOf(await call(h, sid, { name: "held", input: {}, task_id: taskId }))).toEqual(frames);
    expect(controls.aborted).toEqual([]);
  });

  it("answers event: error for an unknown task_id and for a task_id of another session", async () => {
    const h = makeHandler();
    const a = await newEpisode(h, { env_name: "qa", split: "train", index: 0 });
    const b = await newEpisode(h, { env_name: "qa", split: "train", index: 1 });
    expect(await framesOf(await call(h, a, { name: "submit", input: {}, task_id: "nope" }))).toEqual([
      ev("task_id", "nope"),
      ev("error", 'unknown task_id "nope" (results are kept 60 s after completion)'),
    ]);
    const mine = taskIdOf(await framesOf(await call(h, a, { name: "counter", input: {} })));
    const stolen = await framesOf(await call(h, b, { name: "counter", input: {}, task_id: mine }));
    expect(stolen).toEqual([ev("task_id", mine), ev("error", expect.stringMatching(/^unknown task_id/))]);
  });

  it("drops results after the linger time", async () => {
    const h = makeHandler({ resultLingerMs: 50, sweepIntervalMs: 10 });
    const sid = await newEpisode(h, { env_name: "qa", split: "train", index: 0 });
    const taskId = taskIdOf(await framesOf(await call(h, sid, { name: "counter", input: {} })));
    expect(h.host.stats().resultsKept).toBe(1);
    await until(() => h.host.stats().resultsKept === 0);
    const frames = await framesOf(await call(h, sid, { name: "counter", input: {}, task_id: taskId }));
    expect(frames[1]).toMatchObject({ kind: "event", event: "error" });
  });

  it("bounds the bytes kept for reconnection, dropping the oldest results first", async () => {
    const h = makeHandler({ resultCacheBytes: 130_000 });
    const sid = await newEpisode(h, { env_name: "qa", split: "train", index: 0 });
    const ids: string[] = [];
    for (let i = 0; i < 5; i++)
      ids.push(taskIdOf(await framesOf(await call(h, sid, { name: "big", input: { size: 50_000 } }))));
    const stats = h.host.stats();
    expect(stats.resultsKept).toBe(2);
    expect(stats.resultBytesKept).toBeLessThanOrEqual(130_000);
    const replay = async (id: string) =>
      (await framesOf(await call(h, sid, { name: "big", input: {}, task_id: id })))[1];
    expect(await replay(ids[0]!)).toMatchObject({ event: "error" });
    expect(await replay(ids[2]!)).toMatchObject({ event: "error" });
    expect(await replay(ids[3]!)).toMatchObject({ event: "chunk" });
    expect(await replay(ids[4]!)).toMatchObject({ event: "chunk" });
  });
});

describe("call limits and teardown", () => {
  it("ends a call past the per-call time limit with event: error, aborts its signal, and the session goes on", async () => {
    const h = makeHandler({ callTimeoutMs: 60 });
    const sid = await newEpisode(h, { env_name: "qa", split: "train", index: 0 });
    const frames = await framesOf(await call(h, sid, { name: "held", input: { label: "slow" } }));
    expect(frames.slice(1)).toEqual([
      ev("error", 'Tool call "held" exceeded the time limit of 60 ms (ORS_CALL_TIMEOUT_MS)'),
    ]);
    expect(controls.aborted).toEqual(["slow"]);
    expect(resultOf(await framesOf(await call(h, sid, { name: "counter", input: {} })))).toMatchObject({
      ok: true,
    });
    // The timed-out result is kept for reconnection like any other.
    const replay = await framesOf(await call(h, sid, { name: "held", input: {}, task_id: taskIdOf(frames) }));
    expect(replay).toEqual(frames);
  });

  it("ends a running call with event: error when its session is deleted", async () => {
    const h = makeHandler();
    const sid = await newEpisode(h, { env_name: "qa", split: "train", index: 0 });
    const pending = call(h, sid, { name: "held", input: {} });
    await until(() => h.host.stats().runsRunning === 1);
    await send(h, "/delete", { sid, method: "POST" });
    const frames = await framesOf(await pending);
    expect(frames.slice(1)).toEqual([ev("error", `Session "${sid}" was deleted`)]);
    expect(controls.aborted).toEqual(["held"]);
  });

  it("close() tears every session down and ends running streams", async () => {
    const h = makeHandler();
    const sid = await newEpisode(h, { env_name: "qa", split: "train", index: 0 });
    const pending = call(h, sid, { name: "held", input: {} });
    await until(() => h.host.stats().runsRunning === 1);
    await h.close();
    const frames = await framesOf(await pending);
    expect(frames[1]).toEqual(ev("error", `Session "${sid}" ended: the server shut down`));
    expect(controls.teardowns).toEqual([sid]);
    await expectError(
      send(h, "/create", { sid: "late", body: { split: "train", index: 0 } }),
      503,
      /shutting down/,
    );
  });
});
