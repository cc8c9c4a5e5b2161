// The live episode store (zustand, slices): the episode's identity and end, its steps (tool calls)
// and their live SSE streams. Created per provider (one per episode view), read through selectors;
// streams stay here, out of the TanStack Query cache (request/response resources live there).
"use client";

import { createContext, createElement, type ReactNode, useContext, useState } from "react";
import { useStore } from "zustand";
import { createStore, type StateCreator } from "zustand/vanilla";
import type { CallEvent } from "@/lib/ors/client";
import type { JsonObject, RunToolOutput } from "@/lib/ors/protocol";

/** The session's idle limit (spec: 15 minutes without a request and the server tears it down). */
export const SESSION_IDLE_MS = 15 * 60_000;

/** What an episode runs on: a task of a split, or a hand-written task spec. */
export type EpisodeTask = { split: string; index: number } | { task_spec: JsonObject };

/**
 * How an episode ended: `finished` (a tool said so), `user` (End episode → /delete), `expired`
 * (idle too long), `lost` (404/410: the server restarted or someone else deleted it), `error`.
 */
export type EpisodeEndReason = "finished" | "user" | "expired" | "lost" | "error";
export interface EpisodeEnd {
  reason: EpisodeEndReason;
  at: number;
  detail?: string;
}

/** A stream event as kept for display: chunk data is cut to a preview (sizes are kept). */
export type StreamEvent = CallEvent & { preview?: string };

export type StepStatus = "running" | "done" | "error" | "abandoned" | "interrupted";

/** One step of the episode: a tool call, live while it streams, then its result. */
export interface Step {
  id: string;
  tool: string;
  input: JsonObject;
  startedAt: number;
  status: StepStatus;
  taskId?: string;
  events: StreamEvent[];
  /** Bytes (characters) of chunk/end data received so far. */
  received: number;
  result?: RunToolOutput;
  /** Why the call failed (stream error, HTTP error, gave up). */
  error?: string;
  latencyMs?: number;
  /** True when this call was picked up again by its task_id after a reload. */
  resumed?: boolean;
}

export interface EpisodeSlice {
  server: string;
  env: string;
  sid: string;
  task: EpisodeTask | null;
  startedAt: number | null;
  /** When the last request of this session reached the server (ping, call, prompt, ...). */
  lastRequestAt: number | null;
  end: EpisodeEnd | null;
  /** The session was deleted (/delete) by this page. */
  closed: boolean;
  /** Where the step list came from when the page (re)opened. */
  source: "new" | "session-storage" | "trajectory" | "none";
  setTask: (task: EpisodeTask | null) => void;
  touch: (at?: number) => void;
  endEpisode: (reason: EpisodeEndReason, detail?: string) => void;
  markClosed: () => void;
}

export interface StepsSlice {
  steps: Step[];
  beginStep: (
    step: Pick<Step, "id" | "tool" | "input"> & { startedAt?: number; resumed?: boolean; taskId?: string },
  ) => void;
  appendEvent: (id: string, event: CallEvent) => void;
  finishStep: (id: string, result: RunToolOutput, latencyMs: number) => void;
  failStep: (
    id: string,
    status: Exclude<StepStatus, "running" | "done">,
    error: string,
    latencyMs?: number,
  ) => void;
}

export type EpisodeState = EpisodeSlice &
  StepsSlice & {
    /** Replaces the persisted part (used when reopening an episode). */
    hydrate: (snapshot: EpisodeSnapshot, source: EpisodeSlice["source"]) => void;
  };

/** What is persisted and reloaded: everything but the actions. */
export interface EpisodeSnapshot {
  task: EpisodeTask | null;
  startedAt: number | null;
  lastRequestAt: number | null;
  end: EpisodeEnd | null;
  steps: Step[];
  closed?: boolean;
}

const PREVIEW = 120;

const createEpisodeSlice =
  (init: { server: string; env: string; sid: string }): StateCreator<EpisodeState, [], [], EpisodeSlice> =>
  (set, get) => ({
    ...init,
    task: null,
    startedAt: null,
    lastRequestAt: null,
    end: null,
    closed: false,
    source: "none",
    setTask: (task) => set({ task }),
    touch: (at = Date.now()) => {
      const prev = get().lastRequestAt;
      if (prev === null || at > prev) set({ lastRequestAt: at });
    },
    endEpisode: (reason, detail) => {
      if (get().end) return;
      set({ end: { reason, at: Date.now(), detail } });
    },
    markClosed: () => set({ closed: true }),
  });

function updateStep(steps: Step[], id: string, fn: (s: Step) => Step): Step[] {
  const i = steps.findIndex((s) => s.id === id);
  if (i < 0) return steps;
  const next = steps.slice();
  next[i] = fn(steps[i]!);
  return next;
}

const createStepsSlice: StateCreator<EpisodeState, [], [], StepsSlice> = (set) => ({
  steps: [],
  beginStep: ({ id, tool, input, startedAt = Date.now(), resumed, taskId }) =>
    set((s) => {
      const existing = s.steps.find((x) => x.id === id);
      if (existing) {
        // A call picked up again after a reload keeps its place and its earlier events.
        return {
          steps: updateStep(s.steps, id, (x) => ({
            ...x,
            status: "running",
            resumed: resumed ?? x.resumed,
            error: undefined,
          })),
        };
      }
      return {
        steps: [
          ...s.steps,
          { id, tool, input, startedAt, status: "running", events: [], received: 0, resumed, taskId },
        ],
      };
    }),
  appendEvent: (id, event) =>
    set((s) => ({
      steps: updateStep(s.steps, id, (x) => {
        const isData = event.type === "chunk" || event.type === "end";
        const kept: StreamEvent = isData
          ? {
              at: event.at,
              type: event.type,
              size: event.size ?? event.data?.length ?? 0,
              preview: event.data?.slice(0, PREVIEW),
            }
          : event;
        return {
          ...x,
          taskId: event.type === "task_id" ? event.data : x.taskId,
          received: x.received + (isData ? (event.size ?? event.data?.length ?? 0) : 0),
          events: [...x.events, kept],
        };
      }),
    })),
  finishStep: (id, result, latencyMs) =>
    set((s) => ({
      steps: updateStep(s.steps, id, (x) => ({
        ...x,
        status: result.ok ? "done" : "error",
        result,
        error: result.ok ? undefined : result.error,
        latencyMs,
      })),
    })),
  failStep: (id, status, error, latencyMs) =>
    set((s) => ({ steps: updateStep(s.steps, id, (x) => ({ ...x, status, error, latencyMs })) })),
});

export type EpisodeStore = ReturnType<typeof createEpisodeStore>;

/** Creates one episode's store (one per provider, never a module singleton). */
export function createEpisodeStore(init: { server: string; env: string; sid: string }) {
  return createStore<EpisodeState>()((...a) => ({
    ...createEpisodeSlice(init)(...a),
    ...createStepsSlice(...a),
    hydrate: (snapshot, source) => a[0]({ ...snapshot, closed: snapshot.closed ?? false, source }),
  }));
}

/** The persisted part of the state. */
export function snapshotOf(s: EpisodeState): EpisodeSnapshot {
  return {
    task: s.task,
    startedAt: s.startedAt,
    lastRequestAt: s.lastRequestAt,
    end: s.end,
    steps: s.steps,
    closed: s.closed,
  };
}

// ---- Selectors (components read through these) ----

/** Reward of one step (null when the call gave none or failed). */
export function stepReward(step: Step): number | null {
  return step.result?.ok ? (step.result.output.reward ?? null) : null;
}

export const selectSteps = (s: EpisodeState) => s.steps;
export const selectEnd = (s: EpisodeState) => s.end;
export const selectRunningStep = (s: EpisodeState) => s.steps.find((x) => x.status === "running") ?? null;
export const selectIsBusy = (s: EpisodeState) => s.steps.some((x) => x.status === "running");
export const selectLastRequestAt = (s: EpisodeState) => s.lastRequestAt;
export const selectTask = (s: EpisodeState) => s.task;
export const selectCumulativeReward = (s: EpisodeState) =>
  s.steps.reduce((sum, step) => sum + (stepReward(step) ?? 0), 0);

// ---- Provider and hooks (one store per provider) ----

const EpisodeStoreContext = createContext<EpisodeStore | null>(null);

/** Provides a fresh store for one episode (`key` it by server/sid so another episode gets its own). */
export function EpisodeStoreProvider({
  server,
  env,
  sid,
  children,
}: {
  server: string;
  env: string;
  sid: string;
  children: ReactNode;
}) {
  const [store] = useState(() => createEpisodeStore({ server, env, sid }));
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
