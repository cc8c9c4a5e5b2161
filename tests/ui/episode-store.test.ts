// The episode page's store is a view of the recorded episode: the snapshot and the live feed's
// events build the steps (as in any other tab); this tab's own calls are joined to their steps
// by call id; busy, totals and activity come from the record.
import { describe, expect, it } from "vitest";
import type { SnapshotEvent } from "@/lib/trajectory/feed";
import {
  createEpisodeStore,
  selectBusy,
  selectLastActivity,
  selectPendingCalls,
  selectTotalReward,
} from "@/lib/ui/episode-store";
import { step, trajectory } from "../episodes/helpers";

function open(steps = [step(1, { reward: 1 })]) {
  const store = createEpisodeStore({ server: "py", env: "farm", sid: "s", idleLimitMs: 60_000 });
  const t = trajectory("T", { steps, end_reason: null, ended_at: null, sid: "s", server: "py" });
  const snap: SnapshotEvent = {
    type: "snapshot",
    id: "T",
    trajectory: t,
    last_activity_at: 5_000,
    inflight: [],
  };
  store.getState().loadSnapshot(snap);
  return store;
}

describe("episode store", () => {
  it("builds steps from the snapshot and the feed; totals leave out steps after the end", () => {
    const store = open();
    const s = store.getState();
    expect(s.status).toBe("ready");
    s.applyEvent({
      type: "step",
      id: "T",
      step: step(2, { ok: null, reward: null, ended_at: null, events: [] }),
    });
    expect(selectBusy(store.getState())).toBe(true);
    const ping = {
      type: "frame",
      id: "T",
      index: 2,
      n: 0,
      event: { t: 3, kind: "comment", comment: "ping" },
    } as const;
    s.applyEvent(ping);
    // A frame already applied (a snapshot raced the feed) is not appended twice.
    s.applyEvent(ping);
    expect(store.getState().trajectory!.steps[1]!.events).toHaveLength(1);
    s.applyEvent({ type: "step", id: "T", step: step(2, { reward: 2, finished: true }) });
    s.applyEvent({ type: "ended", id: "T", end_reason: "finished", error: null, ended_at: 9_000 });
    s.applyEvent({ type: "step", id: "T", step: step(3, { reward: 10, after_end: true }) });
    const st = store.getState();
    expect(selectBusy(st)).toBe(false);
    expect(selectTotalReward(st)).toBe(3);
    expect(st.trajectory!.total_reward).toBe(3);
    expect(st.trajectory!.end_reason).toBe("finished");
    // Events of another episode change nothing.
    s.applyEvent({ type: "step", id: "OTHER", step: step(9) });
    expect(store.getState().trajectory!.steps).toHaveLength(3);
  });

  it("joins this tab's call to its step by call id; a refused call stays as a note", () => {
    const store = open([]);
    const s = store.getState();
    s.addCall({ callId: "c-1", tool: "plan", input: { a: 1 } });
    expect(selectPendingCalls(store.getState())).toHaveLength(1);
    expect(selectBusy(store.getState())).toBe(true);
    s.applyEvent({ type: "step", id: "T", callId: "c-1", step: step(1, { ok: null, ended_at: null }) });
    expect(selectPendingCalls(store.getState())).toHaveLength(0);
    expect(store.getState().calls[0]!.index).toBe(1);
    s.addCall({ callId: "c-2", tool: "plan", input: {} });
    s.updateCall("c-2", { watching: false, error: "HTTP 404: Unknown environment" });
    expect(selectPendingCalls(store.getState()).map((c) => c.error)).toEqual([
      "HTTP 404: Unknown environment",
    ]);
    // Letting go of the call in flight frees the tab for another call.
    s.updateCall("c-1", { abandoned: true, watching: false });
    expect(selectBusy(store.getState())).toBe(false);
  });

  it("tracks the session's last activity from pings and steps, from any tab", () => {
    const store = open();
    expect(selectLastActivity(store.getState())).toBe(5_000);
    store.getState().applyEvent({ type: "activity", id: "T", at: 7_000 });
    expect(selectLastActivity(store.getState())).toBe(7_000);
    store
      .getState()
      .applyEvent({ type: "step", id: "T", step: step(2, { started_at: 8_000, ended_at: 8_500 }) });
    expect(selectLastActivity(store.getState())).toBe(8_500);
  });
});
