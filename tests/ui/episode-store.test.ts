import { describe, expect, it } from "vitest";
import { OrsClientError } from "@/lib/ors/client";
import {
  createEpisodeStore,
  SESSION_IDLE_MS,
  selectCumulativeReward,
  snapshotOf,
} from "@/lib/ui/episode-store";
import { sessionEndFor, snapshotFromTrajectory } from "@/lib/ui/use-episode";

describe("episode store", () => {
  it("records a streamed call as a step and sums rewards", () => {
    const store = createEpisodeStore({ server: "local", env: "guess", sid: "s1" });
    const s = () => store.getState();
    s().beginStep({ id: "a", tool: "guess", input: { number: 50 }, startedAt: 1000 });
    s().appendEvent("a", { at: 1001, type: "task_id", data: "t-1" });
    s().appendEvent("a", { at: 1500, type: "ping", data: "ping" });
    s().appendEvent("a", { at: 2000, type: "chunk", data: "x".repeat(4096), size: 4096 });
    s().appendEvent("a", { at: 2001, type: "end", data: "y".repeat(10), size: 10 });
    expect(s().steps[0]).toMatchObject({ status: "running", taskId: "t-1", received: 4106 });
    expect(s().steps[0]!.events[2]!.preview).toHaveLength(120);
    s().finishStep("a", { ok: true, output: { blocks: [], reward: 0.5, finished: false } }, 1001);
    s().beginStep({ id: "b", tool: "guess", input: { number: 75 } });
    s().finishStep("b", { ok: true, output: { blocks: [], reward: 0.25, finished: true } }, 10);
    s().beginStep({ id: "c", tool: "guess", input: { number: 1 } });
    s().failStep("c", "abandoned", "abandoned");
    expect(selectCumulativeReward(s())).toBe(0.75);
    expect(s().steps.map((x) => x.status)).toEqual(["done", "done", "abandoned"]);
    s().endEpisode("finished");
    s().endEpisode("user"); // the first end stands
    expect(s().end?.reason).toBe("finished");
    const snap = snapshotOf(s());
    const again = createEpisodeStore({ server: "local", env: "guess", sid: "s1" });
    again.getState().hydrate(snap, "session-storage");
    expect(again.getState().steps).toHaveLength(3);
    expect(again.getState().source).toBe("session-storage");
  });

  it("re-running a step id (pick-up after reload) keeps its place and events", () => {
    const store = createEpisodeStore({ server: "local", env: "slow", sid: "s2" });
    store.getState().beginStep({ id: "a", tool: "wait", input: {} });
    store.getState().appendEvent("a", { at: 1, type: "task_id", data: "t" });
    store.getState().failStep("a", "interrupted", "reload");
    store.getState().beginStep({ id: "a", tool: "wait", input: {}, resumed: true });
    expect(store.getState().steps).toHaveLength(1);
    expect(store.getState().steps[0]).toMatchObject({ status: "running", resumed: true, error: undefined });
    expect(store.getState().steps[0]!.events).toHaveLength(1);
  });
});

describe("session end classification", () => {
  const now = Date.now();
  it("404/410 end the episode: expired after the idle limit, else lost", () => {
    expect(
      sessionEndFor(new OrsClientError("http", 404, "Session not found"), now - SESSION_IDLE_MS - 1000)
        ?.reason,
    ).toBe("expired");
    expect(sessionEndFor(new OrsClientError("http", 404, "Session not found"), now - 5000)?.reason).toBe(
      "lost",
    );
    expect(sessionEndFor(new OrsClientError("http", 410, "Session was deleted"), now)?.reason).toBe("lost");
    expect(sessionEndFor(new OrsClientError("http", 404, "Tool not found: nope"), now)).toBeNull();
    expect(sessionEndFor(new OrsClientError("http", 500, "boom"), now)).toBeNull();
    expect(sessionEndFor(new Error("x"), now)).toBeNull();
  });
});

describe("snapshotFromTrajectory", () => {
  it("maps a recorded trajectory onto steps, events and the end", () => {
    const snap = snapshotFromTrajectory({
      format: "ors-trajectory/1",
      id: "t1",
      server: "local",
      env: "guess",
      sid: "s",
      task: { split: "train", index: 3 },
      prompt: null,
      steps: [
        {
          index: 1,
          tool: "guess",
          input: { number: 50 },
          task_id: "tid",
          started_at: 1000,
          ended_at: 1100,
          latency_ms: 100,
          ok: true,
          error: null,
          blocks: [{ type: "text", text: "higher" }],
          reward: 0,
          finished: false,
          metadata: null,
          events: [
            { t: 1, kind: "event", event: "task_id", data: "tid" },
            { t: 50, kind: "comment", comment: "ping" },
            { t: 99, kind: "event", event: "end", data: '{"ok":true}' },
          ],
        },
        {
          index: 2,
          tool: "guess",
          input: { number: 75 },
          task_id: "tid2",
          started_at: 2000,
          ended_at: null,
          latency_ms: null,
          ok: null,
          error: null,
          blocks: [],
          reward: null,
          finished: false,
          metadata: null,
          events: [],
        },
      ],
      total_reward: 0,
      started_at: 900,
      ended_at: null,
      end_reason: null,
      error: null,
    });
    expect(snap.task).toEqual({ split: "train", index: 3 });
    expect(snap.steps.map((s) => s.status)).toEqual(["done", "interrupted"]);
    expect(snap.steps[0]!.events.map((e) => e.type)).toEqual(["task_id", "ping", "end"]);
    expect(snap.steps[0]!.received).toBe(11);
    expect(snap.steps[1]!.taskId).toBe("tid2");
    expect(snap.steps[1]!.error).toMatch(/Not finished/);
    expect(snap.end).toBeNull();
    expect(snap.lastRequestAt).toBe(2000);
  });
});
