// The relay's recording tap: turns relayed exchanges into RelayEvents (./events) — /create, the
// prompt, every /call frame, /ping, /delete and failures — with bounded memory whatever the
// upstream sends. An SSE answer passes to the client chunk by chunk as the client reads it (no
// tee, no buffering) and is parsed on the way with size limits; when the client goes away in the
// middle of a call, the tap keeps reading the server's answer so the step is recorded whole (the
// episode lives on the server). Secrets (the /create body's `secrets`, X-Secrets) never leave.
import "server-only";
import {
  blocksReadSchema,
  createSseFrameParser,
  deploymentNames,
  formatSseEvent,
  listToolsOutputReadSchema,
  type OrsRoute,
  ResultAssembler,
  type ResultOutcome,
  readErrorDetail,
  SESSION_ENDPOINTS,
  type SseFrame,
  SseLimitError,
} from "@/lib/ors/protocol";
import { readWithin } from "@/lib/ors/protocol/body";
import type { RelayEvents, RelayTask } from "./events";

/** Size limits on what an upstream may send through the relay (DESIGN: "Bounded memory"). */
export interface RelayLimits {
  /** A JSON answer larger than this ends the request with a 502. */
  maxJsonBytes: number;
  /** An SSE line without a line break longer than this ends the stream. */
  maxSseLineChars: number;
  /** An SSE event (all its data lines) longer than this ends the stream. */
  maxSseEventChars: number;
  /** A tool result (all its `chunk`s and the `end`) larger than this ends the stream. */
  maxResultChars: number;
  /** A call's frames that are not result pieces (comments, unknown events, ...) beyond this many
   *  characters end the stream: a server sending them forever is not running a tool. */
  maxCallOtherChars: number;
  /** An SSE answer that sends nothing (not even a `: ping`; servers ping every 10-15 s) for this
   *  long is ended with an `event: error`. */
  streamIdleMs: number;
  /** After the client went away, a call's answer is still read for this long at most. */
  drainMaxMs: number;
  /** ...and given up when the server sends nothing (not even a ping) for this long. */
  drainIdleMs: number;
}

export const DEFAULT_RELAY_LIMITS: RelayLimits = {
  maxJsonBytes: 32 * 1024 * 1024,
  maxSseLineChars: 8 * 1024 * 1024,
  maxSseEventChars: 16 * 1024 * 1024,
  maxResultChars: 64 * 1024 * 1024,
  maxCallOtherChars: 16 * 1024 * 1024,
  streamIdleMs: 60_000,
  drainMaxMs: 15 * 60_000,
  drainIdleMs: 60_000,
};

const MAX_TASKS = 10_000;

/**
 * A copy of `s` that holds no reference to the text it was cut from. The SSE parser hands out
 * slices of the decoded network chunk (up to megabytes); a slice kept (a task id in a map, a
 * frame in a step) would keep the whole chunk in memory.
 */
export function detach(s: string): string {
  return s.length < 13 ? s : (JSON.parse(JSON.stringify(s)) as string);
}

/**
 * A frame whose strings are copies (see `detach`), but for result pieces: those are joined into
 * a new string at `end` (and steps keep copied previews), so they hold their chunk only meanwhile.
 */
function detachFrame(f: SseFrame): SseFrame {
  if (f.kind === "comment") return { kind: "comment", comment: detach(f.comment) };
  if (f.event === "chunk" || f.event === "end") return f;
  return {
    kind: "event",
    event: detach(f.event),
    data: detach(f.data),
    ...(f.id ? { id: detach(f.id) } : {}),
  };
}

/** A duration as a message says it: `60 s`, `0.3 s`. */
function seconds(ms: number): string {
  return ms >= 10_000 ? `${Math.round(ms / 1000)} s` : `${Number((ms / 1000).toFixed(1))} s`;
}
/** task_id → callId of the latest relayed call with it, so a reconnect can say which call it resumes. */
export type TaskCalls = Map<string, string>;

/** What the relay knows about one request while it passes. */
export interface Exchange {
  server: string;
  sid?: string;
  route: OrsRoute;
  orsPath: string;
  listening: boolean;
  requestBody?: Uint8Array;
  status?: number;
  started?: number;
  /** The id of this call's step (the browser may name it, so its tab can find its own step). */
  callId: string;
  /** The request's `X-Deployment` header: the environment of a bare path (`/call`). */
  deployment?: string | null;
  /** The decoded annotation headers of the request (lib/episodes/annotations.ts), never forwarded. */
  annotations?: { run?: unknown; agent?: unknown };
  events: RelayEvents;
  tasks: TaskCalls;
  limits: RelayLimits;
}

function rememberTask(m: TaskCalls, server: string, sid: string, taskId: string, callId: string) {
  const key = `${server}\n${sid}\n${taskId}`;
  m.delete(key); // re-insert: most recent last, so the oldest is evicted first
  m.set(key, callId);
  if (m.size > MAX_TASKS) m.delete(m.keys().next().value!);
}

function endpointOf(x: Exchange): string | undefined {
  return x.route.kind === "unknown" ? undefined : x.route.endpoint;
}

/**
 * The environment a request names: its path's, or for a bare path the one `X-Deployment` names
 * (`ns/math` → `math`). Null when it names none (the server's only environment, or the session's).
 */
function envOf(x: Exchange): string | null {
  if (x.route.kind === "env") return x.route.env;
  return deploymentNames(x.deployment ?? null).at(-1) ?? null;
}

function requestJson(x: Exchange): Record<string, unknown> | undefined {
  if (!x.requestBody) return undefined;
  try {
    const v = JSON.parse(new TextDecoder().decode(x.requestBody)) as unknown;
    return v && typeof v === "object" && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

function failed(x: Exchange, endpoint: string, status: number, detail: string): void {
  if (!x.listening) return;
  x.events.emit({
    type: "request_failed",
    server: x.server,
    ...(x.sid ? { sid: x.sid } : {}),
    endpoint,
    status,
    detail,
    at: Date.now(),
  });
}

/** Publishes a JSON answer (its whole text; every JSON answer is read whole, within maxJsonBytes). */
function json(x: Exchange, text: string): void {
  const ep = endpointOf(x);
  if (!ep || !x.listening) return;
  const status = x.status ?? 0;
  const at = Date.now();
  const ok = status >= 200 && status < 300;
  if (ep === "ping" && x.sid) {
    x.events.emit({ type: "ping", server: x.server, sid: x.sid, ok, status, at });
    if (ok) return;
  }
  if (!ok) {
    if (SESSION_ENDPOINTS.has(ep) || ep === "create_session")
      failed(x, ep, status, readErrorDetail(text) ?? (text.slice(0, 2000) || `HTTP ${status}`));
    return;
  }
  if (ep === "create_session") {
    try {
      const sid = (JSON.parse(text) as { sid?: unknown }).sid;
      if (typeof sid === "string") x.events.emit({ type: "session_created", server: x.server, sid, at });
    } catch {
      // not JSON: nothing to publish
    }
  } else if (ep === "create" && x.sid) {
    const body = requestJson(x);
    if (!body) return;
    let task: RelayTask | undefined;
    if (body.task_spec && typeof body.task_spec === "object" && !Array.isArray(body.task_spec))
      task = { task_spec: body.task_spec as Record<string, unknown> };
    else if (typeof body.split === "string" && typeof body.index === "number")
      task = { split: body.split, index: body.index };
    if (!task) return;
    x.events.emit({
      type: "episode_created",
      server: x.server,
      sid: x.sid,
      env: typeof body.env_name === "string" ? body.env_name : null,
      task,
      ...(x.annotations?.run !== undefined ? { run: x.annotations.run } : {}),
      at,
    });
  } else if (ep === "tools" || ep === "task_tools") {
    // The tools an episode was played with (FORMAT.md), when the environment is known.
    const env = envOf(x);
    try {
      const tools = listToolsOutputReadSchema.safeParse(JSON.parse(text));
      if (tools.success && env !== null)
        x.events.emit({
          type: "tools",
          server: x.server,
          ...(x.sid ? { sid: x.sid } : {}),
          env,
          tools: tools.data.tools,
          at,
        });
    } catch {
      // not JSON
    }
  } else if (ep === "prompt" && x.sid) {
    try {
      const blocks = blocksReadSchema.safeParse(JSON.parse(text));
      if (blocks.success)
        x.events.emit({
          type: "prompt",
          server: x.server,
          sid: x.sid,
          env: envOf(x),
          blocks: blocks.data,
          at,
        });
    } catch {
      // not JSON
    }
  } else if ((ep === "delete" || ep === "delete_session") && x.sid) {
    x.events.emit({ type: "session_deleted", server: x.server, sid: x.sid, endpoint: ep, at });
  }
}

/**
 * Reads a JSON answer whole, or null when it is larger than the limit (the body is then
 * cancelled). A body that stalls for `idleMs` throws BodyStalledError (lib/ors/protocol/body.ts).
 */
async function readJson(
  body: ReadableStream<Uint8Array>,
  limit: number,
  idleMs = 60_000,
): Promise<string | null> {
  const bytes = await readWithin(body, limit, { idleMs });
  return bytes === null ? null : new TextDecoder().decode(bytes);
}

/** What a call's tap tells the recorder: every frame, then once how the call ended. */
interface CallObserver {
  frame(frame: SseFrame): void;
  /** The server's stream ended: `end`'s result, an `event: error`, or why it broke. */
  finish(outcome: ResultOutcome | { ok: false; error: string; broken: true }): void;
}

function callObserver(x: Exchange): CallObserver {
  const sid = x.sid ?? "";
  const env = envOf(x);
  const body = requestJson(x) ?? {};
  const callId = x.callId;
  const started = x.started ?? Date.now();
  const reqTaskId = typeof body.task_id === "string" && body.task_id ? body.task_id : undefined;
  const resumeOf = reqTaskId ? x.tasks.get(`${x.server}\n${sid}\n${reqTaskId}`) : undefined;
  let taskId = reqTaskId;
  let done = false;
  x.events.emit({
    type: "call_started",
    server: x.server,
    sid,
    env,
    callId,
    tool: typeof body.name === "string" ? body.name : "",
    input:
      body.input && typeof body.input === "object" && !Array.isArray(body.input)
        ? (body.input as Record<string, unknown>)
        : {},
    ...(reqTaskId ? { taskId: reqTaskId } : {}),
    ...(resumeOf ? { resumeOf } : {}),
    ...(x.annotations?.agent !== undefined ? { agent: x.annotations.agent } : {}),
    // When the call was sent, not when its answer started: a step's latency is the caller's.
    at: started,
  });
  return {
    frame(frame) {
      if (done) return;
      x.events.emit({ type: "call_frame", server: x.server, sid, callId, frame, at: Date.now() });
      if (frame.kind === "event" && frame.event === "task_id") {
        taskId = frame.data.trim();
        rememberTask(x.tasks, x.server, sid, taskId, callId);
      }
    },
    finish(outcome) {
      if (done) return;
      done = true;
      x.events.emit({
        type: "call_finished",
        server: x.server,
        sid,
        callId,
        ...(taskId ? { taskId } : {}),
        ...(outcome.ok ? { result: outcome.result } : { error: outcome.error }),
        latencyMs: Date.now() - started,
        at: Date.now(),
      });
    },
  };
}

/**
 * Passes an SSE answer to the client as it reads it, parsing it on the way. For `/call` the
 * frames and the result are published; for `/create_session` the session id. Past a limit the
 * client gets an `event: error` saying why and the stream ends. When the client goes away during
 * a call, the server's answer is still read (bounded in time and size) so the step is recorded.
 */
function sse(
  x: Exchange,
  body: ReadableStream<Uint8Array>,
  abortUpstream: () => void,
): ReadableStream<Uint8Array> {
  const ep = endpointOf(x);
  const ok = (x.status ?? 0) >= 200 && (x.status ?? 0) < 300;
  const isCall = x.listening && ok && ep === "call";
  const isSession = x.listening && ok && ep === "create_session";
  const observer = isCall ? callObserver(x) : null;
  const reader = body.getReader();
  const decoder = new TextDecoder();
  const result = new ResultAssembler(x.limits.maxResultChars);
  let sawSession = false;
  let finished = false;
  let otherChars = 0;
  const onFrame = (parsed: SseFrame) => {
    if (!isSession && (!observer || finished)) return;
    const frame = detachFrame(parsed);
    if (isSession && !sawSession && frame.kind === "event" && frame.event === "task_id") {
      sawSession = true;
      x.events.emit({ type: "session_created", server: x.server, sid: frame.data.trim(), at: Date.now() });
    }
    if (!observer || finished) return;
    if (frame.kind === "comment" || (frame.event !== "chunk" && frame.event !== "end")) {
      otherChars +=
        frame.kind === "comment" ? frame.comment.length + 4 : frame.event.length + frame.data.length + 16;
      if (otherChars > x.limits.maxCallOtherChars)
        throw new SseLimitError(
          `more than ${x.limits.maxCallOtherChars} characters of frames that are not part of a result`,
        );
    }
    observer.frame(frame);
    if (frame.kind !== "event") return;
    if (frame.event === "chunk") result.add(frame.data);
    else if (frame.event === "end") {
      finished = true;
      observer.finish(result.end(frame.data));
    } else if (frame.event === "error") {
      finished = true;
      observer.finish({ ok: false, error: frame.data || "unknown SSE error" });
    }
  };
  const parser = createSseFrameParser(onFrame, {
    maxLineChars: x.limits.maxSseLineChars,
    maxEventChars: x.limits.maxSseEventChars,
  });
  /** Parses one piece; returns an error message when the upstream broke a limit. */
  const parse = (chunk: Uint8Array | null): string | null => {
    if (!observer && !isSession) return null;
    try {
      if (chunk) parser.feed(decoder.decode(chunk, { stream: true }));
      else {
        parser.feed(decoder.decode());
        parser.end();
      }
      return null;
    } catch (err) {
      if (err instanceof SseLimitError || (err instanceof Error && err.name === "ResultTooLargeError"))
        return `relay: ${x.server} sent ${err.message}; the stream was ended`;
      return `relay: could not read the stream: ${err instanceof Error ? err.message : String(err)}`;
    }
  };
  const broken = (why: string) => {
    if (observer && !finished) {
      finished = true;
      observer.finish({ ok: false, error: why, broken: true });
    }
  };

  /** The client went away: keep reading a call's answer so its step is recorded, within bounds. */
  const drain = async () => {
    if (!observer || finished) {
      reader.cancel().catch(() => {});
      abortUpstream();
      return;
    }
    const deadline = Date.now() + x.limits.drainMaxMs;
    let idle: ReturnType<typeof setTimeout> | undefined;
    const stop = (why: string) => {
      broken(why);
      reader.cancel().catch(() => {});
      abortUpstream();
    };
    try {
      while (!finished) {
        const timeLeft = Math.min(x.limits.drainIdleMs, deadline - Date.now());
        if (timeLeft <= 0)
          return stop("the client went away and the server's answer took too long; stopped reading");
        const read = reader.read();
        const silent = new Promise<"silent">((resolve) => {
          idle = setTimeout(() => resolve("silent"), timeLeft);
        });
        const r = await Promise.race([read, silent]);
        clearTimeout(idle);
        if (r === "silent") return stop("the client went away and the server went silent; stopped reading");
        if (r.done) {
          parse(null);
          return broken("the stream ended before `end`");
        }
        const limitHit = parse(r.value);
        if (limitHit) return stop(limitHit);
      }
      reader.cancel().catch(() => {});
    } catch (err) {
      broken(`the stream broke before \`end\`: ${err instanceof Error ? err.message : String(err)}`);
    }
  };

  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        let r: ReadableStreamReadResult<Uint8Array> | "silent";
        let idle: ReturnType<typeof setTimeout> | undefined;
        try {
          const silent = new Promise<"silent">((resolve) => {
            idle = setTimeout(() => resolve("silent"), x.limits.streamIdleMs);
          });
          r = await Promise.race([reader.read(), silent]);
        } catch (err) {
          broken(`the stream broke before \`end\`: ${err instanceof Error ? err.message : String(err)}`);
          // Closed, not errored: what was already passed on (the task_id) still reaches the client,
          // which then re-posts with it instead of starting the call again.
          controller.close();
          return;
        } finally {
          clearTimeout(idle);
        }
        if (r === "silent") {
          const why = `relay: ${x.server} sent nothing for ${seconds(x.limits.streamIdleMs)} (not even a ping); the stream was ended`;
          broken(why);
          controller.enqueue(new TextEncoder().encode(formatSseEvent("error", why)));
          controller.close();
          reader.cancel().catch(() => {});
          abortUpstream();
          return;
        }
        if (r.done) {
          parse(null);
          broken("the stream ended before `end`");
          controller.close();
          return;
        }
        const limitHit = parse(r.value);
        if (limitHit) {
          broken(limitHit);
          controller.enqueue(new TextEncoder().encode(formatSseEvent("error", limitHit)));
          controller.close();
          reader.cancel().catch(() => {});
          abortUpstream();
          return;
        }
        controller.enqueue(r.value);
      },
      cancel() {
        void drain();
      },
    },
    { highWaterMark: 0 },
  );
}

export const observeExchange = { failed, json, readJson, sse };
