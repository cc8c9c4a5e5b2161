// One step of an episode — one tool call — as a single model from the wire to the store to the
// screen (the trajectory format's TrajectoryStep): how a call's SSE frames and its RunToolOutput
// become a step. The recorder, replay and the episode view all build steps with these functions.
import type { RunToolOutput, SseFrame } from "@/lib/ors/protocol";
import type { StepEvent, TrajectoryStep } from "./schema";

/** `chunk`/`end` data is kept as a preview of this many characters (the result is the step itself). */
export const FRAME_PREVIEW_CHARS = 240;

/** A step as it stands when its call starts: nothing received yet. */
export function pendingStep(
  fields: Pick<TrajectoryStep, "index" | "tool" | "input" | "task_id" | "started_at"> & {
    after_end?: boolean;
  },
): TrajectoryStep {
  const { after_end, ...rest } = fields;
  return {
    ...rest,
    ended_at: null,
    latency_ms: null,
    ok: null,
    error: null,
    blocks: [],
    reward: null,
    finished: false,
    metadata: null,
    events: [],
    ...(after_end ? { after_end: true } : {}),
  };
}

/** A frame as the step keeps it, `t` ms after the call started: result pieces as previews. */
export function stepEvent(frame: SseFrame, t: number): StepEvent {
  if (frame.kind === "comment") return { t, kind: "comment", comment: frame.comment };
  const { event, data } = frame;
  if ((event === "chunk" || event === "end") && data.length > FRAME_PREVIEW_CHARS)
    return { t, kind: "event", event, data: data.slice(0, FRAME_PREVIEW_CHARS), size: data.length };
  return { t, kind: "event", event, data };
}

/** How a call ended: the server's RunToolOutput, or why there is none (stream error, HTTP error ...). */
export type CallOutcome = { result: RunToolOutput } | { error: string };

/** The step once its call has ended at `endedAt` (latency from the call's start, resumes included). */
export function completeStep(step: TrajectoryStep, outcome: CallOutcome, endedAt: number): TrajectoryStep {
  const done: TrajectoryStep = {
    ...step,
    ended_at: endedAt,
    latency_ms: Math.max(0, endedAt - step.started_at),
  };
  if ("error" in outcome) return { ...done, ok: false, error: outcome.error };
  const r = outcome.result;
  if (!r.ok) return { ...done, ok: false, error: r.error };
  return {
    ...done,
    ok: true,
    error: null,
    blocks: r.output.blocks,
    reward: r.output.reward ?? null,
    finished: r.output.finished ?? false,
    metadata: r.output.metadata ?? null,
  };
}

export type StepStatus = "running" | "done" | "error";

export function stepStatus(step: Pick<TrajectoryStep, "ok">): StepStatus {
  return step.ok === null ? "running" : step.ok ? "done" : "error";
}

/** The step's reward (null when the call gave none or failed). */
export function stepReward(step: Pick<TrajectoryStep, "ok" | "reward">): number | null {
  return step.ok ? step.reward : null;
}

/** Characters of result data received so far (the `chunk`/`end` frames). */
export function receivedChars(step: Pick<TrajectoryStep, "events">): number {
  let n = 0;
  for (const e of step.events)
    if (e.kind === "event" && (e.event === "chunk" || e.event === "end")) n += e.size ?? e.data.length;
  return n;
}
