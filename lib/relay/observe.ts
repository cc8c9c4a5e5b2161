// Turns relayed exchanges into RelayEvents (./events): /create, /prompt, every /call frame (the SSE
// stream is teed: one branch goes to the client unbuffered, the other is parsed here), /ping,
// /delete and failures. Secrets (the /create body's `secrets`, the X-Secrets header) never leave.
import "server-only";
import {
  blocksSchema,
  detailToString,
  type OrsRoute,
  type RunToolOutput,
  readSseFrames,
  runToolOutputSchema,
  SESSION_ENDPOINTS,
} from "@/lib/ors/protocol";
import type { RelayEvents, RelayTask } from "./events";

/** What the relay knows about one request while it passes. */
export interface Exchange {
  server: string;
  sid?: string;
  route: OrsRoute;
  orsPath: string;
  listening: boolean;
  requestBody?: ArrayBuffer;
  status?: number;
  started?: number;
  events: RelayEvents;
  tasks: TaskCalls;
}

const MAX_TASKS = 10_000;
/** task_id → callId of the latest relayed call with it, so a reconnect can say which call it resumes. */
export type TaskCalls = Map<string, string>;
function rememberTask(m: TaskCalls, server: string, sid: string, taskId: string, callId: string) {
  const key = `${server}\n${sid}\n${taskId}`;
  m.delete(key); // re-insert: most recent last, so the oldest is evicted first
  m.set(key, callId);
  if (m.size > MAX_TASKS) m.delete(m.keys().next().value!);
}

function endpointOf(x: Exchange): string | undefined {
  return x.route.kind === "unknown" ? undefined : x.route.endpoint;
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

/** Whether the relay must read a JSON answer whole to publish it. */
function wantsJson(x: Exchange): boolean {
  const ep = endpointOf(x);
  const ok = (x.status ?? 0) >= 200 && (x.status ?? 0) < 300;
  if (!ok) return ep !== undefined && (SESSION_ENDPOINTS.has(ep) || ep === "create_session");
  return ep === "create_session" || ep === "prompt";
}

/** Publishes a JSON answer (text: the body, when wantsJson said it was needed). */
function json(x: Exchange, text: string | undefined): void {
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
    if (SESSION_ENDPOINTS.has(ep) || ep === "create_session") {
      let detail = text ?? "";
      try {
        const body = JSON.parse(text ?? "") as { detail?: unknown };
        if (body && typeof body === "object" && "detail" in body) detail = detailToString(body.detail);
      } catch {
        // keep the text
      }
      failed(x, ep, status, detail);
    }
    return;
  }
  if (ep === "create_session") {
    try {
      const sid = (JSON.parse(text ?? "") as { sid?: unknown }).sid;
      if (typeof sid === "string") x.events.emit({ type: "session_created", server: x.server, sid, at });
    } catch {
      // not JSON: nothing to publish
    }
  } else if (ep === "create" && x.sid) {
    const body = requestJson(x);
    if (!body) return;
    let task: RelayTask | undefined;
    if (body.task_spec && typeof body.task_spec === "object")
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
      at,
    });
  } else if (ep === "prompt" && x.sid && x.route.kind === "env") {
    try {
      const blocks = blocksSchema.safeParse(JSON.parse(text ?? ""));
      if (blocks.success)
        x.events.emit({
          type: "prompt",
          server: x.server,
          sid: x.sid,
          env: x.route.env,
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

/** Tees an SSE answer: returns the branch for the client, parses the other and publishes it. */
function sse(x: Exchange, body: ReadableStream<Uint8Array>): ReadableStream<Uint8Array> {
  const ep = endpointOf(x);
  const ok = (x.status ?? 0) >= 200 && (x.status ?? 0) < 300;
  if (!ok || (ep !== "call" && ep !== "create_session")) return body;
  const [toClient, toObserver] = body.tee();
  if (ep === "create_session") void watchCreateSession(x, toObserver);
  else void watchCall(x, toObserver);
  return toClient;
}

async function watchCreateSession(x: Exchange, stream: ReadableStream<Uint8Array>): Promise<void> {
  try {
    for await (const frame of readSseFrames(stream)) {
      if (frame.kind === "event" && frame.event === "task_id") {
        x.events.emit({ type: "session_created", server: x.server, sid: frame.data.trim(), at: Date.now() });
        break;
      }
    }
  } catch {
    // the stream broke: no session to publish
  } finally {
    // Not awaited: a tee branch's cancel settles only once the other branch is done too.
    stream.cancel().catch(() => {});
  }
}

async function watchCall(x: Exchange, stream: ReadableStream<Uint8Array>): Promise<void> {
  const sid = x.sid ?? "";
  const env = x.route.kind === "env" ? x.route.env : "";
  const body = requestJson(x) ?? {};
  const callId = crypto.randomUUID();
  const started = x.started ?? Date.now();
  const reqTaskId = typeof body.task_id === "string" && body.task_id ? body.task_id : undefined;
  const resumeOf = reqTaskId ? x.tasks.get(`${x.server}\n${sid}\n${reqTaskId}`) : undefined;
  let taskId = reqTaskId;
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
    at: Date.now(),
  });
  const pieces: string[] = [];
  let result: RunToolOutput | undefined;
  let error: string | undefined;
  try {
    for await (const frame of readSseFrames(stream)) {
      x.events.emit({ type: "call_frame", server: x.server, sid, callId, frame, at: Date.now() });
      if (frame.kind !== "event") continue;
      if (frame.event === "task_id") {
        taskId = frame.data.trim();
        rememberTask(x.tasks, x.server, sid, taskId, callId);
      } else if (frame.event === "chunk") pieces.push(frame.data);
      else if (frame.event === "end") {
        pieces.push(frame.data);
        try {
          const parsed = runToolOutputSchema.safeParse(JSON.parse(pieces.join("")));
          if (parsed.success) result = parsed.data;
          else error = "the reassembled result is not a RunToolOutput";
        } catch {
          error = "the reassembled result is not JSON";
        }
        break;
      } else if (frame.event === "error") {
        error = frame.data || "unknown SSE error";
        break;
      }
    }
    if (!result && !error) error = "the stream ended before `end` (connection dropped or client went away)";
  } catch (err) {
    error = `the stream broke before \`end\`: ${(err as Error).message}`;
  } finally {
    // Not awaited: a tee branch's cancel settles only once the other branch is done too.
    stream.cancel().catch(() => {});
  }
  x.events.emit({
    type: "call_finished",
    server: x.server,
    sid,
    callId,
    ...(taskId ? { taskId } : {}),
    ...(result ? { result } : {}),
    ...(error ? { error } : {}),
    latencyMs: Date.now() - started,
    at: Date.now(),
  });
}

export const observeExchange = { failed, wantsJson, json, sse };
