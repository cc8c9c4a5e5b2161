// The trajectory recorder: subscribes to the relay's events (lib/relay/events.ts) and writes every
// episode that passes through /api/servers/<name>/... into the store, step by step (a step row is
// written when its call starts and completed when it finishes), and publishes it on the live bus.
// Secrets never reach it: relay events carry none, and it copies only the fields it names.
import "server-only";
import { pendingStep } from "@/lib/episodes/model";
import type { EndReason, StepEvent, TrajectoryStep, TrajectoryTask } from "@/lib/episodes/schema";
import type { RunToolOutput } from "@/lib/ors/protocol";
import type { RelayEvent, RelayEvents } from "@/lib/relay/events";
import type { LiveFeeds } from "./live";
import type { TrajectoryStore } from "./store/sqlite";

interface InflightCall {
  trajectoryId: string;
  step: TrajectoryStep;
}

export interface Recorder {
  /** Handles one relay event (exposed for tests). */
  handle(event: RelayEvent): void;
  /** In-flight steps of a trajectory, with the frames seen so far (for live snapshots). */
  inflight(trajectoryId: string): TrajectoryStep[];
  /** Ends idle episodes and applies retention now. */
  sweep(now?: number): void;
  stop(): void;
}

/**
 * How long a running episode may go without any request before it is ended as `timeout`:
 * PLAYGROUND_IDLE_TIMEOUT_S, else the built-in host's ORS_IDLE_TIMEOUT_MS, else 15 minutes (the
 * spec's idle limit); plus a minute of grace for clocks and in-flight requests.
 */
export function idleTimeoutMs(env: NodeJS.ProcessEnv = process.env): number {
  const s = Number(env.PLAYGROUND_IDLE_TIMEOUT_S);
  if (env.PLAYGROUND_IDLE_TIMEOUT_S && Number.isFinite(s) && s > 0) return s * 1000;
  const ms = Number(env.ORS_IDLE_TIMEOUT_MS);
  const base = env.ORS_IDLE_TIMEOUT_MS && Number.isFinite(ms) && ms > 0 ? ms : 15 * 60_000;
  return base + 60_000;
}

export interface RecorderOptions {
  /** The relay's events to record; without it, events are handed to `handle()` by the caller (tests). */
  events?: RelayEvents;
  /** Where recorded changes are published for watchers. */
  live: LiveFeeds;
  idleMs?: number;
  /** How often idle episodes are ended and retention applied (0: never, by itself). */
  sweepEveryMs?: number;
}

/** Creates a recorder writing to `store` and publishing on `opts.live`. */
export function createRecorder(store: TrajectoryStore, opts: RecorderOptions): Recorder {
  const idleMs = opts.idleMs ?? idleTimeoutMs();
  const publishLive = opts.live.publish;
  const calls = new Map<string, InflightCall>();
  const byTaskId = new Map<string, string>(); // task_id -> callId of the latest call carrying it

  const trajectoryFor = (server: string, sid: string, at: number, env: string | null): string => {
    const running = store.findRunning(server, sid);
    if (running) return running.id;
    const last = store.findBySession(server, sid);
    // Calls after `finished` (the server still accepts them) stay in the same trajectory.
    if (last && last.end_reason === "finished") return last.id;
    // First seen mid-episode (e.g. the app restarted while a remote session lived on).
    const id = store.create({ server, sid, env, task: null, startedAt: at });
    const summary = store.summary(id);
    if (summary) publishLive({ type: "started", id, summary });
    return id;
  };

  const end = (id: string, reason: EndReason, at: number, error: string | null) => {
    if (store.end(id, reason, at, error))
      publishLive({ type: "ended", id, end_reason: reason, error, ended_at: at });
  };

  const finishStep = (call: InflightCall, e: Extract<RelayEvent, { type: "call_finished" }>) => {
    const step = call.step;
    step.ended_at = e.at;
    step.latency_ms = e.latencyMs;
    if (e.taskId && !step.task_id) step.task_id = e.taskId;
    const result: RunToolOutput | undefined = e.result;
    if (result?.ok) {
      step.ok = true;
      step.error = null;
      step.blocks = result.output.blocks;
      step.reward = result.output.reward ?? null;
      step.finished = result.output.finished ?? false;
      step.metadata = result.output.metadata ?? null;
    } else {
      step.ok = false;
      step.error = result && !result.ok ? result.error : (e.error ?? "the call ended without a result");
    }
    store.putStep(call.trajectoryId, step);
    publishLive({ type: "step", id: call.trajectoryId, step: structuredClone(step) });
    if (step.finished) end(call.trajectoryId, "finished", e.at, null);
  };

  const handle = (e: RelayEvent): void => {
    switch (e.type) {
      case "session_created":
        return;
      case "episode_created": {
        const previous = store.findRunning(e.server, e.sid);
        if (previous) end(previous.id, "error", e.at, "the session was created again");
        const task: TrajectoryTask =
          "task_spec" in e.task
            ? { task_spec: e.task.task_spec }
            : { split: e.task.split, index: e.task.index };
        const id = store.create({ server: e.server, sid: e.sid, env: e.env, task, startedAt: e.at });
        const summary = store.summary(id);
        if (summary) publishLive({ type: "started", id, summary });
        return;
      }
      case "prompt": {
        const t = store.findRunning(e.server, e.sid) ?? store.findBySession(e.server, e.sid);
        const id = t?.id ?? trajectoryFor(e.server, e.sid, e.at, e.env);
        store.setEnv(id, e.env);
        if (!store.hasPrompt(id)) {
          store.setPrompt(id, e.blocks, e.at);
          publishLive({ type: "prompt", id, blocks: e.blocks });
        } else store.touch(id, e.at);
        return;
      }
      case "call_started": {
        // A re-post with a saved task_id resumes the same step.
        const resumedCallId = e.resumeOf ?? (e.taskId ? byTaskId.get(e.taskId) : undefined);
        const resumed = resumedCallId ? calls.get(resumedCallId) : undefined;
        if (resumed) {
          calls.delete(resumedCallId!);
          resumed.step.ok = null;
          resumed.step.error = null;
          resumed.step.ended_at = null;
          resumed.step.events.push({
            t: e.at - resumed.step.started_at,
            kind: "comment",
            comment: "relay: resumed",
          });
          calls.set(e.callId, resumed);
          store.putStep(resumed.trajectoryId, resumed.step);
          publishLive({ type: "step", id: resumed.trajectoryId, step: structuredClone(resumed.step) });
          return;
        }
        const trajectoryId = trajectoryFor(e.server, e.sid, e.at, e.env);
        store.setEnv(trajectoryId, e.env);
        const summary = store.summary(trajectoryId);
        const step = pendingStep({
          index: (summary?.num_steps ?? 0) + 1,
          tool: e.tool,
          input: e.input,
          task_id: e.taskId ?? null,
          started_at: e.at,
        });
        calls.set(e.callId, { trajectoryId, step });
        if (e.taskId) byTaskId.set(e.taskId, e.callId);
        store.putStep(trajectoryId, step);
        publishLive({ type: "step", id: trajectoryId, step: structuredClone(step) });
        return;
      }
      case "call_frame": {
        const call = calls.get(e.callId);
        if (!call) return;
        const t = e.at - call.step.started_at;
        const ev: StepEvent =
          e.frame.kind === "event"
            ? { t, kind: "event", event: e.frame.event, data: e.frame.data }
            : { t, kind: "comment", comment: e.frame.comment };
        call.step.events.push(ev);
        if (e.frame.kind === "event" && e.frame.event === "task_id" && e.frame.data) {
          call.step.task_id = e.frame.data;
          byTaskId.set(e.frame.data, e.callId);
        }
        publishLive({ type: "frame", id: call.trajectoryId, index: call.step.index, event: ev });
        return;
      }
      case "call_finished": {
        const call = calls.get(e.callId);
        if (!call) return;
        finishStep(call, e);
        // Keep a broken call resumable by task_id; drop completed ones.
        if (e.result) {
          calls.delete(e.callId);
          if (call.step.task_id && byTaskId.get(call.step.task_id) === e.callId)
            byTaskId.delete(call.step.task_id);
        }
        return;
      }
      case "ping": {
        if (!e.ok) return; // failures arrive as request_failed too
        const t = store.findRunning(e.server, e.sid);
        if (t) store.touch(t.id, e.at);
        return;
      }
      case "session_deleted": {
        const t = store.findRunning(e.server, e.sid);
        if (t) end(t.id, "user_closed", e.at, null);
        return;
      }
      case "request_failed": {
        if (!e.sid) return;
        const t = store.findRunning(e.server, e.sid);
        if (!t) return;
        const detail = e.detail || `HTTP ${e.status}`;
        const idle = e.at - t.last_activity_at > idleMs;
        if (e.status === 410 || /expir|timed? ?out|idle/i.test(detail)) {
          if (e.status === 410 || e.status === 404 || e.status === 408) end(t.id, "timeout", e.at, detail);
        } else if (e.status === 404 && /session/i.test(detail)) {
          if (idle) end(t.id, "timeout", e.at, detail);
          else end(t.id, "error", e.at, `the server lost the session: ${detail}`);
        } else if (e.status >= 500 && e.status !== 502 && e.status !== 504 && /setup/i.test(detail)) {
          end(t.id, "error", e.at, `setup failed: ${detail}`);
        } else if (e.endpoint === "create") {
          end(t.id, "error", e.at, detail);
        }
        return;
      }
    }
  };

  const sweep = (now = Date.now()) => {
    for (const id of store.sweepIdle(now, idleMs)) {
      const s = store.summary(id);
      if (s?.end_reason)
        publishLive({
          type: "ended",
          id,
          end_reason: s.end_reason,
          error: s.error,
          ended_at: s.ended_at ?? now,
        });
    }
    store.enforceRetention(now);
  };

  const unsubscribe = opts.events ? opts.events.subscribe(handle) : () => {};
  const timer = opts.sweepEveryMs === 0 ? null : setInterval(() => sweep(), opts.sweepEveryMs ?? 60_000);
  timer?.unref?.();

  return {
    handle,
    inflight: (trajectoryId) =>
      [...calls.values()]
        .filter((c) => c.trajectoryId === trajectoryId && c.step.ok == null)
        .map((c) => structuredClone(c.step)),
    sweep,
    stop() {
      unsubscribe();
      if (timer) clearInterval(timer);
    },
  };
}
