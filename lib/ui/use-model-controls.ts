// A model at the controls of the live episode (docs/runs.md "A model at the controls"): Step asks
// the model-turn API for one turn (the runs' own policy code, no tool called) and shows it — its
// text, its calls — before anything is sent; each call is sent (as proposed or as edited) through
// the page's tool caller with the turn's `x-playground-agent` value, or rejected. Play steps and
// sends until the episode finishes, the model stops, or `maxTurns`; Pause stops after the call in
// flight. A call made by hand meanwhile is the user taking over: a pending proposal is dropped
// and Play pauses. The episode itself stays the record on the server (every view shows the steps).
"use client";

import { useCallback, useEffect, useRef, useState } from "react";
import type { JsonObject } from "@/lib/ors/protocol";
import type { TrajectoryStep } from "@/lib/trajectory/schema";
import {
  type EpisodeStore,
  selectEnded,
  selectSteps,
  useEpisodeStore,
  useEpisodeStoreApi,
} from "./episode-store";
import { type ModelTurnResponse, modelTurnRequest } from "./run-queries";
import { errorMessage } from "./use-episode";
import type { ToolCaller } from "./use-tool-call";

/** How long a sent call may take to show as an ended step in the record before Play gives up. */
const STEP_WAIT_MS = 10 * 60_000;

export interface ModelSettings {
  endpoint: string;
  model: string;
  /** Turns one Play may take at most. */
  maxTurns: number;
  temperature?: number;
}

export type ProposedCallState = "pending" | "sending" | "sent" | "rejected";

export interface Proposal {
  turn: number;
  message: string | null;
  usage: ModelTurnResponse["usage"];
  /** Why the model proposes no call (it answered in words, or its call was not valid JSON). */
  stop: string | null;
  calls: (ModelTurnResponse["toolCalls"][number] & { state: ProposedCallState })[];
}

export type ModelActivity = "idle" | "thinking" | "sending";

export interface ModelControls {
  proposal: Proposal | null;
  activity: ModelActivity;
  playing: boolean;
  /** Pause was asked: Play stops after the call in flight. */
  pausing: boolean;
  /** Turns the current (or last) Play took. */
  playedTurns: number;
  error: string | null;
  /** What happened that the user should know (paused, stopped at max turns, the model stopped). */
  notice: string | null;
  step: () => Promise<void>;
  play: () => Promise<void>;
  pause: () => void;
  /** Sends call `i` of the proposal, with `input` (as proposed or as edited). */
  send: (i: number, input: JsonObject) => Promise<void>;
  reject: (i: number) => void;
  dismiss: () => void;
}

class Stopped extends Error {}

/** Resolves with the ended step the model's call became, or throws when the call never made one. */
function waitForStep(
  store: EpisodeStore,
  turn: number,
  callId: string,
  signal: AbortSignal,
): Promise<TrajectoryStep> {
  return new Promise((resolve, reject) => {
    const find = () =>
      selectSteps(store.getState()).find(
        (s) => s.agent?.call_id === callId && s.agent.turn === turn && s.ok !== null,
      );
    const done = (fn: () => void) => {
      unsubscribe();
      clearTimeout(timer);
      signal.removeEventListener("abort", onAbort);
      fn();
    };
    const check = () => {
      const step = find();
      if (step) done(() => resolve(step));
      else if (selectEnded(store.getState()) && store.getState().trajectory?.end_reason !== "finished")
        done(() => reject(new Error("the episode ended before the call's result was recorded")));
    };
    const onAbort = () => done(() => reject(new Stopped()));
    const unsubscribe = store.subscribe(check);
    const timer = setTimeout(
      () => done(() => reject(new Error("the call's step did not show in the record"))),
      STEP_WAIT_MS,
    );
    signal.addEventListener("abort", onAbort);
    check();
  });
}

export function useModelControls(caller: ToolCaller, settings: ModelSettings): ModelControls {
  const store = useEpisodeStoreApi();
  const [proposal, setProposal] = useState<Proposal | null>(null);
  const [activity, setActivity] = useState<ModelActivity>("idle");
  const [playing, setPlaying] = useState(false);
  const [pausing, setPausing] = useState(false);
  const [playedTurns, setPlayedTurns] = useState(0);
  const [error, setError] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const proposalRef = useRef<Proposal | null>(null);
  const pauseRef = useRef(false);
  const thinking = useRef<AbortController | null>(null);
  const settingsRef = useRef(settings);
  settingsRef.current = settings;
  const mounted = useRef(new AbortController());

  useEffect(() => {
    const m = new AbortController();
    mounted.current = m;
    return () => {
      m.abort();
      thinking.current?.abort();
    };
  }, []);

  const update = useCallback((p: Proposal | null) => {
    proposalRef.current = p;
    setProposal(p);
  }, []);

  // A step nobody proposed (a call by hand, or another client's) is the user taking over.
  const steps = useEpisodeStore(selectSteps);
  const seen = useRef<number | null>(null);
  useEffect(() => {
    const before = seen.current ?? steps.length;
    seen.current = steps.length;
    if (!steps.slice(before).some((s) => !s.agent)) return;
    if (pauseRef.current === false && playing) {
      pauseRef.current = true;
      setPausing(true);
      setNotice("You called a tool by hand: the model is paused. Play or Step to hand it back.");
    } else if (proposalRef.current?.calls.some((c) => c.state === "pending")) {
      update(null);
      setNotice("You called a tool by hand: the model's proposal was dropped. Step to ask it again.");
    }
    thinking.current?.abort();
  }, [steps, playing, update]);

  /** One model turn for the episode as recorded now. */
  const think = useCallback(async (): Promise<Proposal> => {
    const t = store.getState().trajectory;
    if (!t) throw new Error("the episode is not open yet");
    const { endpoint, model, temperature } = settingsRef.current;
    if (!endpoint) throw new Error("choose a model endpoint (PLAYGROUND_MODELS)");
    if (!model.trim()) throw new Error("give the model's id");
    const ctrl = new AbortController();
    thinking.current = ctrl;
    setActivity("thinking");
    try {
      const r = await modelTurnRequest(
        t.id,
        { endpoint, model: model.trim(), ...(temperature === undefined ? {} : { temperature }) },
        ctrl.signal,
      );
      const p: Proposal = {
        turn: r.turn,
        message: r.message,
        usage: r.usage,
        stop: r.stop,
        calls: r.toolCalls.map((c) => ({ ...c, state: "pending" as const })),
      };
      update(p);
      return p;
    } catch (err) {
      if (ctrl.signal.aborted) throw new Stopped();
      throw err;
    } finally {
      if (thinking.current === ctrl) thinking.current = null;
      setActivity("idle");
    }
  }, [store, update]);

  const setCallState = useCallback(
    (i: number, state: ProposedCallState) => {
      const p = proposalRef.current;
      if (!p) return;
      update({ ...p, calls: p.calls.map((c, j) => (j === i ? { ...c, state } : c)) });
    },
    [update],
  );

  /** Sends call `i`; resolves with its recorded step. */
  const sendCall = useCallback(
    async (i: number, input: JsonObject): Promise<TrajectoryStep> => {
      const p = proposalRef.current;
      const c = p?.calls[i];
      if (!p || !c) throw new Error("no such proposed call");
      setCallState(i, "sending");
      setActivity("sending");
      try {
        const callId = await caller.call(c.tool, input, { agent: c.agent });
        const local = store.getState().calls.find((x) => x.callId === callId);
        if (local?.error) throw new Error(local.error);
        const step = await waitForStep(store, p.turn, c.id, mounted.current.signal);
        setCallState(i, "sent");
        // `finished` is final: the turn's other calls are not played (as in a run).
        const left = proposalRef.current?.calls.some((x) => x.state === "pending");
        if (step.finished || !left) update(null);
        return step;
      } catch (err) {
        setCallState(i, "pending");
        throw err;
      } finally {
        setActivity("idle");
      }
    },
    [caller, store, setCallState, update],
  );

  const fail = useCallback((err: unknown) => {
    if (err instanceof Stopped) return;
    setError(errorMessage(err));
  }, []);

  const step = useCallback(async () => {
    setError(null);
    setNotice(null);
    try {
      const p = await think();
      if (p.calls.length === 0) setNotice(stopNotice(p));
    } catch (err) {
      fail(err);
    }
  }, [think, fail]);

  const send = useCallback(
    async (i: number, input: JsonObject) => {
      setError(null);
      try {
        await sendCall(i, input);
      } catch (err) {
        fail(err);
      }
    },
    [sendCall, fail],
  );

  const reject = useCallback(
    (i: number) => {
      setCallState(i, "rejected");
      if (!proposalRef.current?.calls.some((c) => c.state === "pending")) update(null);
    },
    [setCallState, update],
  );

  const play = useCallback(async () => {
    setError(null);
    setNotice(null);
    pauseRef.current = false;
    setPausing(false);
    setPlaying(true);
    setPlayedTurns(0);
    const limit = settingsRef.current.maxTurns;
    let turns = 0;
    try {
      while (!pauseRef.current && !selectEnded(store.getState())) {
        if (turns >= limit) {
          setNotice(`Stopped at the turn limit (${limit} turn${limit === 1 ? "" : "s"}).`);
          break;
        }
        // A proposal left pending by Step is played first, as it stands.
        let p = proposalRef.current?.calls.some((c) => c.state === "pending")
          ? proposalRef.current!
          : await think();
        if (p.calls.length === 0) {
          setNotice(stopNotice(p));
          break;
        }
        turns++;
        setPlayedTurns(turns);
        let finished = false;
        for (let i = 0; i < p.calls.length && !finished; i++) {
          if (p.calls[i]!.state !== "pending") continue;
          if (pauseRef.current) break;
          finished = (await sendCall(i, p.calls[i]!.input as JsonObject)).finished;
          p = proposalRef.current ?? p;
        }
        if (finished) break;
      }
    } catch (err) {
      fail(err);
    } finally {
      // Paused (by the button, or by a call made by hand, which says so itself).
      if (pauseRef.current) setNotice((n) => n ?? "Paused.");
      setPlaying(false);
      setPausing(false);
      pauseRef.current = false;
    }
  }, [store, think, sendCall, fail]);

  const pause = useCallback(() => {
    pauseRef.current = true;
    setPausing(true);
    // A turn being thought about is dropped; a call in flight finishes (it cannot be taken back).
    thinking.current?.abort();
  }, []);

  const dismiss = useCallback(() => {
    update(null);
    setNotice(null);
    setError(null);
  }, [update]);

  return {
    proposal,
    activity,
    playing,
    pausing,
    playedTurns,
    error,
    notice,
    step,
    play,
    pause,
    send,
    reject,
    dismiss,
  };
}

function stopNotice(p: Proposal): string {
  const why =
    p.stop === "invalid_tool_call"
      ? "its tool call was not a valid JSON object"
      : "it answered without a tool call";
  return `The model proposes no call: ${why}.`;
}
