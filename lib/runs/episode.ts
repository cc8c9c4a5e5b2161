// One attempt at an episode of a run (docs/runs.md "Running"): a session through the recording relay
// (so it is a trajectory like any other, tagged with the run, task and repeat), the prompt and the
// session's tools, then the policy's turns — each call sent with the agent's mark, tool errors kept
// as steps the policy sees — until the environment finishes it, the policy stops, or the turn limit;
// the session deleted in every case. It ends with a typed outcome (docs/runs.md "Outcomes"), and the
// recorded episode with the matching end reason. Both executors (in process, queue) play through it.
import "server-only";
import type { Recorder } from "@/lib/episodes/recorder";
import { isOrsClientError, type OrsClient } from "@/lib/ors/client";
import { type JsonObject, type RunToolOutput, type ToolSpec, untilAborted } from "@/lib/ors/protocol";
import { AGENT_HEADER, encodeAgent, encodeRunTag, RUN_HEADER } from "@/lib/relay/annotations";
import type {
  AttemptEnd,
  AttemptOutcome,
  PlaygroundStore,
  RunEpisodeKey,
  RunEpisodePatch,
  RunRecord,
} from "@/lib/store/types";
import type { EndReason, StepAgent } from "@/lib/trajectory/schema";
import {
  agentEndOf,
  agentOf,
  type CallOutcome,
  type Policy,
  type PolicyEpisode,
  PolicyError,
  type PolicyToolCall,
} from "./policy";
import { retryingFetch } from "./retry-fetch";

export interface EpisodeDeps {
  store: PlaygroundStore;
  recorder: Pick<Recorder, "idle" | "endEpisode">;
  /** A client of a known server through the recording relay: `headers` on every request, its fetch wrapped. */
  clientFor(
    server: string,
    o: { headers: Record<string, string>; wrapFetch: (f: typeof fetch) => typeof fetch },
  ): OrsClient;
  /** Wraps the ORS fetch of every episode (the shared capacity's pauses); default: 429s retried alone. */
  wrapServerFetch?: (server: string, f: typeof fetch) => typeof fetch;
  now?: () => number;
}

export interface EpisodePlan {
  run: RunRecord;
  key: RunEpisodeKey;
  policy: Policy;
  maxTurns: number;
  timeoutMs: number;
  /** Aborted to cancel (the run was cancelled, or the process is stopping: `reason` says which). */
  stop: AbortSignal;
  /** The process playing it, which claimed the episode (RunStore.claimEpisode): its writes only count while it holds it. */
  owner: string;
  /** When it was claimed. */
  startedAt: number;
}

/**
 * Why an episode stopped early, carried by the abort reason of its signal. `lost`: the run is no
 * longer this process's to play (another process interrupted, took over or deleted it): nothing
 * more is written to the run, only to the episodes this process still holds.
 */
export class EpisodeStop extends Error {
  constructor(
    readonly status: "cancelled" | "interrupted",
    message: string,
    readonly lost = false,
  ) {
    super(message);
    this.name = "EpisodeStop";
  }
}

class EpisodeTimeout extends Error {}

/** What one attempt played so far. */
interface Played {
  sid: string | null;
  trajectoryId: string | null;
  turns: number;
  promptTokens: number;
  completionTokens: number;
  sawUsage: boolean;
  /** Why the policy stopped (`finished` when the environment finished it). */
  stop: string | null;
}

/** A duration as a message says it: `600 s`, `0.3 s`. */
const seconds = (ms: number) =>
  ms >= 10_000 ? `${Math.round(ms / 1000)} s` : `${Number((ms / 1000).toFixed(1))} s`;

const message = (err: unknown) => (err instanceof Error ? err.message : String(err));

/**
 * A failed tool call that the environment answered (its tool raised: `event: error`; it refused the
 * input with a 4xx): a tool error the policy sees, not a lost episode. Null for what ends the episode.
 */
function toolErrorOf(err: unknown): string | null {
  if (!isOrsClientError(err)) return null;
  if (err.kind === "stream" && err.status !== 0) return err.detail;
  if (
    err.kind === "http" &&
    err.status >= 400 &&
    err.status < 500 &&
    err.status !== 404 &&
    err.status !== 410
  )
    return `HTTP ${err.status}: ${err.detail}`;
  return null;
}

async function toolsOf(ors: OrsClient, env: string, sid: string, signal: AbortSignal): Promise<ToolSpec[]> {
  try {
    return (await ors.taskTools(env, sid, { signal })).tools;
  } catch (err) {
    // A server without /task_tools: the shared tools are all there is.
    if (isOrsClientError(err) && (err.status === 404 || err.status === 405))
      return (await ors.tools(env, { signal })).tools;
    throw err;
  }
}

/** The attempt's signal: the run's stop and the episode's time limit together. */
function episodeSignal(plan: EpisodePlan): { signal: AbortSignal; dispose(): void } {
  const abort = new AbortController();
  const onStop = () => abort.abort(plan.stop.reason);
  plan.stop.addEventListener("abort", onStop, { once: true });
  if (plan.stop.aborted) onStop();
  const timer = setTimeout(
    () =>
      abort.abort(
        new EpisodeTimeout(`the episode took longer than the run's limit of ${seconds(plan.timeoutMs)}`),
      ),
    plan.timeoutMs,
  );
  return {
    signal: abort.signal,
    dispose() {
      clearTimeout(timer);
      plan.stop.removeEventListener("abort", onStop);
    },
  };
}

/** `/create_session` and `/create` on the task; the recorded trajectory's id noted on the episode. */
async function openSession(
  deps: EpisodeDeps,
  plan: EpisodePlan,
  ors: OrsClient,
  p: Played,
  signal: AbortSignal,
) {
  const { run, key } = plan;
  p.sid = (await ors.createSession({ signal })).sid;
  // Noted at once: if this process dies, whoever takes the episode over deletes the session.
  await deps.store.updateEpisode(run.id, key, { sid: p.sid }, { owner: plan.owner });
  await ors.create(p.sid, { env_name: run.env, split: run.split, index: key.taskIndex }, { signal });
  await deps.recorder.idle();
  p.trajectoryId = (await deps.store.findRunning(run.server, p.sid))?.id ?? null;
  if (p.trajectoryId)
    await deps.store.updateEpisode(run.id, key, { trajectoryId: p.trajectoryId }, { owner: plan.owner });
}

/** The prompt and the session's tools, and the policy's state for this episode. */
async function startPolicy(plan: EpisodePlan, ors: OrsClient, sid: string, signal: AbortSignal) {
  const { run, key, policy } = plan;
  const prompt = await ors.prompt(run.env, sid, { signal });
  const tools = await toolsOf(ors, run.env, sid, signal);
  let task: Promise<JsonObject | null> | null = null;
  const started = policy.startEpisode({
    server: run.server,
    env: run.env,
    split: run.split,
    taskIndex: key.taskIndex,
    repeat: key.repeat,
    prompt,
    tools,
    task: () =>
      (task ??= ors
        .task(run.env, run.split, key.taskIndex, { signal })
        .then((r) => r.task)
        .catch(() => null)),
    signal,
  });
  return untilAborted(Promise.resolve(started), signal);
}

/** One call through the relay; an error the environment answered is an `ok: false` result. */
async function callOne(
  ors: OrsClient,
  env: string,
  sid: string,
  call: PolicyToolCall,
  agent: StepAgent,
  signal: AbortSignal,
): Promise<RunToolOutput> {
  try {
    return await ors.callTool(
      env,
      sid,
      { name: call.tool, input: call.input },
      { signal, headers: { [AGENT_HEADER]: encodeAgent(agent) } },
    );
  } catch (err) {
    if (signal.aborted) throw err;
    let toolError = toolErrorOf(err);
    // A 404 may be an unknown tool (spec: "POST /{env}/call") or a lost session: asked.
    if (toolError === null && isOrsClientError(err) && err.kind === "http" && err.status === 404) {
      const alive = await ors.ping(sid, { signal }).then(
        () => true,
        () => false,
      );
      if (alive) toolError = `HTTP 404: ${err.detail}`;
    }
    if (toolError === null) throw err;
    return { ok: false, error: toolError };
  }
}

/** The policy's turns until the environment finishes the episode, the policy stops, or the turn limit. */
async function playTurns(
  deps: EpisodeDeps,
  plan: EpisodePlan,
  ors: OrsClient,
  episode: PolicyEpisode,
  p: Played,
  signal: AbortSignal,
): Promise<void> {
  const { run, policy } = plan;
  let outcomes: CallOutcome[] = [];
  for (;;) {
    if (p.turns >= plan.maxTurns) {
      p.stop = "max_turns";
      if (p.trajectoryId)
        await deps.store.setAgentEnd(p.trajectoryId, { reason: "max_turns", message: null });
      return;
    }
    const turn = await untilAborted(episode.next(outcomes), signal);
    p.turns++;
    if (turn.usage) {
      p.sawUsage = true;
      p.promptTokens += turn.usage.promptTokens;
      p.completionTokens += turn.usage.completionTokens;
    }
    if (turn.calls.length === 0) {
      p.stop = turn.stop ?? "policy_stop";
      if (p.trajectoryId) await deps.store.setAgentEnd(p.trajectoryId, agentEndOf(turn));
      return;
    }
    outcomes = [];
    for (const [i, call] of turn.calls.entries()) {
      const agent = agentOf(policy, turn, p.turns, call.id, i);
      const result = await callOne(ors, run.env, p.sid!, call, agent, signal);
      outcomes.push({ call, result });
      if (result.ok && result.output.finished) {
        p.stop = "finished";
        return;
      }
    }
  }
}

/**
 * The typed outcome of an attempt from what stopped it (null: it played to its end), and the end
 * reason of its recorded episode (none for `scored`: the environment's `finished` ended it).
 */
export function outcomeOf(
  failure: unknown,
  stop: string | null,
): { outcome: AttemptOutcome; error: string | null; end: EndReason | null; stop: string | null } {
  if (failure === null)
    return stop === "finished"
      ? { outcome: "scored", error: null, end: null, stop }
      : { outcome: "policy_stopped", error: null, end: "policy_stopped", stop };
  if (failure instanceof EpisodeStop)
    return { outcome: failure.status, error: failure.message, end: failure.status, stop };
  if (failure instanceof EpisodeTimeout)
    return { outcome: "timeout", error: failure.message, end: "timeout", stop: "timeout" };
  // The model endpoint failed after its retries (or the policy itself failed).
  if (failure instanceof PolicyError)
    return { outcome: "model_error", error: failure.message, end: "error", stop };
  return { outcome: "env_error", error: message(failure), end: "error", stop };
}

/**
 * Plays one attempt at an episode, claimed already by `plan.owner` (status `running`); resolves
 * with how it ended (never throws for what the episode met).
 */
/** What an episode's claim sets: playing from `startedAt`, nothing of an earlier attempt left. */
export function runningPatch(startedAt: number): RunEpisodePatch {
  return {
    status: "running",
    startedAt,
    endedAt: null,
    trajectoryId: null,
    error: null,
    stop: null,
    outcome: null,
  };
}

export async function playEpisode(deps: EpisodeDeps, plan: EpisodePlan): Promise<AttemptEnd> {
  const { run, key } = plan;
  const { signal, dispose } = episodeSignal(plan);
  const wrap = deps.wrapServerFetch;
  const ors = deps.clientFor(run.server, {
    headers: { [RUN_HEADER]: encodeRunTag({ id: run.id, task_index: key.taskIndex, repeat: key.repeat }) },
    wrapFetch: (f) => (wrap ? wrap(run.server, f) : retryingFetch(f)),
  });
  const p: Played = {
    sid: null,
    trajectoryId: null,
    turns: 0,
    promptTokens: 0,
    completionTokens: 0,
    sawUsage: false,
    stop: null,
  };
  let failure: unknown = null;
  try {
    await openSession(deps, plan, ors, p, signal);
    const episode = await startPolicy(plan, ors, p.sid!, signal);
    await playTurns(deps, plan, ors, episode, p, signal);
  } catch (err) {
    failure = signal.aborted ? signal.reason : err;
  } finally {
    dispose();
  }
  return closeEpisode(deps, plan, ors, p, outcomeOf(failure, p.stop));
}

/**
 * Ends the recorded episode with its reason (before the session is deleted, which would say
 * "closed"), deletes the session whatever happened, and says how the attempt ended.
 */
async function closeEpisode(
  deps: EpisodeDeps,
  plan: EpisodePlan,
  ors: OrsClient,
  p: Played,
  o: ReturnType<typeof outcomeOf>,
): Promise<AttemptEnd> {
  const now = deps.now ?? Date.now;
  const { run } = plan;
  await deps.recorder.idle();
  if (!p.trajectoryId && p.sid)
    p.trajectoryId = (await deps.store.findBySession(run.server, p.sid))?.id ?? null;
  if (p.trajectoryId && o.end) await deps.recorder.endEpisode(p.trajectoryId, o.end, now(), o.error);
  if (p.sid) await ors.delete(p.sid).catch(() => {});
  await deps.recorder.idle();
  const recorded = p.trajectoryId ? await deps.store.summary(p.trajectoryId) : null;
  const counted = o.outcome === "scored" || o.outcome === "policy_stopped";
  const endedAt = now();
  return {
    outcome: o.outcome,
    status: counted ? "done" : o.outcome === "cancelled" ? "cancelled" : "errored",
    error: o.error,
    stop: o.stop,
    trajectoryId: p.trajectoryId,
    reward: counted ? (recorded?.total_reward ?? 0) : null,
    finished: counted ? recorded?.end_reason === "finished" || o.stop === "finished" : null,
    turns: p.turns,
    steps: recorded?.num_steps ?? 0,
    durationMs: endedAt - plan.startedAt,
    promptTokens: p.sawUsage ? p.promptTokens : null,
    completionTokens: p.sawUsage ? p.completionTokens : null,
    endedAt,
  };
}
