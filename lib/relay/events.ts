// The recorder seam of the relay (docs/architecture.md "The recording relay"): every session, call and SSE
// frame that passes through /api/servers/<name>/... is published here as a RelayEvent.
//
// EVENT CONTRACT (stable; the trajectory recorder builds on it). Every event has `type`, `server`
// (the relay's server name, e.g. "local"), and `at` (ms since epoch, when the relay saw it).
// Secrets are never part of any event: not the `/create` body's `secrets`, not the `X-Secrets`
// header, not the API key.
//
//   session_created  {server, sid, at}                      2xx /create_session (JSON or SSE answer)
//   episode_created  {server, sid, env, task, at}           2xx /create. env: the body's env_name, or
//                                                           null when omitted (server's default env).
//                                                           task: {task_spec} | {split, index}
//                                                           run: the decoded `x-playground-run`
//                                                           header of the request, when sent
//                                                           (lib/relay/annotations.ts); client:
//                                                           its `x-playground-client`, likewise
//   prompt           {server, sid, env, blocks, at}         2xx /{env}/prompt or /prompt. env: the
//                                                           path's, or for a bare path the one its
//                                                           X-Deployment header names, else null
//   call_started     {server, sid, env, callId, tool, input, taskId?, resumeOf?, at}  at: when the request left
//                                                           2xx /{env}/call or /call (env as for
//                                                           prompt), emitted when the SSE
//                                                           answer starts. callId: the relay's own
//                                                           id of this POST. taskId: the task_id of
//                                                           the request body (a reconnect or a trace
//                                                           id). resumeOf: callId of the latest earlier
//                                                           relayed call with that task_id, if any.
//                                                           agent: the decoded `x-playground-agent`
//                                                           header (who chose the call), when sent.
//                                                           origin: the decoded `x-playground-step`
//                                                           header (a call replayed from the
//                                                           protocol log), when sent.
//   call_frame       {server, sid, callId, frame, at}       each SSE frame of that call as it passes:
//                                                           {kind:"event",event,data} (task_id,
//                                                           chunk, end, error) or
//                                                           {kind:"comment",comment} (": ping").
//   call_finished    {server, sid, callId, taskId?, result?, error?, latencyMs, at}
//                                                           once per call_started. result: the
//                                                           reassembled RunToolOutput (after `end`).
//                                                           error: the `event: error` data, or why
//                                                           the stream broke (client went away,
//                                                           upstream dropped, invalid JSON).
//   tools            {server, sid?, env, tools, at}         2xx /{env}/tools or /{env}/task_tools
//                                                           (sid: the request's X-Session-ID, if any)
//   ping             {server, sid, ok, status?, at}         every /ping (ok: 2xx)
//   session_deleted  {server, sid, endpoint, at}            2xx /delete or /delete_session
//   request_failed   {server, sid?, endpoint, status, detail, at}
//                                                           any non-2xx answer of a session endpoint
//                                                           (create, prompt, task_tools, call, ping,
//                                                           delete, ...) or a relay failure (502/504).
//                                                           endpoint: the ORS endpoint name, e.g.
//                                                           "call", "create"; detail: text.
//   exchange         {server, sid?, env, endpoint, callId?, sessionCreated?, exchange, at}
//                                                           every relayed request of a known server
//                                                           once its answer ended (for the protocol
//                                                           log, lib/relay/exchange-log.ts): sid: the
//                                                           request's X-Session-ID; sessionCreated:
//                                                           the sid a /create_session answered;
//                                                           exchange: method, path, masked headers,
//                                                           bodies within a cap, status, timing
//                                                           (NewExchange, lib/trajectory/schema.ts).
//                                                           A whole (JSON) answer's comes before the
//                                                           events that answer causes (so a /delete
//                                                           is logged before the episode ends); an
//                                                           SSE answer's once it is whole (a call's
//                                                           at its `end`, after call_finished).
//
// Listeners are called synchronously, in order; a listener that throws is isolated (logged once
// per throw, without the event). Each relay has its own bus (`createRelayEvents`), and
// `hasListeners()` lets the relay skip all work when nobody listens.
//
// ACKNOWLEDGEMENT (what a client was told is on disk). A listener may return a promise that settles
// once it has durably handled the event and every event before it (the recorder: once the batch
// holding it is committed to the store); `emit` returns the acknowledgement of all the listeners that
// gave one (undefined when none did), and it never rejects. The relay awaits it before the bytes that
// complete an answer leave: a call's `end` (or `error`) frame, a whole JSON answer. So when a client
// has an answer, what it reports is in the store, and a process killed at any moment loses only
// answers nobody received. While a call streams, the relay also waits for the acknowledgement once
// a window of unacknowledged frames has passed, so a recorder that falls behind slows the stream
// instead of holding an unbounded backlog.
import "server-only";
import type { Block, JsonObject, RunToolOutput, SseFrame, ToolSpec } from "@/lib/ors/protocol";
import type { NewExchange } from "@/lib/trajectory/schema";

export type RelayTask = { task_spec: JsonObject } | { split: string; index: number };

interface Base {
  server: string;
  at: number;
}

export type RelayEvent =
  | (Base & { type: "session_created"; sid: string })
  | (Base & {
      type: "episode_created";
      sid: string;
      env: string | null;
      task: RelayTask;
      run?: unknown;
      client?: unknown;
    })
  | (Base & { type: "prompt"; sid: string; env: string | null; blocks: Block[] })
  | (Base & {
      type: "call_started";
      sid: string;
      env: string | null;
      callId: string;
      tool: string;
      input: JsonObject;
      taskId?: string;
      resumeOf?: string;
      agent?: unknown;
      origin?: unknown;
    })
  | (Base & { type: "call_frame"; sid: string; callId: string; frame: SseFrame })
  | (Base & {
      type: "call_finished";
      sid: string;
      callId: string;
      taskId?: string;
      result?: RunToolOutput;
      error?: string;
      latencyMs: number;
    })
  | (Base & { type: "tools"; sid?: string; env: string; tools: ToolSpec[] })
  | (Base & { type: "ping"; sid: string; ok: boolean; status?: number })
  | (Base & { type: "session_deleted"; sid: string; endpoint: "delete" | "delete_session" })
  | (Base & {
      type: "request_failed";
      sid?: string;
      endpoint: string;
      status: number;
      detail: string;
    })
  | (Base & {
      type: "exchange";
      sid?: string;
      env: string | null;
      endpoint: string;
      callId?: string;
      sessionCreated?: string;
      exchange: NewExchange;
    });

export type RelayEventType = RelayEvent["type"];
/** A listener's acknowledgement of an event: settles once the event is durably handled (see above). */
export type RelayAck = PromiseLike<void>;
/** A listener: what it returns counts as its acknowledgement when it is a promise (see above). */
export type RelayListener = (event: RelayEvent) => unknown;

const isAck = (v: unknown): v is RelayAck =>
  typeof v === "object" && v !== null && typeof (v as RelayAck).then === "function";

/** The relay's event bus: one per relay, created by the composition root. */
export interface RelayEvents {
  /** Subscribes to every event; returns the function that unsubscribes. */
  subscribe(listener: RelayListener): () => void;
  /** Whether anyone listens: the relay skips parsing when nobody does. */
  hasListeners(): boolean;
  /**
   * Publishes one event to every listener (synchronously; a throwing listener is isolated). Returns
   * the acknowledgement of the listeners that gave one, or undefined; it never rejects.
   */
  emit(event: RelayEvent): Promise<void> | undefined;
}

const settled = () => {};

function failed(event: RelayEvent, err: unknown): void {
  console.error(`relay event listener failed on ${event.type}:`, err instanceof Error ? err.message : err);
}

export function createRelayEvents(): RelayEvents {
  const listeners = new Set<RelayListener>();
  return {
    subscribe(listener) {
      // Wrap so the same function can subscribe twice and unsubscribe each independently.
      const entry: RelayListener = (e) => listener(e);
      listeners.add(entry);
      return () => {
        listeners.delete(entry);
      };
    },
    hasListeners: () => listeners.size > 0,
    emit(event) {
      if (listeners.size === 0) return undefined;
      let acks: PromiseLike<void>[] | undefined;
      for (const l of [...listeners]) {
        try {
          const ack = l(event);
          if (isAck(ack)) {
            acks ??= [];
            acks.push(ack);
          }
        } catch (err) {
          failed(event, err);
        }
      }
      if (!acks) return undefined;
      const all = acks.length === 1 ? Promise.resolve(acks[0]) : Promise.all(acks);
      return all.then(settled, (err: unknown) => failed(event, err));
    },
  };
}
