"use client";

import { useCallback, useEffect, useReducer, useRef } from "react";
import type { QualityProgress } from "@/lib/conformance/quality/types";
import type { CheckInfo, CheckResult, ConformanceReport } from "@/lib/conformance/types";
// Runs the conformance check of one server through POST /api/servers/<name>/check and follows its
// NDJSON stream: the catalogue first, each result as it is decided, the quality checks' progress
// when asked for, the report at the end. A stream, so it stays out of the query cache; Stop (or
// leaving the page) aborts it and the server deletes the sessions the check made.
import { apiError } from "@/lib/ui/api-error";

export type CheckStatus = "idle" | "running" | "done" | "failed" | "stopped";

export interface CheckRunState {
  status: CheckStatus;
  /** Every check that will run (from the stream's start). */
  checks: CheckInfo[];
  /** Results so far, in the order they were decided. */
  results: CheckResult[];
  report: ConformanceReport | null;
  error: string | null;
  /** The quality checks' progress while they play (null when not asked, or not started). */
  quality: QualityProgress | null;
}

/** The options the page sends (all optional). */
export interface CheckRequest {
  env?: string;
  task?: string;
  tool?: string;
  input?: Record<string, unknown>;
  idleTimeoutMs?: number;
  /** The environment quality checks, when present (`{}`: with their defaults). */
  quality?: { split?: string; tasks?: number; seed?: number; oracle?: string };
}

type StreamMessage =
  | { type: "start"; checks: CheckInfo[] }
  | { type: "result"; result: CheckResult }
  | { type: "quality"; progress: QualityProgress }
  | { type: "report"; report: ConformanceReport }
  | { type: "error"; detail: string };

type Action =
  | { type: "begin" }
  | { type: "message"; message: StreamMessage }
  | { type: "end" }
  | { type: "fail"; error: string }
  | { type: "stopped" };

const initial: CheckRunState = {
  status: "idle",
  checks: [],
  results: [],
  report: null,
  error: null,
  quality: null,
};

function reducer(state: CheckRunState, action: Action): CheckRunState {
  switch (action.type) {
    case "begin":
      return { ...initial, status: "running" };
    case "message": {
      const m = action.message;
      if (m.type === "start") return { ...state, checks: m.checks };
      if (m.type === "result") return { ...state, results: [...state.results, m.result] };
      if (m.type === "quality") return { ...state, quality: m.progress };
      if (m.type === "report")
        return { ...state, report: m.report, results: m.report.results, status: "done" };
      return { ...state, status: "failed", error: m.detail };
    }
    case "end":
      return state.status === "running"
        ? { ...state, status: "failed", error: "the check's stream ended before its report" }
        : state;
    case "fail":
      return { ...state, status: "failed", error: action.error };
    case "stopped":
      return state.status === "running" ? { ...state, status: "stopped" } : state;
  }
}

export function useConformanceCheck(server: string) {
  const [state, dispatch] = useReducer(reducer, initial);
  const current = useRef<AbortController | null>(null);

  const run = useCallback(
    async (request: CheckRequest) => {
      current.current?.abort();
      const ac = new AbortController();
      current.current = ac;
      dispatch({ type: "begin" });
      try {
        const res = await fetch(`/api/servers/${encodeURIComponent(server)}/check`, {
          method: "POST",
          headers: { "content-type": "application/json", accept: "application/x-ndjson" },
          body: JSON.stringify(request),
          signal: ac.signal,
        });
        if (!res.ok || !res.body) {
          dispatch({ type: "fail", error: (await apiError(res)).detail });
          return;
        }
        const reader = res.body.getReader();
        const decoder = new TextDecoder();
        let buffered = "";
        while (true) {
          const { done, value } = await reader.read();
          if (done) break;
          buffered += decoder.decode(value, { stream: true });
          for (let nl = buffered.indexOf("\n"); nl >= 0; nl = buffered.indexOf("\n")) {
            const line = buffered.slice(0, nl).trim();
            buffered = buffered.slice(nl + 1);
            if (line) dispatch({ type: "message", message: JSON.parse(line) as StreamMessage });
          }
        }
        dispatch({ type: "end" });
      } catch (err) {
        if (ac.signal.aborted) dispatch({ type: "stopped" });
        else dispatch({ type: "fail", error: (err as Error).message || String(err) });
      }
    },
    [server],
  );

  const stop = useCallback(() => current.current?.abort(), []);

  // Leaving the page stops the check (the server then deletes its sessions).
  useEffect(() => () => current.current?.abort(), []);

  return { state, run, stop };
}
