// A model at the controls of the live episode (docs/runs.md "A model at the controls"): Step asks
// the model-turn API for one turn (the runs' own policy code, no tool called) and shows it — its
// text, its calls — before anything is sent; each call is sent (as proposed or as edited) through
// the page's tool caller with the turn's `x-playground-agent` value, or rejected. Play steps and
// sends until the episode finishes, the model stops, a call fails the tool's schema (shown, as Step
// shows it, and not sent), or `maxTurns`; Pause stops after the call in flight. A call by hand is
// the user taking over, at once: the turn being thought about is dropped, Play pauses, a pending
// proposal is dropped, and nothing more is sent; once the episode has ended nothing is sent at all.
// The episode itself stays the record on the server (every view shows the steps).
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
  /**
   * What is wrong with a proposed input for its tool (none: it may be sent): the tool form's own
   * verdict, so Play refuses what Step's form refuses.
   */
  checkInput?: (tool: string, input: JsonObject) => Promise<string[]>;
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

/**
 * What the user should know: `paused` notices (a pause, a take-over) say how to hand the episode
 * back, so they go once the episode has ended; the others stay.
 */
export interface ModelNotice {
  text: string;
  kind: "paused" | "stopped";
}

export interface ModelControls {
  proposal: Proposal | null;
  activity: ModelActivity;
  playing: boolean;
  /** Pause was asked: Play stops after the call in flight. */
  pausing: boolean;
  /** Turns the current (or last) Play took. */
  playedTurns: number;
  error: string | null;
  notice: ModelNotice | null;
  step: () => Promise<void>;
  play: () => Promise<void>;
  pause: () => void;
  /** Sends call `i` of the proposal, with `input` (as proposed or as edited). */
  send: (i: number, input: JsonObject) => Promise<void>;
  reject: (i: number) => void;
  dismiss: () => void;
}

class Stopped extends Error {}

const TAKEN_OVER_PLAYING = "You called a tool by hand: the model is paused. Play or Step to hand it back.";
const TAKEN_OVER_PROPOSAL =
  "You called a tool by hand: the model's proposal was dropped. Step to ask it again.";

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

function stopNotice(p: Proposal): ModelNotice {
  const why =
    p.stop === "invalid_tool_call"
      ? "its tool call was not a valid JSON object"
      : "it answered without a tool call";
  return { kind: "stopped", text: `The model proposes no call: ${why}.` };
}

const pending = (p: Proposal | null) => !!p?.calls.some((c) => c.state === "pending");

/** The panel's own state: the proposal (kept in a ref too, for the loops), activity, play, messages. */
function useControlsState() {
  const [proposal, setProposal] = useState<Proposal | null>(null);
  const [activity, setActivity] = useState<ModelActivity>("idle");
  const [playing, setPlaying] = useState(false);
  const [pausing, setPausing] = useState(false);
  const [playedTurns, setPlayedTurns] = useState(0);
  const [error, setError] = useState<string | null>(null);
  const [notice, setNotice] = useState<ModelNotice | null>(null);
  const proposalRef = useRef<Proposal | null>(null);
  const update = useCallback((p: Proposal | null) => {
    proposalRef.current = p;
    setProposal(p);
  }, []);
  const setCallState = useCallback(
    (i: number, state: ProposedCallState) => {
      const p = proposalRef.current;
      if (p) update({ ...p, calls: p.calls.map((c, j) => (j === i ? { ...c, state } : c)) });
    },
    [update],
  );
  return {
    proposal,
    proposalRef,
    update,
    setCallState,
    activity,
    setActivity,
    playing,
    setPlaying,
    pausing,
    setPausing,
    playedTurns,
    setPlayedTurns,
    error,
    setError,
    notice,
    setNotice,
  };
}

type ControlsState = ReturnType<typeof useControlsState>;

/** The turn being thought about, and whether Play was asked to stop: both dropped by a pause or a take-over. */
interface Flow {
  thinking: { current: AbortController | null };
  paused: { current: boolean };
}

/**
 * The user taking over: a call by hand from this tab (at once, before it is sent), or a step
 * nobody proposed in the record (another client's). Play pauses; a pending proposal is dropped.
 */
function useTakeOver(st: ControlsState, flow: Flow) {
  const { playing, proposalRef, update, setPausing, setNotice } = st;
  const takeOver = useCallback(() => {
    flow.thinking.current?.abort();
    if (playing) {
      flow.paused.current = true;
      setPausing(true);
      setNotice({ kind: "paused", text: TAKEN_OVER_PLAYING });
    } else if (pending(proposalRef.current)) {
      update(null);
      setNotice({ kind: "paused", text: TAKEN_OVER_PROPOSAL });
    }
  }, [playing, flow, proposalRef, update, setPausing, setNotice]);
  const takeOvers = useEpisodeStore((s) => s.takeOvers);
  const seenTakeOvers = useRef(takeOvers);
  useEffect(() => {
    if (takeOvers === seenTakeOvers.current) return;
    seenTakeOvers.current = takeOvers;
    takeOver();
  }, [takeOvers, takeOver]);
  const steps = useEpisodeStore(selectSteps);
  const seenSteps = useRef<number | null>(null);
  useEffect(() => {
    const before = seenSteps.current ?? steps.length;
    seenSteps.current = steps.length;
    if (steps.slice(before).some((s) => !s.agent)) takeOver();
  }, [steps, takeOver]);
}

export function useModelControls(caller: ToolCaller, settings: ModelSettings): ModelControls {
  const store = useEpisodeStoreApi();
  const st = useControlsState();
  const { proposalRef, update, setCallState, setActivity, setError, setNotice } = st;
  const flow = useRef<Flow>({ thinking: { current: null }, paused: { current: false } }).current;
  const settingsRef = useRef(settings);
  settingsRef.current = settings;
  const mounted = useRef(new AbortController());
  useEffect(() => {
    const m = new AbortController();
    mounted.current = m;
    return () => {
      m.abort();
      flow.thinking.current?.abort();
    };
  }, [flow]);
  useTakeOver(st, flow);

  /** One model turn for the episode as recorded now. */
  const think = useCallback(async (): Promise<Proposal> => {
    const t = store.getState().trajectory;
    if (!t) throw new Error("the episode is not open yet");
    const { endpoint, model, temperature } = settingsRef.current;
    if (!endpoint) throw new Error("choose a model endpoint (PLAYGROUND_MODELS)");
    if (!model.trim()) throw new Error("give the model's id");
    const ctrl = new AbortController();
    flow.thinking.current = ctrl;
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
      if (flow.thinking.current === ctrl) flow.thinking.current = null;
      setActivity("idle");
    }
  }, [store, update, flow, setActivity]);

  /** Sends call `i`; resolves with its recorded step. Nothing is sent once the episode has ended. */
  const sendCall = useCallback(
    async (i: number, input: JsonObject): Promise<TrajectoryStep> => {
      const p = proposalRef.current;
      const c = p?.calls[i];
      if (!p || !c) throw new Error("no such proposed call");
      if (selectEnded(store.getState())) throw new Error("the episode has ended: nothing more is sent");
      setCallState(i, "sending");
      setActivity("sending");
      try {
        const callId = await caller.call(c.tool, input, { agent: c.agent });
        const local = store.getState().calls.find((x) => x.callId === callId);
        if (local?.error) throw new Error(local.error);
        const step = await waitForStep(store, p.turn, c.id, mounted.current.signal);
        setCallState(i, "sent");
        // `finished` is final: the turn's other calls are not played (as in a run).
        if (step.finished || !pending(proposalRef.current)) update(null);
        return step;
      } catch (err) {
        setCallState(i, "pending");
        throw err;
      } finally {
        setActivity("idle");
      }
    },
    [caller, store, proposalRef, setCallState, setActivity, update],
  );

  const fail = useCallback(
    (err: unknown) => {
      if (!(err instanceof Stopped)) setError(errorMessage(err));
    },
    [setError],
  );

  const play = usePlay(store, st, flow, settingsRef, think, sendCall, fail);

  return {
    proposal: st.proposal,
    activity: st.activity,
    playing: st.playing,
    pausing: st.pausing,
    playedTurns: st.playedTurns,
    error: st.error,
    notice: st.notice,
    step: async () => {
      setError(null);
      setNotice(null);
      try {
        const p = await think();
        if (p.calls.length === 0) setNotice(stopNotice(p));
      } catch (err) {
        fail(err);
      }
    },
    play,
    pause: () => {
      flow.paused.current = true;
      st.setPausing(true);
      // A turn being thought about is dropped; a call in flight finishes (it cannot be taken back).
      flow.thinking.current?.abort();
    },
    send: async (i, input) => {
      setError(null);
      try {
        await sendCall(i, input);
      } catch (err) {
        fail(err);
      }
    },
    reject: (i) => {
      setCallState(i, "rejected");
      if (!pending(proposalRef.current)) update(null);
    },
    dismiss: () => {
      update(null);
      setNotice(null);
      setError(null);
    },
  };
}

/** Play: turns until the episode ends, the model stops, a call is refused, a pause, or the turn limit. */
function usePlay(
  store: EpisodeStore,
  st: ControlsState,
  flow: Flow,
  settingsRef: { current: ModelSettings },
  think: () => Promise<Proposal>,
  sendCall: (i: number, input: JsonObject) => Promise<TrajectoryStep>,
  fail: (err: unknown) => void,
) {
  const { proposalRef, setError, setNotice, setPlaying, setPausing, setPlayedTurns } = st;
  /** Whether Play may go on: not paused (by the button or a take-over), and the episode not ended. */
  const goOn = useCallback(() => !flow.paused.current && !selectEnded(store.getState()), [flow, store]);

  /** Plays a turn's pending calls in order; true when one finished the episode or Play must stop. */
  const playCalls = useCallback(
    async (first: Proposal): Promise<boolean> => {
      let p = first;
      for (let i = 0; i < p.calls.length; i++) {
        const c = p.calls[i]!;
        if (c.state !== "pending") continue;
        if (!goOn()) return true;
        const problems = (await settingsRef.current.checkInput?.(c.tool, c.input as JsonObject)) ?? [];
        if (problems.length) {
          // Shown as Step shows it, and not sent: the user edits or rejects it.
          setError(
            `The model's call of ${c.tool} does not fit the tool's input schema: ${problems.join("; ")}`,
          );
          return true;
        }
        if (!goOn()) return true;
        if ((await sendCall(i, c.input as JsonObject)).finished) return true;
        p = proposalRef.current ?? p;
      }
      return false;
    },
    [goOn, settingsRef, sendCall, setError, proposalRef],
  );

  return useCallback(async () => {
    setError(null);
    setNotice(null);
    flow.paused.current = false;
    setPausing(false);
    setPlaying(true);
    setPlayedTurns(0);
    const limit = settingsRef.current.maxTurns;
    try {
      for (let turns = 0; goOn(); ) {
        if (turns >= limit) {
          setNotice({
            kind: "stopped",
            text: `Stopped at the turn limit (${limit} turn${limit === 1 ? "" : "s"}).`,
          });
          break;
        }
        // A proposal left pending by Step is played first, as it stands.
        const p = pending(proposalRef.current) ? proposalRef.current! : await think();
        if (p.calls.length === 0) {
          setNotice(stopNotice(p));
          break;
        }
        setPlayedTurns(++turns);
        if (await playCalls(p)) break;
      }
    } catch (err) {
      fail(err);
    } finally {
      // Paused (by the button, or by a call made by hand, which says so itself).
      if (flow.paused.current) setNotice((n) => n ?? { kind: "paused", text: "Paused." });
      setPlaying(false);
      setPausing(false);
      flow.paused.current = false;
    }
  }, [
    flow,
    goOn,
    settingsRef,
    think,
    playCalls,
    fail,
    proposalRef,
    setError,
    setNotice,
    setPausing,
    setPlaying,
    setPlayedTurns,
  ]);
}
