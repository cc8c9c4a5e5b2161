// The episode page's state: a view of the one recorded episode on the server (its trajectory, kept
// current by the live feed) plus what only this tab knows — the calls it is making right now until
// the record shows their steps, the streams it stopped watching, and what its own client saw
// (reconnections). Nothing about the episode itself lives here alone: a reload or a second tab
// rebuilds the same steps from the record. One store per provider, read through selectors.
"use client";

import { createContext, createElement, type ReactNode, useContext, useState } from "react";
import { createStore, type StateCreator, useStore } from "zustand";
import type { CallEvent } from "@/lib/ors/client/call-tool";
import type { JsonObject } from "@/lib/ors/protocol";
import { type LiveEvent, lastActivityOf, type SnapshotEvent } from "@/lib/trajectory/feed";
import { cumulativeRewards, totalReward } from "@/lib/trajectory/model";
import type { Trajectory, TrajectoryStep, TrajectoryTask } from "@/lib/trajectory/schema";
import { DEFAULT_API_BASE } from "./api-base";
import { applyFeedEvents } from "./feed-batch";

export type EpisodeTask = TrajectoryTask;

/** A call this tab made: shown at once, then joined to its step when the record has it. */
export interface LocalCall {
  /** The tab's id of the call, sent to the relay so the recorded step carries it. */
  callId: string;
  tool: string;
  input: JsonObject;
  startedAt: number;
  /** The step it became, once the live feed showed it. */
  index: number | null;
  /** Why it never became a step (the server or the relay refused it), or why this tab's stream failed. */
  error: string | null;
  /** Reconnections and give-ups of this tab's client (only this tab saw them). */
  notes: CallEvent[];
  /** This tab stopped watching the call's stream (the server may still finish it; the record will show it). */
  abandoned: boolean;
  /** This tab's stream of the call is open. */
  watching: boolean;
}

export type FeedStatus = "connecting" | "live" | "closed" | "error";

export interface EpisodeState {
  server: string;
  env: string;
  sid: string;
  /** Where the page's requests go: the playground's API, or a share link's (./api-base.ts). */
  apiBase: string;
  /** The server's session idle limit when the playground knows it (else the countdown shows idle time). */
  idleLimitMs: number | null;
  /** `loading` until the record is found; `missing` when the session has none. */
  status: "loading" | "missing" | "ready";
  missingReason: string | null;
  trajectory: Trajectory | null;
  feed: FeedStatus;
  /** When the session's last request reached the server (from any tab or client). */
  lastActivityAt: number | null;
  /** Steps whose call is passing through the relay now (others left in flight were cut off). */
  inflight: ReadonlySet<number>;
  calls: LocalCall[];
  loadSnapshot: (snapshot: SnapshotEvent) => void;
  applyEvent: (e: LiveEvent) => void;
  /** Applies a batch of live events in one update (a burst of frames re-renders once). */
  applyEvents: (events: readonly LiveEvent[]) => void;
  setFeed: (feed: FeedStatus) => void;
  setMissing: (reason: string) => void;
  addCall: (call: Pick<LocalCall, "callId" | "tool" | "input">) => void;
  updateCall: (callId: string, patch: Partial<Omit<LocalCall, "callId">>) => void;
  touch: (at: number) => void;
}

const createEpisodeState =
  (init: {
    server: string;
    env: string;
    sid: string;
    idleLimitMs: number | null;
    apiBase?: string;
  }): StateCreator<EpisodeState> =>
  (set, get) => ({
    ...init,
    apiBase: init.apiBase ?? DEFAULT_API_BASE,
    status: "loading",
    missingReason: null,
    trajectory: null,
    feed: "connecting",
    lastActivityAt: null,
    inflight: new Set(),
    calls: [],
    loadSnapshot: (snap) =>
      set((s) => ({
        status: "ready",
        trajectory: snap.trajectory,
        lastActivityAt: Math.max(snap.last_activity_at, s.lastActivityAt ?? 0),
        inflight: new Set(snap.inflight),
        calls: joinCalls(s.calls, snap.trajectory, null),
      })),
    applyEvent: (e) => get().applyEvents([e]),
    applyEvents: (events) =>
      set((s) => {
        if (!s.trajectory || events.length === 0) return {};
        const trajectory = applyFeedEvents(s.trajectory, events);
        const patch: Partial<EpisodeState> = { trajectory };
        let inflight: Set<number> | null = null;
        let last = s.lastActivityAt ?? 0;
        let calls = s.calls;
        for (const e of events) {
          if (e.id !== s.trajectory.id) continue;
          if (e.type === "activity") last = Math.max(last, e.at);
          if (e.type === "step") {
            inflight ??= new Set(s.inflight);
            if (e.step.ok === null) inflight.add(e.step.index);
            else inflight.delete(e.step.index);
            last = Math.max(last, e.step.ended_at ?? e.step.started_at);
            if (e.callId) calls = joinCalls(calls, trajectory, { callId: e.callId, index: e.step.index });
          }
        }
        if (inflight) patch.inflight = inflight;
        if (last !== (s.lastActivityAt ?? 0)) patch.lastActivityAt = last;
        if (calls !== s.calls) patch.calls = calls;
        return patch;
      }),
    setFeed: (feed) => set({ feed }),
    setMissing: (reason) => set({ status: "missing", missingReason: reason }),
    addCall: (c) =>
      set((s) => ({
        calls: [
          ...s.calls,
          {
            ...c,
            startedAt: Date.now(),
            index: null,
            error: null,
            notes: [],
            abandoned: false,
            watching: true,
          },
        ],
      })),
    updateCall: (callId, patch) =>
      set((s) => ({ calls: s.calls.map((c) => (c.callId === callId ? { ...c, ...patch } : c)) })),
    touch: (at) => {
      if (at > (get().lastActivityAt ?? 0)) set({ lastActivityAt: at });
    },
  });

/** Joins local calls to their recorded steps; forgets calls whose step has ended and that need no note. */
function joinCalls(
  calls: LocalCall[],
  t: Trajectory,
  joined: { callId: string; index: number } | null,
): LocalCall[] {
  return calls
    .map((c) => (joined && c.callId === joined.callId ? { ...c, index: joined.index } : c))
    .filter((c) => {
      if (c.index === null) return true;
      const step = t.steps.find((s) => s.index === c.index);
      return !step || step.ok === null || c.watching || c.notes.length > 0;
    });
}

export type EpisodeStore = ReturnType<typeof createEpisodeStore>;

/** Creates one episode's store (one per provider, never a module singleton). */
export function createEpisodeStore(init: {
  server: string;
  env: string;
  sid: string;
  idleLimitMs: number | null;
  apiBase?: string;
}) {
  return createStore<EpisodeState>()(createEpisodeState(init));
}

// ---- Selectors (components read through these) ----

const NO_STEPS: TrajectoryStep[] = [];
export const selectSteps = (s: EpisodeState) => s.trajectory?.steps ?? NO_STEPS;
export const selectEndReason = (s: EpisodeState) => s.trajectory?.end_reason ?? null;
export const selectEnded = (s: EpisodeState) => (s.trajectory?.end_reason ?? null) !== null;
export const selectTask = (s: EpisodeState) => s.trajectory?.task ?? null;
export const selectTotalReward = (s: EpisodeState) => (s.trajectory ? totalReward(s.trajectory.steps) : 0);
/** Calls this tab made that the record does not show yet (or that were refused before becoming steps). */
export const selectPendingCalls = (s: EpisodeState) => s.calls.filter((c) => c.index === null);
/** A call is in flight that this tab has not let go of: new calls wait. */
export const selectBusy = (s: EpisodeState) =>
  s.calls.some((c) => c.index === null && c.error === null && !c.abandoned && c.watching) ||
  (s.trajectory?.steps ?? NO_STEPS).some(
    (st) =>
      st.ok === null && s.inflight.has(st.index) && !s.calls.some((c) => c.index === st.index && c.abandoned),
  );
/** When the episode last showed activity: the session's last request, or its steps. */
export const selectLastActivity = (s: EpisodeState) =>
  s.trajectory ? Math.max(s.lastActivityAt ?? 0, lastActivityOf(s.trajectory)) : null;

/** Cumulative reward after each step (steps after the end add nothing). */
export function cumulativeOf(steps: TrajectoryStep[]): number[] {
  return cumulativeRewards(steps);
}

// ---- Provider and hooks (one store per provider) ----

const EpisodeStoreContext = createContext<EpisodeStore | null>(null);

/** Provides a fresh store for one episode (`key` it by server/sid so another episode gets its own). */
export function EpisodeStoreProvider({
  server,
  env,
  sid,
  idleLimitMs,
  apiBase,
  children,
}: {
  server: string;
  env: string;
  sid: string;
  idleLimitMs: number | null;
  /** A share link's API (`/api/play/<token>`) instead of the playground's. */
  apiBase?: string;
  children: ReactNode;
}) {
  const [store] = useState(() => createEpisodeStore({ server, env, sid, idleLimitMs, apiBase }));
  return createElement(EpisodeStoreContext.Provider, { value: store }, children);
}

/** The store itself, for hooks that act on it (`getState()`, `subscribe`). */
export function useEpisodeStoreApi(): EpisodeStore {
  const store = useContext(EpisodeStoreContext);
  if (!store) throw new Error("useEpisodeStore must be used inside <EpisodeStoreProvider>");
  return store;
}

/** Reads the episode store through a selector (re-renders only when the selected value changes). */
export function useEpisodeStore<T>(selector: (s: EpisodeState) => T): T {
  return useStore(useEpisodeStoreApi(), selector);
}
