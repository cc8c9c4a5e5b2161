// The trajectory recorder: turns the relay's events (lib/relay/events.ts) into recorded episodes
// in the store, step by step, with each episode's protocol log (./protocol-log.ts decides which
// episode a request belongs to), and publishes every change on the live feeds. Events are applied
// in the order the relay saw them, those that queued up together in one batch. It keeps in memory
// only the calls in flight; secrets never reach it (relay events carry none).
import "server-only";
import { type Env, processEnv, settingOrDefault } from "@/lib/config";
import type { Block, ToolSpec } from "@/lib/ors/protocol";
import type { RelayEvent, RelayEvents } from "@/lib/relay/events";
import { readAgent, readClientTag, readRunTag, readStepOrigin } from "../relay/annotations";
import type { ExchangeLimit, TrajectoryStore } from "../store/types";
import { stableStringify } from "../trajectory/diff";
import { CHECK_LIVENESS, endForFailure, SPEC_IDLE_LIMIT_MS } from "../trajectory/end-reason";
import type { EndReason, TrajectoryStep, TrajectoryTask } from "../trajectory/schema";
import {
  capStep,
  completeStep,
  type FrameBudget,
  frameBudget,
  keepFrame,
  pendingStep,
  stepEvent,
} from "../trajectory/step";
import type { LiveFeeds } from "./live";
import { createProtocolLog, exchangeLimitFrom } from "./protocol-log";

export interface Recorder {
  /** Takes one relay event (the relay's bus calls this; tests may too). Applied in order. */
  handle(event: RelayEvent): void;
  /** Steps of a trajectory whose calls are passing through the relay now, with their frames so far. */
  inflight(trajectoryId: string): TrajectoryStep[];
  /** Indices of the steps in flight now: through this relay, and through other processes' (the store's `inflightElsewhere`). */
  inflightIndices(trajectoryId: string): Promise<number[]>;
  /** Resolves once every event taken so far has been written. */
  idle(): Promise<void>;
  /** Ends episodes idle past the limit and applies retention now. */
  sweep(now?: number): Promise<void>;
  /**
   * Ends a running episode from outside the relay's events (a run cancelled, timed out): after
   * every event taken so far, published on the live feeds. False when it had already ended.
   */
  endEpisode(id: string, reason: EndReason, at: number, error: string | null): Promise<boolean>;
  stop(): void;
}

export interface RecorderOptions {
  /** The relay's events to record; without it, events are handed to `handle()` by the caller. */
  events?: RelayEvents;
  /** Where recorded changes are published for watchers. */
  live: LiveFeeds;
  /** A server's idle limit when the playground knows it (its own host, a per-server setting). */
  idleLimitOf?: (server: string) => Promise<number | null> | number | null;
  /**
   * A running episode without any request for this long is ended as `timeout`, on every server
   * (tests; PLAYGROUND_IDLE_TIMEOUT_S). Without it, each server's own limit decides: see `idleRule`.
   */
  idleMs?: number;
  /**
   * Deletes a session on its server (a `/delete` through the relay): the idle sweep sends one for
   * each episode it ends, so a server without an idle limit of its own does not keep it forever.
   */
  closeSession?: (server: string, sid: string) => Promise<unknown>;
  /** How often idle episodes are ended and retention applied (0: only when `sweep()` is called). */
  sweepEveryMs?: number;
  /**
   * Asks a server whether a session still lives (a `/ping` through the relay, whose own answer is
   * then recorded): used when a failure does not say whether the session is gone.
   */
  checkLiveness?: (server: string, sid: string) => void;
  /** Where failures to write are reported (default console.error). */
  log?: (message: string) => void;
  /** The step-size cap in bytes (default PLAYGROUND_MAX_STEP_BYTES, else 4 MiB; see capStep). */
  maxStepBytes?: number;
  /** The caps of each episode's protocol log (default: exchangeLimitFrom(processEnv())). */
  exchangeLimit?: ExchangeLimit;
}

/** Past a server's idle limit, a minute of grace for clocks and requests in flight. */
export const IDLE_GRACE_MS = 60_000;

/** PLAYGROUND_IDLE_TIMEOUT_S in milliseconds when set (one limit for every server), else null. */
export function idleTimeoutMs(env: Env = processEnv()): number | null {
  return settingOrDefault(env, "PLAYGROUND_IDLE_TIMEOUT_S");
}

/** The step cap from PLAYGROUND_MAX_STEP_BYTES (bytes; at least 16 KiB), else the default. */
export function maxStepBytesFrom(env: Env): number {
  return settingOrDefault(env, "PLAYGROUND_MAX_STEP_BYTES");
}

/**
 * The idle rule of the sweep: how long an episode on a server may go without any request (no
 * call, no keep-alive ping from any tab or client) before it is ended as `timeout` and its session
 * deleted. An explicit limit for every server when given; else the server's own idle limit when the
 * playground knows it (its built-in host's, a per-server setting), else the spec's 15 minutes; plus
 * the grace. The episode page's keep-alive stops when nobody uses its tab, so a forgotten or closed
 * tab lets this rule end the episode.
 */
export function idleRule(explicitMs: number | null, serverLimitMs: number | null): number {
  return explicitMs ?? (serverLimitMs ?? SPEC_IDLE_LIMIT_MS) + IDLE_GRACE_MS;
}

interface Call {
  trajectoryId: string;
  step: TrajectoryStep;
  /** The relay's id of the exchange now carrying the call (a resume brings a new one). */
  callId: string;
  /** Step-size cap: the frames kept so far and those left out. */
  frames: FrameBudget;
}

/** How long the recorder applies events before it lets the event loop serve others, at most (ms)... */
const SLICE_MS = 8;
/** ...unless this many events are waiting: then it works them off first. */
const MAX_BACKLOG = 2000;
/** Recent steps by task_id, so a re-post with a saved task_id continues its step. */
const MAX_TASKS = 10_000;
/** The tool specs last seen per server and environment (given to episodes that start there). */
const MAX_TOOL_SETS = 256;

/** A limit in words: "16 min", "90 s". */
function formatIdle(ms: number): string {
  return ms % 60_000 === 0 ? `${ms / 60_000} min` : `${Math.round(ms / 1000)} s`;
}

export function createRecorder(store: TrajectoryStore, opts: RecorderOptions): Recorder {
  const explicitIdleMs = opts.idleMs ?? idleTimeoutMs();
  const live = opts.live;
  const log = opts.log ?? ((m: string) => console.error(`[recorder] ${m}`));
  const maxStepBytes = opts.maxStepBytes ?? maxStepBytesFrom(processEnv());
  const exchanges = createProtocolLog(store, live, opts.exchangeLimit ?? exchangeLimitFrom(processEnv()));
  const calls = new Map<string, Call>(); // relay callId → the call's step
  // server/sid/task_id → the step of the latest call with that task_id. Only where the step is: a
  // finished call's step (its result, possibly megabytes) is not kept in memory for a resume.
  const byTaskId = new Map<string, { trajectoryId: string; index: number }>();
  let chain: Promise<void> = Promise.resolve();
  // server/env → the tools the relay last saw listed there: an episode starting there was most
  // likely shown them (its own /task_tools, when asked, replaces them).
  const toolsSeen = new Map<string, ToolSpec[]>();
  const envKey = (server: string, env: string | null) => `${server}\n${env ?? ""}`;

  const taskKey = (server: string, sid: string, taskId: string) => `${server}\n${sid}\n${taskId}`;
  const rememberTask = (key: string, call: Call) => {
    byTaskId.delete(key);
    byTaskId.set(key, { trajectoryId: call.trajectoryId, index: call.step.index });
    if (byTaskId.size > MAX_TASKS) byTaskId.delete(byTaskId.keys().next().value!);
  };

  const startTrajectory = async (
    server: string,
    sid: string,
    env: string | null,
    task: TrajectoryTask | null,
    at: number,
    annotations: { run?: unknown; client?: unknown } = {},
  ): Promise<string> => {
    const id = await store.create({
      server,
      sid,
      env,
      task,
      startedAt: at,
      run: readRunTag(annotations.run),
      client: readClientTag(annotations.client),
      tools: toolsSeen.get(envKey(server, env)) ?? null,
    });
    const summary = await store.summary(id);
    if (summary) live.publish({ type: "started", id, summary });
    return id;
  };

  const end = async (id: string, reason: EndReason, at: number, error: string | null) => {
    if (await store.end(id, reason, at, error))
      live.publish({ type: "ended", id, end_reason: reason, error, ended_at: at });
  };

  /** The trajectory a request of this session belongs to; one is started if it was first seen mid-episode. */
  const trajectoryOf = async (server: string, sid: string, env: string | null, at: number) => {
    const running = await store.findRunning(server, sid);
    if (running) return running;
    const last = await store.findBySession(server, sid);
    // Calls after `finished` (the server still takes them) stay with their episode, marked as after it.
    if (last && last.end_reason === "finished") return last;
    const id = await startTrajectory(server, sid, env, null, at);
    return (await store.summary(id))!;
  };

  /** The call of a remembered step: still in flight, or read back from the store. */
  const callOf = async (
    ref: { trajectoryId: string; index: number } | undefined,
  ): Promise<Call | undefined> => {
    if (!ref) return undefined;
    for (const c of calls.values())
      if (c.trajectoryId === ref.trajectoryId && c.step.index === ref.index) return c;
    const step = (await store.get(ref.trajectoryId))?.steps.find((x) => x.index === ref.index);
    return step ? { trajectoryId: ref.trajectoryId, step, callId: "", frames: frameBudget() } : undefined;
  };

  const putStep = async (call: Call) => {
    await store.putStep(call.trajectoryId, call.step);
    live.publish({
      type: "step",
      id: call.trajectoryId,
      step: structuredClone(call.step),
      callId: call.callId,
    });
  };

  const apply = async (e: RelayEvent): Promise<void> => {
    switch (e.type) {
      case "session_created":
        return;
      case "episode_created": {
        const previous = await store.findRunning(e.server, e.sid);
        if (previous) await end(previous.id, "error", e.at, "the session was created again");
        const task: TrajectoryTask =
          "task_spec" in e.task
            ? { task_spec: e.task.task_spec }
            : { split: e.task.split, index: e.task.index };
        const id = await startTrajectory(e.server, e.sid, e.env, task, e.at, e);
        await exchanges.started(id, e.server, e.sid, e.env, e.at);
        return;
      }
      case "tools": {
        const key = envKey(e.server, e.env);
        toolsSeen.delete(key);
        toolsSeen.set(key, e.tools);
        if (toolsSeen.size > MAX_TOOL_SETS) toolsSeen.delete(toolsSeen.keys().next().value!);
        if (!e.sid) return;
        const t = await store.findRunning(e.server, e.sid);
        if (t) await store.setTools(t.id, e.tools);
        return;
      }
      case "prompt": {
        const t = await trajectoryOf(e.server, e.sid, e.env, e.at);
        if (e.env && t.env === null) await store.setEnv(t.id, e.env);
        if (!(await store.hasPrompt(t.id))) {
          await store.setPrompt(t.id, e.blocks, e.at);
          live.publish({ type: "prompt", id: t.id, blocks: e.blocks });
          return;
        }
        // Asked again (by a client other than the playground, which reads the recorded prompt).
        const first = (await store.get(t.id))?.prompt ?? null;
        const same = first !== null && stableStringify(first) === stableStringify(e.blocks as Block[]);
        await store.addReprompt(t.id, e.at, same);
        live.publish({ type: "reprompt", id: t.id, at: e.at, same });
        return;
      }
      case "call_started": {
        const key = e.taskId ? taskKey(e.server, e.sid, e.taskId) : null;
        const resumed = key ? await callOf(byTaskId.get(key)) : undefined;
        if (resumed) {
          // A re-post with a saved task_id continues its step (the true latency counts from its start).
          calls.set(e.callId, resumed);
          resumed.callId = e.callId;
          const step = resumed.step;
          resumed.step = {
            ...step,
            ok: null,
            error: null,
            ended_at: null,
            latency_ms: null,
            events: [
              ...step.events,
              { t: e.at - step.started_at, kind: "comment", comment: "relay: resumed" },
            ],
          };
          await putStep(resumed);
          return;
        }
        const t = await trajectoryOf(e.server, e.sid, e.env, e.at);
        if (e.env && t.env === null) await store.setEnv(t.id, e.env);
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
        calls.set(e.callId, call);
        if (key) rememberTask(key, call);
        await putStep(call);
        return;
      }
      case "call_frame": {
        const call = calls.get(e.callId);
        if (!call) return;
        const ev = stepEvent(e.frame, e.at - call.step.started_at);
        if (!keepFrame(call.frames, ev, maxStepBytes)) return; // step-size cap
        call.step.events.push(ev);
        if (e.frame.kind === "event" && e.frame.event === "task_id" && e.frame.data) {
          call.step.task_id = e.frame.data.trim();
          rememberTask(taskKey(e.server, e.sid, call.step.task_id), call);
        }
        live.publish({
          type: "frame",
          id: call.trajectoryId,
          index: call.step.index,
          n: call.step.events.length - 1,
          event: ev,
        });
        return;
      }
      case "call_finished": {
        const call = calls.get(e.callId);
        if (!call) return;
        calls.delete(e.callId);
        if (e.taskId && !call.step.task_id) call.step.task_id = e.taskId;
        const outcome = e.result
          ? { result: e.result }
          : { error: e.error ?? "the call ended without a result" };
        call.step = capStep(completeStep(call.step, outcome, e.at), maxStepBytes, call.frames);
        await putStep(call);
        if (call.step.finished && !call.step.after_end) await end(call.trajectoryId, "finished", e.at, null);
        return;
      }
      case "ping": {
        if (!e.ok) return;
        const t = await store.findRunning(e.server, e.sid);
        if (!t) return;
        await store.touch(t.id, e.at);
        live.publish({ type: "activity", id: t.id, at: e.at });
        return;
      }
      case "session_deleted": {
        const t = await store.findRunning(e.server, e.sid);
        if (t) await end(t.id, "user_closed", e.at, null);
        return;
      }
      case "exchange":
        return exchanges.add(e);
      case "request_failed": {
        if (!e.sid) return;
        const t = await store.findRunning(e.server, e.sid);
        if (!t) return;
        const ended = endForFailure({
          endpoint: e.endpoint,
          status: e.status,
          detail: e.detail,
          idleForMs: e.at - t.last_activity_at,
          idleLimitMs: (await opts.idleLimitOf?.(e.server)) ?? null,
          setupDone: t.num_steps > 0 || (await store.hasPrompt(t.id)),
        });
        if (ended === CHECK_LIVENESS) opts.checkLiveness?.(e.server, e.sid);
        else if (ended) await end(t.id, ended.reason, e.at, ended.error);
        return;
      }
    }
  };

  // Events are applied in order, those that queued up meanwhile together: the store may then
  // write them in one commit (`batch`), which is what keeps many concurrent episodes cheap. A batch
  // lasts a few milliseconds at most; then it commits and the event loop serves other requests before
  // the next one, so recording megabytes of results never holds the relay's small calls up for long.
  const queue: RelayEvent[] = [];
  let scheduled = false;
  const applyOne = async (e: RelayEvent) => {
    try {
      await apply(e);
    } catch (err) {
      log(`could not record ${e.type} of ${e.server}: ${err instanceof Error ? err.message : String(err)}`);
    }
  };
  const drain = async () => {
    try {
      while (queue.length > 0) {
        const start = performance.now();
        let n = 0;
        const slice = async () => {
          while (n < queue.length) {
            await applyOne(queue[n++]!);
            // A backlog is worked off before anything else: the queue (and its memory) stays bounded.
            if (performance.now() - start >= SLICE_MS && queue.length - n < MAX_BACKLOG) break;
          }
        };
        try {
          await (store.batch ? store.batch(slice) : slice());
        } finally {
          queue.splice(0, n);
        }
        if (queue.length > 0) await new Promise<void>((resolve) => setImmediate(resolve));
      }
    } finally {
      scheduled = false;
    }
  };
  const handle = (e: RelayEvent): void => {
    queue.push(e);
    if (scheduled) return;
    scheduled = true;
    chain = chain.then(drain).catch((err: unknown) => {
      log(`could not record: ${err instanceof Error ? err.message : String(err)}`);
    });
  };

  // The idle sweep (see idleRule): ends the episode first, so the relay's record of the `/delete`
  // that follows finds it ended (not closed by a user), then deletes the session upstream. Episodes
  // with a call in flight are busy, not idle. Another replica's sweep may end one first: `end` then
  // says so and this one sends nothing.
  const sweep = async (now = Date.now()) => {
    await chain;
    const limits = new Map<string, { ms: number; why: string }>();
    const closing: Promise<unknown>[] = [];
    for (const t of await store.running()) {
      let limit = limits.get(t.server);
      if (limit === undefined) {
        const known = explicitIdleMs === null ? ((await opts.idleLimitOf?.(t.server)) ?? null) : null;
        const ms = idleRule(explicitIdleMs, known);
        const why =
          explicitIdleMs !== null
            ? "the playground's idle timeout"
            : known !== null
              ? `past server "${t.server}"'s idle limit of ${formatIdle(known)}`
              : `server "${t.server}"'s idle limit is unknown; the spec's is ${formatIdle(SPEC_IDLE_LIMIT_MS)}`;
        limit = { ms, why };
        limits.set(t.server, limit);
      }
      if (now - t.last_activity_at <= limit.ms) continue;
      if (inflight(t.id).length > 0 || (await store.inflightElsewhere(t.id)).length > 0) continue;
      const at = t.last_activity_at + limit.ms;
      const sid = t.sid;
      const close = sid !== null ? opts.closeSession : undefined;
      const error = `no request for ${formatIdle(limit.ms)} (${limit.why}): the playground ended the episode${close ? " and deleted its session" : ""}`;
      if (!(await store.end(t.id, "timeout", at, error))) continue;
      live.publish({ type: "ended", id: t.id, end_reason: "timeout", error, ended_at: at });
      if (close && sid !== null)
        closing.push(
          close(t.server, sid).catch((e: unknown) => {
            log(
              `could not delete idle session ${t.sid} on ${t.server}: ${e instanceof Error ? e.message : String(e)}`,
            );
          }),
        );
    }
    await Promise.all(closing);
    await store.enforceRetention(now);
  };

  const unsubscribe = opts.events ? opts.events.subscribe(handle) : () => {};
  const every = opts.sweepEveryMs ?? 60_000;
  const timer = every > 0 ? setInterval(() => void sweep().catch(() => {}), every) : null;
  timer?.unref?.();

  const inflight = (trajectoryId: string) =>
    [...new Set(calls.values())]
      .filter((c) => c.trajectoryId === trajectoryId && c.step.ok == null)
      .map((c) => structuredClone(c.step));
  return {
    handle,
    inflight,
    async inflightIndices(trajectoryId) {
      const here = inflight(trajectoryId).map((s) => s.index);
      const elsewhere = await store.inflightElsewhere(trajectoryId);
      return [...new Set([...here, ...elsewhere])].sort((x, y) => x - y);
    },
    idle: () => chain,
    sweep,
    endEpisode(id, reason, at, error) {
      const done = chain.then(async () => {
        if (!(await store.end(id, reason, at, error))) return false;
        live.publish({ type: "ended", id, end_reason: reason, error, ended_at: at });
        return true;
      });
      chain = done.then(
        () => {},
        () => {},
      );
      return done;
    },
    stop() {
      unsubscribe();
      if (timer) clearInterval(timer);
    },
  };
}
