// The live feed of a recorded episode as watchers receive it (`/api/trajectories/<id>/events`,
// `/api/trajectories/live/events`), and the one function that applies it to a trajectory: every
// view of an episode — its tab, a second tab, the trajectory page — folds the same events into the
// same record. Isomorphic (the recorder publishes these events; the browser applies them).
import type { Block } from "@/lib/ors/protocol";
import { totalReward } from "./model";
import type {
  EndReason,
  ExchangeSummary,
  StepEvent,
  Trajectory,
  TrajectoryStep,
  TrajectorySummary,
} from "./schema";

export type LiveEvent =
  | { type: "started"; id: string; summary: TrajectorySummary }
  | { type: "prompt"; id: string; blocks: Block[] }
  /** The prompt was requested again (by a client other than the playground). */
  | { type: "reprompt"; id: string; at: number; same: boolean }
  /**
   * A step was written: started, resumed or completed (it replaces the step with its index).
   * `callId`: the relay's id of the call that wrote it (a tab names its own calls).
   */
  | { type: "step"; id: string; step: TrajectoryStep; callId?: string }
  /** Frame `n` of step `index`'s events, as it passed (appended when the step has n frames). */
  | { type: "frame"; id: string; index: number; n: number; event: StepEvent }
  /** A request of the session (a ping) reached the server at `at`. */
  | { type: "activity"; id: string; at: number }
  | { type: "ended"; id: string; end_reason: EndReason; error: string | null; ended_at: number }
  /**
   * A request of the session was added to the episode's protocol log: its summary (seq, at, method,
   * path, status, ms); the whole exchange is at `GET /api/trajectories/<id>/exchanges`.
   */
  | ({ type: "exchange"; id: string } & ExchangeSummary);

/** The first event of an episode's feed: the whole record as it stands. */
export interface SnapshotEvent {
  type: "snapshot";
  id: string;
  trajectory: Trajectory;
  /** When the session's last request reached the server. */
  last_activity_at: number;
  /** Indices of steps whose call is passing through the relay now (others left in flight were cut). */
  inflight: number[];
}

export type FeedEvent = SnapshotEvent | LiveEvent;

/** When a step last showed activity (its start, or its end). */
function stepActivity(s: TrajectoryStep): number {
  return s.ended_at ?? s.started_at;
}

/** The latest activity a trajectory shows by itself (steps, start). */
export function lastActivityOf(t: Trajectory): number {
  let at = t.started_at;
  for (const s of t.steps) at = Math.max(at, stepActivity(s));
  return at;
}

/** Applies one live event to a trajectory (pure; events of other trajectories are ignored). */
export function applyFeedEvent(t: Trajectory, e: LiveEvent): Trajectory {
  if (e.id !== t.id) return t;
  switch (e.type) {
    case "started":
    case "activity":
    case "exchange":
      return t;
    case "prompt":
      return { ...t, prompt: e.blocks };
    case "reprompt":
      return { ...t, reprompts: [...(t.reprompts ?? []), { at: e.at, same: e.same }] };
    case "step": {
      const steps = t.steps.filter((s) => s.index !== e.step.index);
      steps.push(e.step);
      steps.sort((a, b) => a.index - b.index);
      return { ...t, steps, total_reward: totalReward(steps) };
    }
    case "frame":
      return {
        ...t,
        steps: t.steps.map((s) =>
          s.index === e.index && s.events.length === e.n ? { ...s, events: [...s.events, e.event] } : s,
        ),
      };
    case "ended":
      return { ...t, end_reason: e.end_reason, error: e.error, ended_at: e.ended_at };
  }
}
