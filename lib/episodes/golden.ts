// Golden episodes as regression tests (README "Golden episodes"): each golden trajectory is re-run
// on a server (./replay.ts: a new session on its task, the prompt once, the recorded calls re-sent)
// and compared step by step with its recording by the same function as the UI's "Replay and diff"
// (../trajectory/diff.ts), loosened by the user's CompareOptions. Isomorphic: the `test` command runs it.
import type { OrsClient } from "@/lib/ors/client";
import type { Block, JsonObject, Secrets } from "@/lib/ors/protocol";
import { type CompareOptions, diffTrajectories, type StepField } from "../trajectory/diff";
import { taskLabel, totalReward } from "../trajectory/model";
import type { Trajectory, TrajectoryStep } from "../trajectory/schema";
import { episodeActions, ReplayError, replayEpisode, replayedTrajectory } from "./replay";

export const GOLDEN_REPORT_FORMAT = "ors-golden-report/1";

/** pass: every step matched; fail: a difference; error: the episode could not be re-run; skipped: not run. */
export type GoldenStatus = "pass" | "fail" | "error" | "skipped";

/**
 * Why an episode could not be re-run: a ReplayError's kind (the server unreachable or too slow,
 * its own error, an answer that is not ORS, a trajectory that cannot be re-run), or the run was
 * stopped (`interrupted`) or out of time (`timeout`).
 */
export type GoldenErrorKind = ReplayError["kind"] | "timeout" | "interrupted";

/** A step as the comparison reads it; `observation` is its blocks as text (images summarised). */
export interface GoldenStepView {
  tool: string;
  input: JsonObject;
  observation: string;
  reward: number | null;
  finished: boolean;
  ok: boolean | null;
  error: string | null;
  metadata: JsonObject | null;
}

export interface GoldenStepDifference {
  step: number;
  /** The fields that differ (all of them when the step is missing on one side). */
  fields: StepField[];
  /** The recorded step, or null when the replay made a step the recording does not have. */
  expected: GoldenStepView | null;
  /** The replayed step, or null when the replay stopped before it. */
  got: GoldenStepView | null;
}

export interface GoldenResult {
  id: string;
  /** The trajectory's server name and the URL it was re-run on. */
  server: string;
  url: string;
  env: string | null;
  task: string;
  /** Where the trajectory was read from (a file name), when known. */
  source?: string;
  status: GoldenStatus;
  duration_ms: number;
  /** The recorded actions compared (steps made after the episode had finished are left out). */
  steps: number;
  differences: GoldenStepDifference[];
  /** The prompt as text, when it differs. */
  prompt: { expected: string; got: string } | null;
  error: { kind: GoldenErrorKind; message: string } | null;
  /** `test --update`: re-recorded (it differed; its file now holds what came back), or not. */
  updated?: boolean;
  /** `test --update`: why a failed episode was not re-recorded. */
  update_error?: string;
}

export interface GoldenReport {
  format: typeof GOLDEN_REPORT_FORMAT;
  started_at: number;
  finished_at: number;
  duration_ms: number;
  /** The comparison's options, as given. */
  options: {
    ignore: string[];
    reward_tolerance: number;
    normalize_whitespace: boolean;
    masks: string[];
  };
  results: GoldenResult[];
  summary: {
    total: number;
    passed: number;
    failed: number;
    errors: number;
    skipped: number;
    /** `test --update`: how many of the failed were re-recorded. */
    updated?: number;
    /** Every episode passed. */
    ok: boolean;
  };
}

export interface GoldenCase {
  trajectory: Trajectory;
  /** Where it was read from (a file name): reports group by it. */
  source?: string;
}

export interface GoldenRunOptions {
  /** The client (and its URL, for the report) that re-runs episodes recorded on `server`. */
  clientFor: (server: string) => { client: OrsClient; url: string };
  compare?: CompareOptions;
  /** Passed to each /create (environments that need them), never reported. */
  secrets?: Secrets;
  /** Stops the run (Ctrl-C): the episode running ends as `interrupted`, the rest are skipped. */
  signal?: AbortSignal;
  /** A time limit of the whole run, in ms: beyond it the same, as `timeout`. */
  maxTimeMs?: number;
  onStart?: (c: GoldenCase, index: number) => void;
  /** Each result as it comes, with the episode as it was re-run (null when it could not run). */
  onResult?: (r: GoldenResult, index: number, replayed: Trajectory | null) => void;
}

/** Blocks as text: texts as they are, one per line; images summarised. */
export function blocksText(blocks: readonly Block[] | null | undefined): string {
  return (blocks ?? [])
    .map((b) =>
      b.type === "text" ? b.text : `[image ${b.mimeType}, ${Math.floor((b.data.length * 3) / 4)} bytes]`,
    )
    .join("\n");
}

function stepView(s: TrajectoryStep): GoldenStepView {
  return {
    tool: s.tool,
    input: s.input,
    observation: blocksText(s.blocks),
    reward: s.reward,
    finished: s.finished,
    ok: s.ok,
    error: s.error,
    metadata: s.metadata,
  };
}

/** The options as the report states them. */
function reportOptions(o: CompareOptions | undefined): GoldenReport["options"] {
  return {
    ignore: [...(o?.ignore ?? [])],
    reward_tolerance: o?.rewardTolerance ?? 0,
    normalize_whitespace: !!o?.normalizeWhitespace,
    masks: (o?.masks ?? []).map((m) => m.source),
  };
}

function baseResult(c: GoldenCase, url: string): Omit<GoldenResult, "status" | "duration_ms" | "error"> {
  const t = c.trajectory;
  return {
    id: t.id,
    server: t.server,
    url,
    env: t.env,
    task: taskLabel(t.task),
    ...(c.source !== undefined ? { source: c.source } : {}),
    steps: episodeActions(t).length,
    differences: [],
    prompt: null,
  };
}

type EpisodeOptions = { compare?: CompareOptions; secrets?: Secrets; signal?: AbortSignal };

/**
 * Re-runs one golden episode and compares it with its recording. Never throws for the server's
 * failures (they are the result's `error`); rethrows only an abort of `signal`.
 */
export async function runGoldenEpisode(
  client: OrsClient,
  url: string,
  c: GoldenCase,
  o: EpisodeOptions = {},
): Promise<GoldenResult> {
  return (await runEpisode(client, url, c, o)).result;
}

async function runEpisode(
  client: OrsClient,
  url: string,
  c: GoldenCase,
  o: EpisodeOptions,
): Promise<{ result: GoldenResult; replayed: Trajectory | null }> {
  const started = Date.now();
  const base = baseResult(c, url);
  const t = c.trajectory;
  let replayed: Trajectory;
  try {
    const run = await replayEpisode(client, t, { secrets: o.secrets, signal: o.signal });
    replayed = replayedTrajectory(t, run);
  } catch (err) {
    if (o.signal?.aborted) throw err;
    const e =
      err instanceof ReplayError
        ? { kind: err.kind, message: err.message }
        : { kind: "server" as const, message: err instanceof Error ? err.message : String(err) };
    return {
      result: { ...base, status: "error", duration_ms: Date.now() - started, error: e },
      replayed: null,
    };
  }
  const diff = diffTrajectories({ ...t, steps: episodeActions(t) }, replayed, o.compare);
  const differences = diff.steps
    .filter((d) => d.fields.length > 0)
    .map((d) => ({
      step: d.index,
      fields: d.fields,
      expected: d.a && stepView(d.a),
      got: d.b && stepView(d.b),
    }));
  const prompt = diff.header.includes("prompt")
    ? { expected: blocksText(t.prompt), got: blocksText(replayed.prompt) }
    : null;
  return {
    result: {
      ...base,
      status: differences.length || prompt ? "fail" : "pass",
      duration_ms: Date.now() - started,
      differences,
      prompt,
      error: null,
    },
    replayed,
  };
}

/**
 * Why an episode cannot be re-recorded from its re-run, or null when it can: the re-run must have
 * made every recorded call (one that stopped early, the server gone mid-episode, would drop the
 * rest of the episode from the golden file).
 */
export function rerecordProblem(original: Trajectory, replayed: Trajectory): string | null {
  const actions = episodeActions(original).length;
  if (replayed.steps.length < actions)
    return `the re-run stopped after step ${replayed.steps.length} of ${actions}`;
  return null;
}

/**
 * A golden episode re-recorded (`test --update`): its new observations — prompt, steps (outputs,
 * rewards, finished flags, errors, metadata, timings), total, times, end — under its own id, server,
 * environment, task, origin and golden mark. Calls recorded after the episode had finished are not
 * re-run, so they are not kept.
 */
export function rerecordedGolden(original: Trajectory, replayed: Trajectory): Trajectory {
  const steps = replayed.steps.map(({ replay: _mark, ...step }) => step);
  const { reprompts: _reprompts, ...kept } = original;
  return {
    ...kept,
    env: original.env ?? replayed.env,
    sid: replayed.sid,
    prompt: replayed.prompt,
    steps,
    total_reward: totalReward(steps),
    started_at: replayed.started_at,
    ended_at: replayed.ended_at,
    end_reason: replayed.end_reason,
    error: null,
  };
}

/**
 * Re-runs every golden episode in order, one at a time (each in its own session, deleted at its
 * end, also when stopped), and reports each as pass, fail, error or skipped.
 *
 * @example
 * const report = await runGoldenTests([{ trajectory }], {
 *   clientFor: () => ({ client: createOrsClient({ baseUrl: url }), url }),
 *   compare: { ignore: ["metadata.seed"], rewardTolerance: 0.01 },
 * });
 * if (!report.summary.ok) process.exitCode = 1;
 */
export async function runGoldenTests(
  cases: readonly GoldenCase[],
  o: GoldenRunOptions,
): Promise<GoldenReport> {
  const startedAt = Date.now();
  const stop = new AbortController();
  const onAbort = () => stop.abort(o.signal?.reason);
  if (o.signal?.aborted) onAbort();
  o.signal?.addEventListener("abort", onAbort, { once: true });
  let outOfTime = false;
  const timer =
    o.maxTimeMs !== undefined
      ? setTimeout(() => {
          outOfTime = true;
          stop.abort(new Error("out of time"));
        }, o.maxTimeMs)
      : undefined;
  const stopped = (): { kind: GoldenErrorKind; message: string } =>
    outOfTime
      ? {
          kind: "timeout",
          message: `the run's time limit (${o.maxTimeMs! / 1000} s) was reached`,
        }
      : { kind: "interrupted", message: "the run was interrupted" };

  const results: GoldenResult[] = [];
  try {
    for (const [i, c] of cases.entries()) {
      const { client, url } = o.clientFor(c.trajectory.server);
      let r: GoldenResult;
      let replayed: Trajectory | null = null;
      if (stop.signal.aborted) {
        r = {
          ...baseResult(c, url),
          status: "skipped",
          duration_ms: 0,
          error: { ...stopped(), message: `not run: ${stopped().message}` },
        };
      } else {
        o.onStart?.(c, i);
        const started = Date.now();
        try {
          ({ result: r, replayed } = await runEpisode(client, url, c, {
            compare: o.compare,
            secrets: o.secrets,
            signal: stop.signal,
          }));
        } catch (err) {
          if (!stop.signal.aborted) throw err;
          r = { ...baseResult(c, url), status: "error", duration_ms: Date.now() - started, error: stopped() };
        }
      }
      results.push(r);
      o.onResult?.(r, i, replayed);
    }
  } finally {
    clearTimeout(timer);
    o.signal?.removeEventListener("abort", onAbort);
  }
  const count = (s: GoldenStatus) => results.filter((r) => r.status === s).length;
  const finishedAt = Date.now();
  return {
    format: GOLDEN_REPORT_FORMAT,
    started_at: startedAt,
    finished_at: finishedAt,
    duration_ms: finishedAt - startedAt,
    options: reportOptions(o.compare),
    results,
    summary: {
      total: results.length,
      passed: count("pass"),
      failed: count("fail"),
      errors: count("error"),
      skipped: count("skipped"),
      ok: results.length > 0 && results.every((r) => r.status === "pass"),
    },
  };
}
