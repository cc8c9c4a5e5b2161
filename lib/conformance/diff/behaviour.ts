// The behavioural diff (`diff A B --replay RUN`, docs/ci.md "Scores"): a recorded run's actions
// replayed on B by the runs' own replay policy, through the executor (so every episode is recorded
// like any run's), then both runs compared task by task, paired (lib/runs/stats.ts): the tasks that
// flipped, the mean difference with its interval, and for each flip the first step whose
// observation or reward differs (lib/conformance/quality/determinism.ts), with links to both.
import { compareRunsHref, compareTrajectoriesHref } from "@/lib/routes";
import type { RunExecutor } from "@/lib/runs/executor";
import { compareRuns } from "@/lib/runs/stats";
import { buildSummary, HISTOGRAM_BINS, type RunSummary, runConfigOf } from "@/lib/runs/summary";
import type { PlaygroundStore } from "@/lib/store/types";
import { firstDifference } from "../quality/determinism";
import { type TrajectoryRef, trajectoryRef } from "../quality/types";

/** Flips described one by one at most (the lists of tasks have them all). */
export const MAX_FLIP_EVIDENCE = 100;

export interface FlipSide {
  reward: number | null;
  trajectory: TrajectoryRef | null;
}

export interface Flip {
  task: number;
  /** `gained`: failed on A's run, succeeded on B; `lost`: the other way. */
  direction: "gained" | "lost";
  a: FlipSide;
  b: FlipSide;
  /** The first step whose observation or reward differs (step null: the prompt), or null when none does. */
  firstDifference: { step: number | null; what: string } | null;
  /** Both episodes side by side in the playground. */
  compareHref: string | null;
}

export interface BehaviourDiff {
  /** The recorded run replayed, and the run that replayed it on B. */
  run: string;
  replayRun: string | null;
  env: string;
  split: string;
  /** Tasks both runs completed, compared pairwise. */
  paired: number;
  /** B's mean reward minus A's over the paired tasks, with its 95% interval. */
  meanDelta: number | null;
  ci95: [number, number] | null;
  gained: number[];
  lost: number[];
  /** The flips, described (at most MAX_FLIP_EVIDENCE). */
  flips: Flip[];
  /** Both runs side by side (`/runs/compare?a=&b=`). */
  compareHref: string | null;
  /** Why the replay could not be played or was not played to its end. */
  error: string | null;
}

export interface BehaviourDeps {
  runs: Pick<RunExecutor, "start" | "settled">;
  store: Pick<PlaygroundStore, "getRun" | "get" | "runAggregates">;
}

/** What cannot be replayed at all: an unknown run (a mistake of the command line). */
export class ReplayError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ReplayError";
  }
}

async function summaryOf(store: BehaviourDeps["store"], id: string): Promise<RunSummary> {
  const run = await store.getRun(id);
  if (!run) throw new ReplayError(`no run with id "${id}" in the playground's store`);
  const agg = await store.runAggregates(id, {
    successAt: runConfigOf(run).successAt,
    histogramBins: HISTOGRAM_BINS,
  });
  return buildSummary(run, agg);
}

function side(s: RunSummary, task: number): FlipSide & { id: string | null } {
  const row = s.tasks.find((t) => t.index === task);
  const id = row?.episodeIds.find((e): e is string => !!e) ?? null;
  return { id, reward: row?.mean ?? null, trajectory: id ? trajectoryRef(id) : null };
}

async function describeFlip(
  deps: BehaviourDeps,
  a: RunSummary,
  b: RunSummary,
  task: number,
  direction: Flip["direction"],
): Promise<Flip> {
  const sa = side(a, task);
  const sb = side(b, task);
  const [ta, tb] = await Promise.all([
    sa.id ? deps.store.get(sa.id) : null,
    sb.id ? deps.store.get(sb.id) : null,
  ]);
  const d = ta && tb ? firstDifference(ta, tb) : null;
  return {
    task,
    direction,
    a: { reward: sa.reward, trajectory: sa.trajectory },
    b: { reward: sb.reward, trajectory: sb.trajectory },
    firstDifference: d ? { step: d.step, what: d.what } : null,
    compareHref: sa.id && sb.id ? compareTrajectoriesHref(sa.id, sb.id) : null,
  };
}

/**
 * Replays run `o.run` on server `o.server` (as the playground knows it), environment `o.env`
 * (default the run's), and compares the two runs. Throws ReplayError for an unknown run, and the
 * executor's RunError when the replay cannot start (B unreachable, an unknown environment or split).
 */
export async function replayAndCompare(
  deps: BehaviourDeps,
  o: { run: string; server: string; env?: string; signal?: AbortSignal; concurrency?: number },
): Promise<BehaviourDiff> {
  const original = await summaryOf(deps.store, o.run);
  const env = o.env ?? original.env;
  const replay = await deps.runs.start({
    server: o.server,
    env,
    split: original.split,
    repeats: original.repeats,
    concurrency: o.concurrency ?? 4,
    successAt: original.successAt,
    timeoutMs: original.timeoutMs,
    policy: { kind: "replay", run: o.run },
  });
  const settled = await deps.runs.settled(replay.id);
  const replayed = await summaryOf(deps.store, replay.id);
  const c = compareRuns(original.tasks, replayed.tasks);
  const flips: Flip[] = [];
  const order = [...c.lost.map((t) => [t, "lost"] as const), ...c.gained.map((t) => [t, "gained"] as const)];
  for (const [task, direction] of order.slice(0, MAX_FLIP_EVIDENCE))
    flips.push(await describeFlip(deps, original, replayed, task, direction));
  const notDone = replayed.errored + replayed.pending + replayed.cancelled + replayed.interrupted;
  return {
    run: o.run,
    replayRun: replay.id,
    env,
    split: original.split,
    paired: c.paired,
    meanDelta: c.meanDelta,
    ci95: c.ci95,
    gained: c.gained,
    lost: c.lost,
    flips,
    compareHref: compareRunsHref(o.run, replay.id),
    error:
      settled?.status !== "done"
        ? `the replay ended ${settled?.status ?? "without a status"}${settled?.error ? `: ${settled.error}` : ""}`
        : notDone
          ? `${notDone} of ${replayed.episodes} replayed episodes did not complete (${replayed.errors
              .map((e) => e.message)
              .slice(0, 2)
              .join("; ")})`
          : null,
  };
}
