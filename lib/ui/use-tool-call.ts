// Tool calls of the live episode: POST /{env}/call read as SSE by the typed client, every event
// appended to the episode store as it arrives (streams stay out of the query cache). A call can be
// abandoned; the in-flight call ({id, tool, input, task_id}) is kept in sessionStorage so a reload
// picks it up again by re-posting with its task_id.
"use client";

import { useCallback, useEffect, useMemo, useRef } from "react";
import { isAbortError, OrsClientError } from "@/lib/ors/client/errors";
import type { JsonObject } from "@/lib/ors/protocol";
import { useEpisodeStoreApi } from "./episode-store";
import { loadOrsClient } from "./ors-loader";
import { errorMessage, sessionEndFor } from "./use-episode";

export interface InFlight {
  id: string;
  tool: string;
  input: JsonObject;
  taskId?: string;
  startedAt: number;
}

function inFlightKey(server: string, sid: string): string {
  return `ors-inflight:v1:${server}:${sid}`;
}

function readInFlight(server: string, sid: string): InFlight | null {
  try {
    const raw = sessionStorage.getItem(inFlightKey(server, sid));
    return raw ? (JSON.parse(raw) as InFlight) : null;
  } catch {
    return null;
  }
}

function writeInFlight(server: string, sid: string, value: InFlight | null): void {
  try {
    if (value) sessionStorage.setItem(inFlightKey(server, sid), JSON.stringify(value));
    else sessionStorage.removeItem(inFlightKey(server, sid));
  } catch {
    // storage unavailable: a reload cannot pick the call up, nothing else changes
  }
}

const ABANDON = "abandoned";
const UNMOUNT = "unmounted";

function newId(): string {
  return typeof crypto !== "undefined" && "randomUUID" in crypto
    ? crypto.randomUUID()
    : `${Date.now().toString(36)}-${Math.random().toString(36).slice(2)}`;
}

export interface ToolCaller {
  /** Calls a tool; resolves when the call ends (its outcome is in the store). */
  call: (tool: string, input: JsonObject) => Promise<void>;
  /** Abandons the call in flight (the server may still finish it; its result is dropped). */
  abandon: () => void;
  /** Picks up a call by its task_id (after a reload). */
  resume: (req: InFlight) => Promise<void>;
}

/** Calls tools of the episode in the nearest EpisodeStoreProvider. */
export function useToolCall(): ToolCaller {
  const store = useEpisodeStoreApi();
  const controllers = useRef(new Map<string, AbortController>());

  useEffect(() => {
    const map = controllers.current;
    return () => {
      for (const c of map.values()) c.abort(new DOMException(UNMOUNT, "AbortError"));
      map.clear();
    };
  }, []);

  const run = useCallback(
    async (req: InFlight, resumed: boolean) => {
      const { server, env, sid } = store.getState();
      const ctrl = new AbortController();
      controllers.current.set(req.id, ctrl);
      const s = store.getState();
      s.beginStep({
        id: req.id,
        tool: req.tool,
        input: req.input,
        startedAt: req.startedAt,
        resumed,
        taskId: req.taskId,
      });
      s.touch();
      writeInFlight(server, sid, req);
      const t0 = performance.now();
      try {
        const client = await loadOrsClient(server);
        const result = await client.callTool(
          env,
          sid,
          { name: req.tool, input: req.input, ...(req.taskId ? { task_id: req.taskId } : {}) },
          {
            signal: ctrl.signal,
            onEvent: (ev) => {
              store.getState().appendEvent(req.id, ev);
              if (ev.type === "task_id" && ev.data && ev.data !== req.taskId) {
                req.taskId = ev.data;
                writeInFlight(server, sid, req);
              }
            },
          },
        );
        const st = store.getState();
        st.finishStep(req.id, result, Math.round(performance.now() - t0));
        st.touch();
        if (result.ok && result.output.finished) {
          st.endEpisode("finished", `${req.tool} returned finished: true.`);
        }
        writeInFlight(server, sid, null);
      } catch (err) {
        const reason = ctrl.signal.reason as unknown;
        const why = reason instanceof DOMException ? reason.message : "";
        if (why === UNMOUNT) return; // the page went away: a reload picks the call up
        writeInFlight(server, sid, null);
        const st = store.getState();
        const latency = Math.round(performance.now() - t0);
        if (why === ABANDON || (ctrl.signal.aborted && isAbortError(err))) {
          st.failStep(
            req.id,
            "abandoned",
            "Abandoned: the stream was closed by you; the server may still finish the call.",
            latency,
          );
          return;
        }
        st.failStep(req.id, "error", errorMessage(err), latency);
        const end = err instanceof OrsClientError ? sessionEndFor(err, st.lastRequestAt) : null;
        if (end) st.endEpisode(end.reason, end.detail);
      } finally {
        controllers.current.delete(req.id);
      }
    },
    [store],
  );

  const call = useCallback(
    (tool: string, input: JsonObject) => run({ id: newId(), tool, input, startedAt: Date.now() }, false),
    [run],
  );

  const abandon = useCallback(() => {
    for (const c of controllers.current.values()) c.abort(new DOMException(ABANDON, "AbortError"));
  }, []);

  const resume = useCallback((req: InFlight) => run(req, true), [run]);

  return useMemo(() => ({ call, abandon, resume }), [call, abandon, resume]);
}

/**
 * After a reload, picks up the call that was in flight: re-posts it with its task_id (the server
 * keeps a finished result for a while and streams a running one on). Without a task_id it cannot
 * be picked up, and its step stays "interrupted". Pass the page's ToolCaller (so Abandon works).
 */
export function useResumeInFlight(ready: boolean, caller: ToolCaller): void {
  const store = useEpisodeStoreApi();
  const done = useRef(false);
  useEffect(() => {
    if (!ready || done.current) return;
    done.current = true;
    const { server, sid, end, steps } = store.getState();
    const pending = readInFlight(server, sid);
    if (!pending) return;
    if (end || !pending.taskId) {
      writeInFlight(server, sid, null);
      if (!pending.taskId && steps.some((x) => x.id === pending.id)) {
        store
          .getState()
          .failStep(
            pending.id,
            "interrupted",
            "The page was reloaded before the server sent a task_id: the call cannot be picked up.",
          );
      }
      return;
    }
    // A step recorded by the relay for the same task_id is the same call: continue it in place.
    const same =
      steps.find((x) => x.taskId === pending.taskId) ??
      steps.findLast(
        (x) =>
          x.status === "interrupted" &&
          x.tool === pending.tool &&
          JSON.stringify(x.input) === JSON.stringify(pending.input),
      );
    void caller.resume({ ...pending, id: same?.id ?? pending.id });
  }, [ready, store, caller]);
}
