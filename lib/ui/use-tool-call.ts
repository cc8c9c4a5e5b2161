// Tool calls from the episode page: POST /{env}/call through the relay with the typed client. The
// call is shown at once as this tab's own; the relay records it and the live feed brings its step
// (frames, result) to every view, this tab included, matched by the call id this tab sends. A call
// can be let go of (the server may still finish it; the record will show the result), and a step
// left in flight by a restart can be picked up again by its task_id. The call's stream is read in
// the tab's worker (off-thread.ts): a 50 MiB result is reassembled and parsed there, not here.
"use client";

import { useCallback, useEffect, useMemo, useRef } from "react";
import type { CallEvent } from "@/lib/ors/client/call-tool";
import { isAbortError } from "@/lib/ors/client/errors";
import type { JsonObject } from "@/lib/ors/protocol";
import { CALL_ID_HEADER } from "@/lib/relay/annotations";
import type { TrajectoryStep } from "@/lib/trajectory/schema";
import { relayBaseUrl } from "./api-base";
import { useEpisodeStoreApi } from "./episode-store";
import { callToolOffThread } from "./off-thread";
import { loadOrsClient } from "./ors-loader";
import { errorMessage } from "./use-episode";

/** Who chose the call, when a policy did (lib/relay/annotations.ts: AGENT_HEADER). */
const AGENT_HEADER = "x-playground-agent";
/** A call sent again from the protocol log (lib/relay/annotations.ts: STEP_HEADER). */
const STEP_HEADER = "x-playground-step";
const ABANDON = "abandoned";
const UNMOUNT = "unmounted";

function newCallId(): string {
  return typeof crypto !== "undefined" && "randomUUID" in crypto
    ? crypto.randomUUID()
    : `${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 12)}`;
}

export interface CallOptions {
  /** The `x-playground-agent` value of a call a model proposed (the model-turn API gives it). */
  agent?: string;
  /** The `x-playground-step` value of a call sent again from the protocol log (protocol-log-replay.ts). */
  step?: string;
}

export interface ToolCaller {
  /** Calls a tool; resolves with this tab's id of the call when its stream ends. */
  call: (tool: string, input: JsonObject, options?: CallOptions) => Promise<string>;
  /** Stops watching the calls this tab streams (the server may still finish them). */
  abandon: () => void;
  /** Picks up a step left in flight (e.g. the playground restarted) by re-posting its task_id. */
  pickUp: (step: TrajectoryStep) => Promise<void>;
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
    async (
      tool: string,
      input: JsonObject,
      resume: TrajectoryStep | null,
      options: CallOptions = {},
    ): Promise<string> => {
      const { server, env, sid, apiBase } = store.getState();
      const callId = newCallId();
      const ctrl = new AbortController();
      controllers.current.set(callId, ctrl);
      const s = store.getState();
      s.addCall({ callId, tool, input });
      if (resume) s.updateCall(callId, { index: resume.index });
      try {
        const call = { name: tool, input, ...(resume?.task_id ? { task_id: resume.task_id } : {}) };
        const headers = {
          [CALL_ID_HEADER]: callId,
          ...(options.agent ? { [AGENT_HEADER]: options.agent } : {}),
          ...(options.step ? { [STEP_HEADER]: options.step } : {}),
        };
        // Reconnections and give-ups happen in this tab only: kept as its notes on the call.
        const onNote = (ev: CallEvent) => {
          const c = store.getState().calls.find((x) => x.callId === callId);
          store.getState().updateCall(callId, { notes: [...(c?.notes ?? []), ev] });
        };
        await callToolOffThread(
          relayBaseUrl(server, apiBase),
          env,
          sid,
          call,
          { signal: ctrl.signal, headers, onNote },
          // Where no worker can run: the same call on this thread.
          async () => {
            const client = await loadOrsClient(server, apiBase);
            await client.callTool(env, sid, call, {
              signal: ctrl.signal,
              headers,
              onEvent: (ev) => {
                if (ev.type === "reconnect" || ev.type === "give-up") onNote(ev);
              },
            });
          },
        );
        store.getState().updateCall(callId, { watching: false });
      } catch (err) {
        const reason = ctrl.signal.reason as unknown;
        const why = reason instanceof DOMException ? reason.message : "";
        if (why === UNMOUNT) return callId; // the page went away: the relay records the call anyway
        if (why === ABANDON || (ctrl.signal.aborted && isAbortError(err))) {
          store.getState().updateCall(callId, { watching: false, abandoned: true });
          return callId;
        }
        store.getState().updateCall(callId, { watching: false, error: errorMessage(err) });
      } finally {
        controllers.current.delete(callId);
      }
      return callId;
    },
    [store],
  );

  const call = useCallback(
    (tool: string, input: JsonObject, options?: CallOptions) => run(tool, input, null, options),
    [run],
  );
  const pickUp = useCallback(
    async (step: TrajectoryStep) => {
      await run(step.tool, step.input, step);
    },
    [run],
  );
  const abandon = useCallback(() => {
    for (const c of controllers.current.values()) c.abort(new DOMException(ABANDON, "AbortError"));
  }, []);

  return useMemo(() => ({ call, abandon, pickUp }), [call, abandon, pickUp]);
}
