// The recorder turns relay events into trajectories: step-by-step writes, end reasons
// (finished, user_closed, timeout, error), resumed calls, and nothing secret stored.
import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createLiveFeeds } from "@/lib/episodes/live";
import { createRecorder } from "@/lib/episodes/recorder";
import { openStore, type TrajectoryStore } from "@/lib/episodes/store/sqlite";
import type { RelayEvent } from "@/lib/relay/events";
import { tempDir } from "./helpers";

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

function setup(idleMs = 60_000) {
  const dir = tempDir();
  const store = openStore({ dir, retention: { maxCount: 0, maxAgeDays: 0 } });
  const live = createLiveFeeds();
  const rec = createRecorder(store, { live, idleMs, sweepEveryMs: 0 });
  cleanups.push(() => {
    rec.stop();
    store.close();
  });
  return { dir, store, rec, live, h: rec.handle };
}

const result = (reward: number, finished: boolean, text = "ok") => ({
  ok: true as const,
  output: { blocks: [{ type: "text" as const, text }], reward, finished, metadata: { n: 1 } },
});

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
  h({ type: "call_started", server: "local", sid, env: "math", callId, tool: "answer", input: { a: 4 }, at });
  h({
    type: "call_frame",
    server: "local",
    sid,
    callId,
    frame: { kind: "event", event: "task_id", data: `t-${callId}` },
    at: at + 1,
  });
  h({
    type: "call_frame",
    server: "local",
    sid,
    callId,
    frame: { kind: "comment", comment: "ping" },
    at: at + 5,
  });
  h({
    type: "call_finished",
    server: "local",
    sid,
    callId,
    result: result(reward, finished),
    latencyMs: 9,
    at: at + 9,
  });
}

const only = (store: TrajectoryStore) => {
  const { items } = store.list({});
  expect(items).toHaveLength(1);
  return store.get(items[0].id)!;
};

describe("recorder", () => {
  it("records an episode step by step and ends it as finished", () => {
    const { store, h } = setup();
    episode(h, "s1");
    h({
      type: "call_started",
      server: "local",
      sid: "s1",
      env: "math",
      callId: "c1",
      tool: "answer",
      input: { a: 3 },
      at: 2000,
    });
    // The step exists (in flight) as soon as the call starts.
    expect(only(store).steps).toMatchObject([{ index: 1, ok: null, tool: "answer", input: { a: 3 } }]);
    h({
      type: "call_finished",
      server: "local",
      sid: "s1",
      callId: "c1",
      result: result(0, false, "no"),
      latencyMs: 5,
      at: 2005,
    });
    call(h, "s1", "c2", 3000, 1, true);
    const t = only(store);
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
    expect(only(store).end_reason).toBe("finished");
  });

  it("user_closed on /delete, timeout on 410, error when the server lost the session", () => {
    const { store, h } = setup();
    episode(h, "a");
    h({ type: "session_deleted", server: "local", sid: "a", endpoint: "delete", at: 5000 });
    episode(h, "b");
    h({
      type: "request_failed",
      server: "local",
      sid: "b",
      endpoint: "call",
      status: 410,
      detail: "Session was deleted",
      at: 5000,
    });
    episode(h, "c");
    h({
      type: "request_failed",
      server: "local",
      sid: "c",
      endpoint: "call",
      status: 404,
      detail: "Session not found",
      at: 5000,
    });
    episode(h, "d");
    h({
      type: "request_failed",
      server: "local",
      sid: "d",
      endpoint: "call",
      status: 404,
      detail: "Tool not found: x",
      at: 5000,
    });
    h({
      type: "request_failed",
      server: "local",
      sid: "d",
      endpoint: "call",
      status: 502,
      detail: "unreachable",
      at: 5000,
    });
    const reason = (sid: string) => store.findBySession("local", sid)?.end_reason;
    expect(reason("a")).toBe("user_closed");
    expect(reason("b")).toBe("timeout");
    expect(reason("c")).toBe("error");
    expect(store.findBySession("local", "c")?.error).toMatch(/lost the session/);
    expect(reason("d")).toBeNull();
  });

  it("ends episodes idle longer than the idle timeout (server stopped answering)", () => {
    const { store, rec, h } = setup(10_000);
    episode(h, "idle", 1000);
    h({ type: "ping", server: "local", sid: "idle", ok: true, at: 4000 });
    rec.sweep(4000 + 9_000);
    expect(store.findBySession("local", "idle")?.end_reason).toBeNull();
    rec.sweep(4000 + 11_000);
    expect(store.findBySession("local", "idle")).toMatchObject({ end_reason: "timeout", ended_at: 14_000 });
  });

  it("a re-post with the saved task_id continues the same step", () => {
    const { store, h } = setup();
    episode(h, "r");
    h({
      type: "call_started",
      server: "local",
      sid: "r",
      env: "math",
      callId: "c1",
      tool: "answer",
      input: {},
      at: 2000,
    });
    h({
      type: "call_frame",
      server: "local",
      sid: "r",
      callId: "c1",
      frame: { kind: "event", event: "task_id", data: "T" },
      at: 2001,
    });
    h({
      type: "call_finished",
      server: "local",
      sid: "r",
      callId: "c1",
      taskId: "T",
      error: "upstream dropped",
      latencyMs: 3,
      at: 2003,
    });
    expect(only(store).steps[0]).toMatchObject({ ok: false, error: "upstream dropped" });
    h({
      type: "call_started",
      server: "local",
      sid: "r",
      env: "math",
      callId: "c2",
      tool: "answer",
      input: {},
      taskId: "T",
      resumeOf: "c1",
      at: 2100,
    });
    h({
      type: "call_finished",
      server: "local",
      sid: "r",
      callId: "c2",
      taskId: "T",
      result: result(1, false),
      latencyMs: 2,
      at: 2102,
    });
    const t = only(store);
    expect(t.steps).toHaveLength(1);
    expect(t.steps[0]).toMatchObject({ ok: true, reward: 1, error: null });
  });

  it("publishes live events (step, frame, ended) and serves in-flight frames", () => {
    const { store, rec, live, h } = setup();
    const seen: string[] = [];
    cleanups.push(live.subscribe(null, (e) => seen.push(e.type)));
    episode(h, "l");
    const id = store.findBySession("local", "l")!.id;
    h({
      type: "call_started",
      server: "local",
      sid: "l",
      env: "math",
      callId: "c",
      tool: "answer",
      input: {},
      at: 2000,
    });
    h({
      type: "call_frame",
      server: "local",
      sid: "l",
      callId: "c",
      frame: { kind: "comment", comment: "ping" },
      at: 2500,
    });
    expect(rec.inflight(id)[0].events).toEqual([{ t: 500, kind: "comment", comment: "ping" }]);
    h({
      type: "call_finished",
      server: "local",
      sid: "l",
      callId: "c",
      result: result(1, true),
      latencyMs: 600,
      at: 2600,
    });
    expect(rec.inflight(id)).toEqual([]);
    expect(seen).toEqual(["started", "prompt", "step", "frame", "step", "ended"]);
  });

  it("records a session first seen mid-episode with an unknown task", () => {
    const { store, h } = setup();
    call(h, "late", "c1", 1000, 0.5, false);
    expect(only(store)).toMatchObject({ task: null, sid: "late", env: "math", total_reward: 0.5 });
  });

  it("never writes secrets", () => {
    const { dir, store, h } = setup();
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
    store.db.pragma("wal_checkpoint(TRUNCATE)");
    for (const f of fs.readdirSync(dir)) {
      expect(fs.readFileSync(path.join(dir, f)).includes("hunter2-SECRET")).toBe(false);
    }
    expect(JSON.stringify(only(store))).not.toContain("hunter2");
  });
});
