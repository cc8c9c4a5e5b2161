// What the relay publishes of an exchange (./events): /create, the prompt, the tools, every /call
// (started, its frames, finished: the SSE tap, ./tap.ts, drives that part), /ping, /delete and
// failures, each read from what passed with bounded memory whatever the upstream sends. Secrets (the
// /create body's `secrets`, X-Secrets) never leave.
import "server-only";
import {
  blocksReadSchema,
  deploymentNames,
  listToolsOutputReadSchema,
  type OrsRoute,
  type ResultOutcome,
  readErrorDetail,
  SESSION_ENDPOINTS,
  type SseFrame,
} from "@/lib/ors/protocol";
import { readWithin } from "@/lib/ors/protocol/body";
import type { RelayEvent, RelayEvents, RelayTask } from "./events";

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
  /**
   * An answer that has not ended this long after it started (a server trickling bytes so that no
   * idle limit strikes) is ended: a JSON body with a 504, a stream with an `event: error`.
   */
  answerMaxMs: number;
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
  answerMaxMs: 15 * 60_000,
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
export function detachFrame(f: SseFrame): SseFrame {
  if (f.kind === "comment") return { kind: "comment", comment: detach(f.comment) };
  if (f.event === "chunk" || f.event === "end") return f;
  return {
    kind: "event",
    event: detach(f.event),
    data: detach(f.data),
    ...(f.id ? { id: detach(f.id) } : {}),
  };
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
  /** The decoded annotation headers of the request (lib/relay/annotations.ts), never forwarded. */
  annotations?: { run?: unknown; client?: unknown; agent?: unknown; step?: unknown };
  /** The parsed JSON object of the request body, once read (undefined: not yet; null: none). */
  requestObject?: Record<string, unknown> | null;
  events: RelayEvents;
  tasks: TaskCalls;
  limits: RelayLimits;
  /** The acknowledgement of the last event published for this request (./events.ts), if any. */
  ack?: Promise<void>;
}

/** Publishes an event of this request, keeping its acknowledgement (it covers every event before it). */
export function publish(x: Pick<Exchange, "events" | "ack">, event: RelayEvent): void {
  const ack = x.events.emit(event);
  if (ack) x.ack = ack;
}

function rememberTask(m: TaskCalls, server: string, sid: string, taskId: string, callId: string) {
  const key = `${server}\n${sid}\n${taskId}`;
  m.delete(key); // re-insert: most recent last, so the oldest is evicted first
  m.set(key, callId);
  if (m.size > MAX_TASKS) m.delete(m.keys().next().value!);
}

export function endpointOf(x: Exchange): string | undefined {
  return x.route.kind === "unknown" ? undefined : x.route.endpoint;
}

/**
 * The environment a request names: its path's, or for a bare path the one `X-Deployment` names
 * (`ns/math` → `math`). Null when it names none (the server's only environment, or the session's).
 */
export function envOf(x: Exchange): string | null {
  if (x.route.kind === "env") return x.route.env;
  return deploymentNames(x.deployment ?? null).at(-1) ?? null;
}

const decoder = new TextDecoder();

/** The request body as a JSON object (parsed once), or undefined. */
function requestJson(x: Exchange): Record<string, unknown> | undefined {
  if (x.requestObject !== undefined) return x.requestObject ?? undefined;
  x.requestObject = null;
  if (!x.requestBody) return undefined;
  try {
    const v = JSON.parse(decoder.decode(x.requestBody)) as unknown;
    if (v && typeof v === "object" && !Array.isArray(v)) x.requestObject = v as Record<string, unknown>;
  } catch {
    // not JSON
  }
  return x.requestObject ?? undefined;
}

function failed(x: Exchange, endpoint: string, status: number, detail: string): void {
  if (!x.listening) return;
  publish(x, {
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
    publish(x, { type: "ping", server: x.server, sid: x.sid, ok, status, at });
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
      if (typeof sid === "string") publish(x, { type: "session_created", server: x.server, sid, at });
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
    publish(x, {
      type: "episode_created",
      server: x.server,
      sid: x.sid,
      env: typeof body.env_name === "string" ? body.env_name : null,
      task,
      ...(x.annotations?.run !== undefined ? { run: x.annotations.run } : {}),
      ...(x.annotations?.client !== undefined ? { client: x.annotations.client } : {}),
      at,
    });
  } else if (ep === "tools" || ep === "task_tools") {
    // The tools an episode was played with (FORMAT.md), when the environment is known.
    const env = envOf(x);
    try {
      const tools = listToolsOutputReadSchema.safeParse(JSON.parse(text));
      if (tools.success && env !== null)
        publish(x, {
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
        publish(x, {
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
    publish(x, { type: "session_deleted", server: x.server, sid: x.sid, endpoint: ep, at });
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
export interface CallObserver {
  /** The call's task_id, once the server sent it (or the request re-posted it). */
  readonly taskId: string | undefined;
  frame(frame: SseFrame): void;
  /** The server's stream ended: `end`'s result, an `event: error`, or why it broke. */
  finish(outcome: ResultOutcome | { ok: false; error: string; broken: true }): void;
}

export function callObserver(x: Exchange): CallObserver {
  const sid = x.sid ?? "";
  const env = envOf(x);
  const body = requestJson(x) ?? {};
  const callId = x.callId;
  const started = x.started ?? Date.now();
  const reqTaskId = typeof body.task_id === "string" && body.task_id ? body.task_id : undefined;
  const resumeOf = reqTaskId ? x.tasks.get(`${x.server}\n${sid}\n${reqTaskId}`) : undefined;
  let taskId = reqTaskId;
  let done = false;
  publish(x, {
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
    ...(x.annotations?.step !== undefined ? { origin: x.annotations.step } : {}),
    // When the call was sent, not when its answer started: a step's latency is the caller's.
    at: started,
  });
  return {
    get taskId() {
      return taskId;
    },
    frame(frame) {
      if (done) return;
      publish(x, { type: "call_frame", server: x.server, sid, callId, frame, at: Date.now() });
      if (frame.kind === "event" && frame.event === "task_id") {
        taskId = frame.data.trim();
        rememberTask(x.tasks, x.server, sid, taskId, callId);
      }
    },
    finish(outcome) {
      if (done) return;
      done = true;
      publish(x, {
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

export const observeExchange = { failed, json, readJson };
