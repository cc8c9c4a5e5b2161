// The recorder's first half: what each relay event (lib/relay/events.ts) changes in the store and
// tells the live feeds — an episode started, its prompt, the tools it is played with, a call's step
// from its start through its frames to its result, activity, its end. It keeps in memory only the
// calls in flight (and where recent task ids lead, so a re-post with a saved task_id continues its
// step); ./record-queue.ts decides when events are applied and committed.
import "server-only";
import type { Block, ToolSpec } from "@/lib/ors/protocol";
import type { RelayEvent } from "@/lib/relay/events";
import { readAgent, readClientTag, readRunTag, readStepOrigin } from "../relay/annotations";
import { stableStringify } from "../trajectory/diff";
import { CHECK_LIVENESS, endForFailure } from "../trajectory/end-reason";
import type { TrajectoryStep, TrajectorySummary, TrajectoryTask } from "../trajectory/schema";
import {
  capStep,
  completeStep,
  type FrameBudget,
  frameBudget,
  keepFrame,
  pendingStep,
  stepEvent,
} from "../trajectory/step";
import type { EpisodeLifecycle } from "./lifecycle";
import type { ProtocolLog } from "./protocol-log";
import type { RecordingStore } from "./record-writes";

type Of<T extends RelayEvent["type"]> = Extract<RelayEvent, { type: T }>;

interface Call {
  trajectoryId: string;
  step: TrajectoryStep;
  /** The relay's id of the exchange now carrying the call (a resume brings a new one). */
  callId: string;
  /** Step-size cap: the frames kept so far and those left out. */
  frames: FrameBudget;
}

export interface ApplyOptions {
  /** The store, its hot writes gathered per batch, and the live feeds told after them. */
  store: RecordingStore;
  lifecycle: Pick<EpisodeLifecycle, "end">;
  exchanges: ProtocolLog;
  maxStepBytes: number;
  idleLimitOf?: (server: string) => Promise<number | null> | number | null;
  checkLiveness?: (server: string, sid: string) => void;
}

export interface EventApplier {
  apply(e: RelayEvent): Promise<void>;
  /** Steps of a trajectory whose calls pass through this process now, with their frames so far. */
  inflight(trajectoryId: string): TrajectoryStep[];
}

/** Recent steps by task_id, so a re-post with a saved task_id continues its step. */
const MAX_TASKS = 10_000;
/** The tool specs last seen per server and environment (given to episodes that start there). */
const MAX_TOOL_SETS = 256;

/** A bounded map: most recent last, the oldest evicted first. */
function remember<K, V>(m: Map<K, V>, key: K, value: V, max: number): void {
  m.delete(key);
  m.set(key, value);
  if (m.size > max) m.delete(m.keys().next().value!);
}

/** What the handlers below share: the options, and what is kept in memory. */
interface State {
  o: ApplyOptions;
  store: RecordingStore;
  /** relay callId → the call's step. */
  calls: Map<string, Call>;
  /**
   * server/sid/task_id → the step of the latest call with that task_id. Only where the step is: a
   * finished call's step (its result, possibly megabytes) is not kept in memory for a resume.
   */
  byTaskId: Map<string, { trajectoryId: string; index: number }>;
  /**
   * server/env → the tools the relay last saw listed there: an episode starting there was most
   * likely shown them (its own /task_tools, when asked, replaces them).
   */
  toolsSeen: Map<string, ToolSpec[]>;
}

const envKey = (server: string, env: string | null) => `${server}\n${env ?? ""}`;
const taskKey = (server: string, sid: string, taskId: string) => `${server}\n${sid}\n${taskId}`;

function rememberTask(s: State, key: string, call: Call): void {
  remember(s.byTaskId, key, { trajectoryId: call.trajectoryId, index: call.step.index }, MAX_TASKS);
}

async function startTrajectory(
  s: State,
  server: string,
  sid: string,
  env: string | null,
  task: TrajectoryTask | null,
  at: number,
  annotations: { run?: unknown; client?: unknown } = {},
): Promise<string> {
  const id = await s.store.create({
    server,
    sid,
    env,
    task,
    startedAt: at,
    run: readRunTag(annotations.run),
    client: readClientTag(annotations.client),
    tools: s.toolsSeen.get(envKey(server, env)) ?? null,
  });
  const summary = await s.store.summary(id);
  if (summary) s.store.publish({ type: "started", id, summary });
  return id;
}

/** The trajectory a request of this session belongs to; one is started if it was first seen mid-episode. */
async function trajectoryOf(
  s: State,
  server: string,
  sid: string,
  env: string | null,
  at: number,
): Promise<TrajectorySummary> {
  const running = await s.store.findRunning(server, sid);
  if (running) return running;
  const last = await s.store.findBySession(server, sid);
  // Calls after `finished` (the server still takes them) stay with their episode, marked as after it.
  if (last && last.end_reason === "finished") return last;
  const id = await startTrajectory(s, server, sid, env, null, at);
  return (await s.store.summary(id))!;
}

/** The call of a remembered step: still in flight, or read back from the store. */
async function callOf(
  s: State,
  ref: { trajectoryId: string; index: number } | undefined,
): Promise<Call | undefined> {
  if (!ref) return undefined;
  for (const c of s.calls.values())
    if (c.trajectoryId === ref.trajectoryId && c.step.index === ref.index) return c;
  const step = (await s.store.get(ref.trajectoryId))?.steps.find((x) => x.index === ref.index);
  return step ? { trajectoryId: ref.trajectoryId, step, callId: "", frames: frameBudget() } : undefined;
}

async function putStep(s: State, call: Call) {
  await s.store.putStep(call.trajectoryId, call.step);
  s.store.publish({
    type: "step",
    id: call.trajectoryId,
    step: structuredClone(call.step),
    callId: call.callId,
  });
}

async function episodeCreated(s: State, e: Of<"episode_created">) {
  const previous = await s.store.findRunning(e.server, e.sid);
  if (previous) await s.o.lifecycle.end(previous.id, "error", e.at, "the session was created again");
  const task: TrajectoryTask =
    "task_spec" in e.task ? { task_spec: e.task.task_spec } : { split: e.task.split, index: e.task.index };
  const id = await startTrajectory(s, e.server, e.sid, e.env, task, e.at, e);
  await s.o.exchanges.started(id, e.server, e.sid, e.env, e.at);
}

async function tools(s: State, e: Of<"tools">) {
  remember(s.toolsSeen, envKey(e.server, e.env), e.tools, MAX_TOOL_SETS);
  if (!e.sid) return;
  const t = await s.store.findRunning(e.server, e.sid);
  if (t) await s.store.setTools(t.id, e.tools);
}

async function prompt(s: State, e: Of<"prompt">) {
  const t = await trajectoryOf(s, e.server, e.sid, e.env, e.at);
  if (e.env && t.env === null) await s.store.setEnv(t.id, e.env);
  if (!(await s.store.hasPrompt(t.id))) {
    await s.store.setPrompt(t.id, e.blocks, e.at);
    s.store.publish({ type: "prompt", id: t.id, blocks: e.blocks });
    return;
  }
  // Asked again (by a client other than the playground, which reads the recorded prompt).
  const first = (await s.store.get(t.id))?.prompt ?? null;
  const same = first !== null && stableStringify(first) === stableStringify(e.blocks as Block[]);
  await s.store.addReprompt(t.id, e.at, same);
  s.store.publish({ type: "reprompt", id: t.id, at: e.at, same });
}

/** A re-post with a saved task_id continues its step (the true latency counts from its start). */
async function resume(s: State, e: Of<"call_started">, resumed: Call) {
  s.calls.set(e.callId, resumed);
  resumed.callId = e.callId;
  const step = resumed.step;
  resumed.step = {
    ...step,
    ok: null,
    error: null,
    ended_at: null,
    latency_ms: null,
    events: [...step.events, { t: e.at - step.started_at, kind: "comment", comment: "relay: resumed" }],
  };
  await putStep(s, resumed);
}

async function callStarted(s: State, e: Of<"call_started">) {
  const key = e.taskId ? taskKey(e.server, e.sid, e.taskId) : null;
  const resumed = key ? await callOf(s, s.byTaskId.get(key)) : undefined;
  if (resumed) return resume(s, e, resumed);
  const t = await trajectoryOf(s, e.server, e.sid, e.env, e.at);
  if (e.env && t.env === null) await s.store.setEnv(t.id, e.env);
  const agent = e.agent === undefined ? null : readAgent(e.agent);
  const origin = e.origin === undefined ? null : readStepOrigin(e.origin);
  const step = pendingStep({
    index: t.num_steps + 1,
    tool: e.tool,
    input: e.input,
    task_id: e.taskId ?? null,
    started_at: e.at,
    after_end: t.end_reason === "finished",
    ...(agent ? { agent } : {}),
  });
  if (origin) step.origin = origin;
  const call: Call = { trajectoryId: t.id, step, callId: e.callId, frames: frameBudget() };
  s.calls.set(e.callId, call);
  if (key) rememberTask(s, key, call);
  await putStep(s, call);
}

function callFrame(s: State, e: Of<"call_frame">) {
  const call = s.calls.get(e.callId);
  if (!call) return;
  const ev = stepEvent(e.frame, e.at - call.step.started_at);
  if (!keepFrame(call.frames, ev, s.o.maxStepBytes)) return; // step-size cap
  call.step.events.push(ev);
  if (e.frame.kind === "event" && e.frame.event === "task_id" && e.frame.data) {
    call.step.task_id = e.frame.data.trim();
    rememberTask(s, taskKey(e.server, e.sid, call.step.task_id), call);
  }
  s.store.publish({
    type: "frame",
    id: call.trajectoryId,
    index: call.step.index,
    n: call.step.events.length - 1,
    event: ev,
  });
}

async function callFinished(s: State, e: Of<"call_finished">) {
  const call = s.calls.get(e.callId);
  if (!call) return;
  s.calls.delete(e.callId);
  if (e.taskId && !call.step.task_id) call.step.task_id = e.taskId;
  const outcome = e.result ? { result: e.result } : { error: e.error ?? "the call ended without a result" };
  call.step = capStep(completeStep(call.step, outcome, e.at), s.o.maxStepBytes, call.frames);
  await putStep(s, call);
  if (call.step.finished && !call.step.after_end)
    await s.o.lifecycle.end(call.trajectoryId, "finished", e.at, null);
}

async function ping(s: State, e: Of<"ping">) {
  if (!e.ok) return;
  const t = await s.store.findRunning(e.server, e.sid);
  if (!t) return;
  await s.store.touch(t.id, e.at);
  s.store.publish({ type: "activity", id: t.id, at: e.at });
}

async function sessionDeleted(s: State, e: Of<"session_deleted">) {
  const t = await s.store.findRunning(e.server, e.sid);
  if (t) await s.o.lifecycle.end(t.id, "user_closed", e.at, null);
}

async function requestFailed(s: State, e: Of<"request_failed">) {
  if (!e.sid) return;
  const t = await s.store.findRunning(e.server, e.sid);
  if (!t) return;
  const ended = endForFailure({
    endpoint: e.endpoint,
    status: e.status,
    detail: e.detail,
    idleForMs: e.at - t.last_activity_at,
    idleLimitMs: (await s.o.idleLimitOf?.(e.server)) ?? null,
    setupDone: t.num_steps > 0 || (await s.store.hasPrompt(t.id)),
  });
  if (ended === CHECK_LIVENESS) s.o.checkLiveness?.(e.server, e.sid);
  else if (ended) await s.o.lifecycle.end(t.id, ended.reason, e.at, ended.error);
}

/** Each relay event's handler. */
const HANDLERS: { [T in RelayEvent["type"]]: (s: State, e: Of<T>) => Promise<void> | void } = {
  session_created: () => {},
  episode_created: episodeCreated,
  tools,
  prompt,
  call_started: callStarted,
  call_frame: callFrame,
  call_finished: callFinished,
  ping,
  session_deleted: sessionDeleted,
  exchange: (s, e) => s.o.exchanges.add(e),
  request_failed: requestFailed,
};

export function createEventApplier(o: ApplyOptions): EventApplier {
  const s: State = { o, store: o.store, calls: new Map(), byTaskId: new Map(), toolsSeen: new Map() };
  return {
    apply: async (e) => {
      await (HANDLERS[e.type] as (s: State, e: RelayEvent) => Promise<void> | void)(s, e);
    },
    inflight: (trajectoryId) =>
      [...new Set(s.calls.values())]
        .filter((c) => c.trajectoryId === trajectoryId && c.step.ok == null)
        .map((c) => structuredClone(c.step)),
  };
}
