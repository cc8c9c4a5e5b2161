// Re-running a recorded episode's actions (fork at step N, "Replay and diff", golden-episode tests):
// a new session on the same task through the typed ORS client (lib/ors/client) — so it works
// against any ORS server the client can reach, the reference server's SSE /create_session included
// — the recorded calls re-sent in order, each replayed step built with the one step model and
// compared with the original (../trajectory/diff.ts). The app hands it a client over its relay, so the new
// episode is recorded like any other; the CLI hands it a client for a server URL.
import { isOrsClientError, type OrsClient } from "@/lib/ors/client";
import { type Block, type CreateRequest, OrsError, type Secrets } from "@/lib/ors/protocol";
import { replayMark } from "../trajectory/diff";
import { TRAJECTORY_FORMAT, totalReward } from "../trajectory/model";
import type { ReplayMark, Trajectory, TrajectoryStep } from "../trajectory/schema";
import { type CallOutcome, completeStep, pendingStep, stepEvent } from "../trajectory/step";

/**
 * Why a replay could not run, by cause: the server could not be reached, the server answered with
 * an error of its own, or its answer is not ORS (a protocol mismatch), or the request itself was
 * wrong (e.g. the trajectory's task is unknown). `status` is the HTTP status to answer with.
 */
export class ReplayError extends OrsError {
  constructor(
    readonly kind: "unreachable" | "server" | "protocol" | "input",
    status: number,
    message: string,
  ) {
    // The answer says which kind of failure it was beside its detail.
    super(status, message, undefined, { kind });
    this.name = "ReplayError";
  }
}

/** Turns a client failure at `what` into a ReplayError that names its real cause. */
function replayErrorOf(err: unknown, what: string, server: string): ReplayError {
  if (err instanceof ReplayError) return err;
  if (isOrsClientError(err)) {
    switch (err.kind) {
      case "unreachable":
        return new ReplayError(
          "unreachable",
          502,
          `${what} failed: the server is unreachable: ${err.detail}`,
        );
      case "timeout":
        return new ReplayError(
          "unreachable",
          504,
          `${what} failed: the server did not answer in time: ${err.detail}`,
        );
      case "not-ors":
        return new ReplayError(
          "protocol",
          502,
          `server "${server}" answered ${what} with something that is not ORS: ${err.detail}`,
        );
      default: {
        const status = err.status >= 400 && err.status < 500 ? 409 : 502;
        const code = err.status ? ` (HTTP ${err.status})` : "";
        return new ReplayError("server", status, `server "${server}" refused ${what}${code}: ${err.detail}`);
      }
    }
  }
  return new ReplayError(
    "server",
    502,
    `${what} failed: ${err instanceof Error ? err.message : String(err)}`,
  );
}

export interface ReplayOptions {
  /** Re-send only the first `upTo` actions (fork); default all of the episode's actions. */
  upTo?: number;
  /** Leave the new session open (fork) instead of deleting it at the end. */
  keepOpen?: boolean;
  /** Passed to /create, never stored. */
  secrets?: Secrets;
  signal?: AbortSignal;
  /** Hears each replayed step as it completes. */
  onStep?: (step: TrajectoryStep, mark: ReplayMark) => void;
}

export interface ReplayRun {
  env: string;
  sid: string;
  prompt: Block[];
  /** The replayed steps, numbered as the originals. */
  steps: TrajectoryStep[];
  marks: ReplayMark[];
  startedAt: number;
  endedAt: number;
}

/** The actions of an episode: its steps, without calls made after it had finished. */
export function episodeActions(t: Trajectory): TrajectoryStep[] {
  return t.steps.filter((s) => !s.after_end);
}

/** Re-sends one recorded action; returns the step as replayed (a failed call is a step too). */
async function replayCall(
  client: OrsClient,
  server: string,
  env: string,
  sid: string,
  original: TrajectoryStep,
  signal?: AbortSignal,
): Promise<{ step: TrajectoryStep; fatal: ReplayError | null }> {
  const started = Date.now();
  let step = pendingStep({
    index: original.index,
    tool: original.tool,
    input: original.input,
    task_id: null,
    started_at: started,
  });
  const events = step.events;
  let outcome: CallOutcome;
  let fatal: ReplayError | null = null;
  try {
    const result = await client.callTool(
      env,
      sid,
      { name: original.tool, input: original.input },
      {
        signal,
        onEvent: (e) => {
          if (e.type === "task_id" && e.data) step.task_id = e.data;
          if (e.type === "task_id" || e.type === "chunk" || e.type === "end" || e.type === "error")
            events.push(stepEvent({ kind: "event", event: e.type, data: e.data ?? "" }, e.at - started));
          else if (e.type === "ping")
            events.push(stepEvent({ kind: "comment", comment: e.data ?? "ping" }, e.at - started));
        },
      },
    );
    outcome = { result };
  } catch (err) {
    if (signal?.aborted) throw err;
    // An SSE `event: error` is the step's outcome; any other failure ends the replay.
    if (isOrsClientError(err) && err.kind === "stream") outcome = { error: err.detail };
    else {
      fatal = replayErrorOf(err, `the call of ${original.tool} (step ${original.index})`, server);
      outcome = { error: fatal.message };
    }
  }
  step = completeStep(step, outcome, Date.now());
  return { step, fatal };
}

/**
 * Opens a new session on the trajectory's task (`/create_session`, `/create`, the prompt once)
 * and re-sends its actions in order, comparing each replayed step with the original. Stops at
 * the first call the server cannot answer (session gone, unreachable). Throws ReplayError.
 */
export async function replayEpisode(
  client: OrsClient,
  t: Trajectory,
  o: ReplayOptions = {},
): Promise<ReplayRun> {
  const server = t.server;
  if (!t.task)
    throw new ReplayError(
      "input",
      400,
      "the trajectory's task is unknown (it was recorded mid-episode): it cannot be re-run",
    );
  const actions = episodeActions(t);
  const upTo = o.upTo ?? actions.length;
  if (!Number.isInteger(upTo) || upTo < 0 || upTo > actions.length)
    throw new ReplayError("input", 400, `step must be an integer between 0 and ${actions.length}`);
  const step = async <T>(what: string, fn: () => Promise<T>): Promise<T> => {
    try {
      return await fn();
    } catch (err) {
      if (o.signal?.aborted) throw err;
      throw replayErrorOf(err, what, server);
    }
  };
  const startedAt = Date.now();
  const { sid } = await step("/create_session", () => client.createSession({ signal: o.signal }));
  let open = true;
  try {
    const body: CreateRequest = { ...t.task };
    if (t.env) body.env_name = t.env;
    if (o.secrets && Object.keys(o.secrets).length) body.secrets = o.secrets;
    await step("/create", () => client.create(sid, body, { signal: o.signal }));
    const env =
      t.env ?? (await step("/list_environments", () => client.listEnvironments({ signal: o.signal })))[0];
    if (!env) throw new ReplayError("protocol", 502, `server "${server}" lists no environments`);
    const prompt = await step("the prompt", () => client.prompt(env, sid, { signal: o.signal }));
    const steps: TrajectoryStep[] = [];
    const marks: ReplayMark[] = [];
    for (const original of actions.slice(0, upTo)) {
      const { step: replayed, fatal } = await replayCall(client, server, env, sid, original, o.signal);
      const mark = replayMark(original, replayed, t.id);
      steps.push({ ...replayed, replay: mark });
      marks.push(mark);
      o.onStep?.(replayed, mark);
      if (fatal) {
        if (fatal.kind !== "server") throw fatal;
        open = false; // the server no longer takes calls in this session
        break;
      }
    }
    if (!o.keepOpen && open) {
      open = false;
      await client.delete(sid, { signal: o.signal }).catch(() => undefined);
    }
    return { env, sid, prompt, steps, marks, startedAt, endedAt: Date.now() };
  } catch (err) {
    if (open) await client.delete(sid).catch(() => undefined);
    throw err;
  }
}

/** A replay run as a trajectory of its own (for diffs when nothing recorded it, e.g. the CLI). */
export function replayedTrajectory(t: Trajectory, run: ReplayRun): Trajectory {
  const last = run.steps.at(-1);
  const finished = !!last?.finished && last.ok === true;
  return {
    format: TRAJECTORY_FORMAT,
    id: `${t.id}-replay`,
    server: t.server,
    env: run.env,
    sid: run.sid,
    task: t.task,
    prompt: run.prompt,
    steps: run.steps,
    total_reward: totalReward(run.steps),
    started_at: run.startedAt,
    ended_at: run.endedAt,
    end_reason: finished ? "finished" : "user_closed",
    error: null,
    origin: { kind: "replay", from: t.id },
  };
}
