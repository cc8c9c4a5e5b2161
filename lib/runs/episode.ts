// One episode of a run (docs/runs.md "Running"): a session through the recording relay (so it is a
// trajectory like any other, tagged with the run, task and repeat), the prompt and the session's
// tools, then the policy's turns — each call sent with the agent's mark, tool errors kept as steps
// the policy sees — until the environment finishes it, the policy stops, or the turn limit; the
// session deleted in every case. Cancel and the time limit end the recorded episode with their reason.
import "server-only";
import type { Recorder } from "@/lib/episodes/recorder";
import { isOrsClientError, type OrsClient } from "@/lib/ors/client";
import type { JsonObject, RunToolOutput, ToolSpec } from "@/lib/ors/protocol";
import { AGENT_HEADER, encodeAgent, encodeRunTag, RUN_HEADER } from "@/lib/relay/annotations";
import type { PlaygroundStore, RunEpisodeKey, RunEpisodePatch, RunRecord } from "@/lib/store/types";
import type { EndReason, StepAgent } from "@/lib/trajectory/schema";
import { agentEndOf, type CallOutcome, type Policy, type PolicyTurn } from "./policy";
import { retryingFetch } from "./retry-fetch";

export interface EpisodeDeps {
  store: PlaygroundStore;
  recorder: Pick<Recorder, "idle" | "endEpisode">;
  /** A client of a known server through the recording relay: `headers` on every request, its fetch wrapped. */
  clientFor(
    server: string,
    o: { headers: Record<string, string>; wrapFetch: (f: typeof fetch) => typeof fetch },
  ): OrsClient;
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

/** Runs `p`, giving up when `signal` aborts (a policy function may not listen to it). */
function untilAborted<T>(p: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    p.then(
      (v) => {
        signal.removeEventListener("abort", onAbort);
        resolve(v);
      },
      (e) => {
        signal.removeEventListener("abort", onAbort);
        reject(e);
      },
    );
  });
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

/**
 * Plays one episode, claimed already by `plan.owner` (status `running`); resolves with how it ended
 * (never throws for what the episode met).
 */
export async function playEpisode(deps: EpisodeDeps, plan: EpisodePlan): Promise<RunEpisodePatch> {
  const now = deps.now ?? Date.now;
  const { run, key, policy, startedAt } = plan;
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
  const signal = abort.signal;
  const ors = deps.clientFor(run.server, {
    headers: { [RUN_HEADER]: encodeRunTag({ id: run.id, task_index: key.taskIndex, repeat: key.repeat }) },
    wrapFetch: (f) => retryingFetch(f),
  });
  let sid: string | null = null;
  let trajectoryId: string | null = null;
  let turns = 0;
  let promptTokens = 0;
  let completionTokens = 0;
  let sawUsage = false;
  let stop: string | null = null;
  const addUsage = (t: PolicyTurn) => {
    if (!t.usage) return;
    sawUsage = true;
    promptTokens += t.usage.promptTokens;
    completionTokens += t.usage.completionTokens;
  };
  let outcome: {
    status: "done" | "errored" | "cancelled" | "interrupted";
    error: string | null;
    end?: EndReason;
  };
  try {
    sid = (await ors.createSession({ signal })).sid;
    await ors.create(sid, { env_name: run.env, split: run.split, index: key.taskIndex }, { signal });
    await deps.recorder.idle();
    trajectoryId = (await deps.store.findRunning(run.server, sid))?.id ?? null;
    if (trajectoryId) await deps.store.updateEpisode(run.id, key, { trajectoryId }, { owner: plan.owner });
    const prompt = await ors.prompt(run.env, sid, { signal });
    const tools = await toolsOf(ors, run.env, sid, signal);
    let task: Promise<JsonObject | null> | null = null;
    const episode = await untilAborted(
      Promise.resolve(
        policy.startEpisode({
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
        }),
      ),
      signal,
    );
    let outcomes: CallOutcome[] = [];
    let finished = false;
    while (!finished) {
      if (turns >= plan.maxTurns) {
        stop = "max_turns";
        if (trajectoryId) await deps.store.setAgentEnd(trajectoryId, { reason: "max_turns", message: null });
        break;
      }
      const turn = await untilAborted(episode.next(outcomes), signal);
      turns++;
      addUsage(turn);
      if (turn.calls.length === 0) {
        stop = turn.stop ?? "policy_stop";
        if (trajectoryId) await deps.store.setAgentEnd(trajectoryId, agentEndOf(turn));
        break;
      }
      outcomes = [];
      for (const [i, call] of turn.calls.entries()) {
        const agent: StepAgent = {
          policy: policy.kind,
          ...(policy.model ? { model: policy.model } : {}),
          turn: turns,
          call_id: call.id,
          ...(i === 0 && turn.message ? { message: turn.message } : {}),
          ...(i === 0 && turn.usage
            ? {
                usage: {
                  prompt_tokens: turn.usage.promptTokens,
                  completion_tokens: turn.usage.completionTokens,
                },
              }
            : {}),
        };
        let result: RunToolOutput;
        try {
          result = await ors.callTool(
            run.env,
            sid,
            { name: call.tool, input: call.input },
            {
              signal,
              headers: { [AGENT_HEADER]: encodeAgent(agent) },
            },
          );
        } catch (err) {
          if (signal.aborted) throw err;
          let toolError = toolErrorOf(err);
          // A 404 may be an unknown tool (spec: "POST /{env}/call") or a lost session: asked.
          if (toolError === null && isOrsClientError(err) && err.kind === "http" && err.status === 404)
            if (
              await ors.ping(sid, { signal }).then(
                () => true,
                () => false,
              )
            )
              toolError = `HTTP 404: ${err.detail}`;
          if (toolError === null) throw err;
          result = { ok: false, error: toolError };
        }
        outcomes.push({ call, result });
        if (result.ok && result.output.finished) {
          finished = true;
          stop = "finished";
          break;
        }
      }
    }
    outcome = { status: "done", error: null };
  } catch (err) {
    const reason = signal.aborted ? signal.reason : err;
    if (reason instanceof EpisodeStop)
      outcome = {
        status: reason.status,
        error: reason.message,
        end: reason.status === "cancelled" ? "cancelled" : "interrupted",
      };
    else if (reason instanceof EpisodeTimeout) {
      stop = "timeout";
      outcome = { status: "errored", error: reason.message, end: "timeout" };
    } else outcome = { status: "errored", error: message(reason), end: "error" };
  } finally {
    clearTimeout(timer);
    plan.stop.removeEventListener("abort", onStop);
  }
  // The recorded episode ends with the reason (before the session is deleted, which would say
  // "closed"); then the session goes, whatever happened.
  await deps.recorder.idle();
  if (!trajectoryId && sid) trajectoryId = (await deps.store.findBySession(run.server, sid))?.id ?? null;
  if (trajectoryId && outcome.end)
    await deps.recorder.endEpisode(trajectoryId, outcome.end, now(), outcome.error);
  if (sid) await ors.delete(sid).catch(() => {});
  await deps.recorder.idle();
  const recorded = trajectoryId ? await deps.store.summary(trajectoryId) : null;
  const endedAt = now();
  return {
    status: outcome.status,
    error: outcome.error,
    stop,
    trajectoryId,
    reward: outcome.status === "done" ? (recorded?.total_reward ?? 0) : null,
    finished: outcome.status === "done" ? recorded?.end_reason === "finished" || stop === "finished" : null,
    turns,
    steps: recorded?.num_steps ?? 0,
    durationMs: endedAt - startedAt,
    promptTokens: sawUsage ? promptTokens : null,
    completionTokens: sawUsage ? completionTokens : null,
    endedAt,
  };
}
