// The recorder turns relay events into trajectories: step-by-step writes, end reasons
// (finished, user_closed, timeout, error), resumed calls, and nothing secret stored.
import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createLiveFeeds } from "@/lib/episodes/live";
import { createRecorder, type Recorder } from "@/lib/episodes/recorder";
import type { RelayEvent } from "@/lib/relay/events";
import { openStore, type SqliteTrajectoryStore } from "@/lib/store/sqlite/store";
import { tempDir } from "./helpers";

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

function setup(idleMs = 60_000) {
  const dir = tempDir();
  const store = openStore({ dir, retention: { maxCount: 0, maxAgeDays: 0 } });
  const live = createLiveFeeds();
  const liveness: string[] = [];
  const rec = createRecorder(store, {
    live,
    idleMs,
    sweepEveryMs: 0,
    checkLiveness: (server, sid) => liveness.push(`${server}/${sid}`),
  });
  cleanups.push(() => {
    rec.stop();
    void store.close();
  });
  current = rec;
  stores.set(rec.handle, store);
  const session = async (sid: string) => {
    await rec.idle();
    return store.findBySession("local", sid);
  };
  return { dir, store, rec, live, liveness, session, h: rec.handle };
}

const result = (reward: number, finished: boolean, text = "ok") => ({
  ok: true as const,
  output: { blocks: [{ type: "text" as const, text }], reward, finished, metadata: { n: 1 } },
});

type CallEvent<T extends RelayEvent["type"]> = Omit<
  Extract<RelayEvent, { type: T }>,
  "type" | "server" | "sid" | "callId" | "at"
>;

/** A call's relay events on session `sid` of the server "local" (env "math", tool "answer"). */
function callStarted(
  h: (e: RelayEvent) => void,
  sid: string,
  callId: string,
  at: number,
  over: Partial<CallEvent<"call_started">> = {},
) {
  h({
    type: "call_started",
    server: "local",
    sid,
    env: "math",
    callId,
    tool: "answer",
    input: {},
    at,
    ...over,
  });
}

function callFrame(
  h: (e: RelayEvent) => void,
  sid: string,
  callId: string,
  at: number,
  frame: CallEvent<"call_frame">["frame"],
) {
  h({ type: "call_frame", server: "local", sid, callId, frame, at });
}

function callFinished(
  h: (e: RelayEvent) => void,
  sid: string,
  callId: string,
  at: number,
  end: CallEvent<"call_finished">,
) {
  h({ type: "call_finished", server: "local", sid, callId, at, ...end });
}

function episode(h: (e: RelayEvent) => void, sid: string, at = 1000) {
  h({ type: "session_created", server: "local", sid, at });
  h({
    type: "episode_created",
    server: "local",
    sid,
    env: "math",
    task: { split: "train", index: 4 },
    at: at + 1,
  });
  h({
    type: "prompt",
    server: "local",
    sid,
    env: "math",
    blocks: [{ type: "text", text: "2+2?" }],
    at: at + 2,
  });
}

function call(
  h: (e: RelayEvent) => void,
  sid: string,
  callId: string,
  at: number,
  reward: number,
  finished: boolean,
) {
  callStarted(h, sid, callId, at, { input: { a: 4 } });
  callFrame(h, sid, callId, at + 1, { kind: "event", event: "task_id", data: `t-${callId}` });
  callFrame(h, sid, callId, at + 5, { kind: "comment", comment: "ping" });
  callFinished(h, sid, callId, at + 9, { result: result(reward, finished), latencyMs: 9 });
}

let current: Recorder | null = null;
const stores = new WeakMap<(e: RelayEvent) => void, SqliteTrajectoryStore>();
const store_ = (h: (e: RelayEvent) => void) => stores.get(h)!;
const only = async (store: SqliteTrajectoryStore) => {
  await current?.idle();
  const { items } = await store.list({});
  expect(items).toHaveLength(1);
  return (await store.get(items[0]!.id))!;
};

describe("recorder", () => {
  it("records an episode step by step and ends it as finished", async () => {
    const { store, h } = setup();
    episode(h, "s1");
    callStarted(h, "s1", "c1", 2000, { input: { a: 3 } });
    // The step exists (in flight) as soon as the call starts.
    expect((await only(store)).steps).toMatchObject([
      { index: 1, ok: null, tool: "answer", input: { a: 3 } },
    ]);
    callFinished(h, "s1", "c1", 2005, { result: result(0, false, "no"), latencyMs: 5 });
    call(h, "s1", "c2", 3000, 1, true);
    const t = await only(store);
    expect(t).toMatchObject({
      server: "local",
      env: "math",
      sid: "s1",
      task: { split: "train", index: 4 },
      prompt: [{ type: "text", text: "2+2?" }],
      total_reward: 1,
      end_reason: "finished",
      ended_at: 3009,
    });
    expect(t.steps[1]).toMatchObject({
      index: 2,
      ok: true,
      reward: 1,
      finished: true,
      latency_ms: 9,
      task_id: "t-c2",
      metadata: { n: 1 },
      events: [
        { t: 1, kind: "event", event: "task_id", data: "t-c2" },
        { t: 5, kind: "comment", comment: "ping" },
      ],
    });
    // A /delete after `finished` keeps `finished`.
    h({ type: "session_deleted", server: "local", sid: "s1", endpoint: "delete", at: 4000 });
    expect((await only(store)).end_reason).toBe("finished");
  });

  it("ends by status: user_closed on /delete and on 410, error when /ping says the session is lost, timeout when idle past the limit", async () => {
    const { h, session, liveness } = setup();
    const failed = (sid: string, endpoint: string, status: number, detail: string, at = 5000) =>
      h({ type: "request_failed", server: "local", sid, endpoint, status, detail, at });
    episode(h, "a");
    h({ type: "session_deleted", server: "local", sid: "a", endpoint: "delete", at: 5000 });
    episode(h, "b");
    failed("b", "call", 410, "Session was deleted");
    // A 404 on /call may be an unknown tool or environment: the server is asked (/ping) first.
    episode(h, "c");
    failed("c", "call", 404, "Tool not found: x");
    failed("c", "call", 502, "unreachable");
    expect((await session("c"))?.end_reason).toBeNull();
    expect(liveness).toEqual(["local/c"]);
    // ...and its /ping's 404 decides: not idle long, so the server lost it.
    failed("c", "ping", 404, "Session not found");
    // Idle past the spec's 15 minutes: expired.
    episode(h, "d", 1000);
    failed("d", "ping", 404, "Session not found", 1000 + 16 * 60_000);
    // A setup failure (a 5xx before any prompt or call succeeded) and a refused /create.
    h({ type: "session_created", server: "local", sid: "e", at: 1 });
    h({
      type: "episode_created",
      server: "local",
      sid: "e",
      env: "math",
      task: { task_spec: { x: 1 } },
      at: 2,
    });
    failed("e", "prompt", 500, "ValueError: the task_spec has no question");
    const reason = async (sid: string) => (await session(sid))?.end_reason;
    expect(await reason("a")).toBe("user_closed");
    expect(await reason("b")).toBe("user_closed");
    expect((await session("b"))?.error).toMatch(/deleted elsewhere/);
    expect(await reason("c")).toBe("error");
    expect((await session("c"))?.error).toMatch(/lost the session/);
    expect(await reason("d")).toBe("timeout");
    expect(await reason("e")).toBe("error");
    expect((await session("e"))?.error).toBe("setup failed: ValueError: the task_spec has no question");
  });

  it("ends episodes idle longer than the idle timeout (server stopped answering)", async () => {
    const { store, rec, h } = setup(10_000);
    episode(h, "idle", 1000);
    h({ type: "ping", server: "local", sid: "idle", ok: true, at: 4000 });
    await rec.sweep(4000 + 9_000);
    expect((await store.findBySession("local", "idle"))?.end_reason).toBeNull();
    await rec.sweep(4000 + 11_000);
    expect(await store.findBySession("local", "idle")).toMatchObject({
      end_reason: "timeout",
      ended_at: 14_000,
    });
  });

  it("a re-post with the saved task_id continues the same step", async () => {
    const { store, h } = setup();
    episode(h, "r");
    callStarted(h, "r", "c1", 2000);
    callFrame(h, "r", "c1", 2001, { kind: "event", event: "task_id", data: "T" });
    callFinished(h, "r", "c1", 2003, { taskId: "T", error: "upstream dropped", latencyMs: 3 });
    expect((await only(store)).steps[0]).toMatchObject({ ok: false, error: "upstream dropped" });
    callStarted(h, "r", "c2", 2100, { taskId: "T", resumeOf: "c1" });
    callFinished(h, "r", "c2", 2102, { taskId: "T", result: result(1, false), latencyMs: 2 });
    const t = await only(store);
    expect(t.steps).toHaveLength(1);
    // The latency is the call's true one, from its first post to the result.
    expect(t.steps[0]).toMatchObject({ ok: true, reward: 1, error: null, latency_ms: 102, ended_at: 2102 });
    expect(t.steps[0]!.events.map((e) => (e.kind === "comment" ? e.comment : e.event))).toEqual([
      "task_id",
      "relay: resumed",
    ]);
  });

  it("publishes live events (step, frame, ended) and serves in-flight frames", async () => {
    const { rec, live, h, session } = setup();
    const seen: string[] = [];
    cleanups.push(live.subscribe(null, (e) => seen.push(e.type)));
    episode(h, "l");
    const id = (await session("l"))!.id;
    callStarted(h, "l", "c", 2000);
    callFrame(h, "l", "c", 2500, { kind: "comment", comment: "ping" });
    await rec.idle();
    expect(rec.inflight(id)[0]!.events).toEqual([{ t: 500, kind: "comment", comment: "ping" }]);
    callFinished(h, "l", "c", 2600, { result: result(1, true), latencyMs: 600 });
    await rec.idle();
    expect(rec.inflight(id)).toEqual([]);
    expect(seen).toEqual(["started", "prompt", "step", "frame", "step", "ended"]);
  });

  it("keeps calls made after finished as steps after the end, out of the total and of ended_at", async () => {
    const { h } = setup();
    episode(h, "f");
    call(h, "f", "c1", 2000, 1, true);
    call(h, "f", "c2", 3000, 5, false);
    const t = await only(store_(h));
    expect(t).toMatchObject({ end_reason: "finished", ended_at: 2009, total_reward: 1 });
    expect(t.steps.map((x) => [x.index, x.reward, x.after_end ?? false])).toEqual([
      [1, 1, false],
      [2, 5, true],
    ]);
  });

  it("records a prompt requested again, and whether it was the same", async () => {
    const { h } = setup();
    episode(h, "p");
    h({
      type: "prompt",
      server: "local",
      sid: "p",
      env: "math",
      blocks: [{ type: "text", text: "2+2?" }],
      at: 10,
    });
    h({
      type: "prompt",
      server: "local",
      sid: "p",
      env: "math",
      blocks: [{ type: "text", text: "new world" }],
      at: 20,
    });
    const t = await only(store_(h));
    expect(t.prompt).toEqual([{ type: "text", text: "2+2?" }]);
    expect(t.reprompts).toEqual([
      { at: 10, same: true },
      { at: 20, same: false },
    ]);
  });

  it("keeps a large result once: its frames are previews with their size", async () => {
    const { h } = setup();
    episode(h, "big");
    const text = "x".repeat(10_000);
    const json = JSON.stringify(result(1, false, text));
    callStarted(h, "big", "c", 5, { tool: "dump" });
    callFrame(h, "big", "c", 6, { kind: "event", event: "chunk", data: json.slice(0, 4096) });
    callFrame(h, "big", "c", 7, { kind: "event", event: "end", data: json.slice(4096) });
    callFinished(h, "big", "c", 8, { result: result(1, false, text), latencyMs: 2 });
    const [s1] = (await only(store_(h))).steps;
    expect(s1!.blocks).toEqual([{ type: "text", text }]);
    const sizes = s1!.events.map((e) => (e.kind === "event" ? [e.event, e.data.length, e.size] : []));
    expect(sizes).toEqual([
      ["chunk", 240, 4096],
      ["end", 240, json.length - 4096],
    ]);
  });

  it("records a session first seen mid-episode with an unknown task", async () => {
    const { store, h } = setup();
    call(h, "late", "c1", 1000, 0.5, false);
    expect(await only(store)).toMatchObject({ task: null, sid: "late", env: "math", total_reward: 0.5 });
  });

  it("never writes secrets", async () => {
    const { dir, store, rec, h } = setup();
    // Even if an event carried more than the contract says, only named fields are copied.
    h({
      type: "episode_created",
      server: "local",
      sid: "sec",
      env: "secret",
      task: { split: "train", index: 0, secrets: { API: "hunter2-SECRET" } } as never,
      secrets: { API: "hunter2-SECRET" },
      at: 1,
    } as never);
    call(h, "sec", "c", 2, 1, true);
    await rec.idle();
    store.db.pragma("wal_checkpoint(TRUNCATE)");
    for (const f of fs.readdirSync(dir)) {
      expect(fs.readFileSync(path.join(dir, f)).includes("hunter2-SECRET")).toBe(false);
    }
    expect(JSON.stringify(await only(store))).not.toContain("hunter2");
  });
});
