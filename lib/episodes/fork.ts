// Fork and "Replay and diff" of a recorded trajectory, in the app: replayEpisode (./replay.ts) over
// a client whose requests go through the app's relay in process, so the new episode is recorded
// like any other; then the recorded copy is marked (origin, each step's replay mark) and, for a
// replay, compared step by step with the original.
import "server-only";
import type { OrsClient } from "@/lib/ors/client";
import type { Secrets } from "@/lib/ors/protocol";
import type { TrajectoryStore } from "../store/types";
import { diffTrajectories, markDiffers, type TrajectoryDiff } from "../trajectory/diff";
import type { ForkResult, Trajectory } from "../trajectory/schema";
import type { Recorder } from "./recorder";
import { episodeActions, ReplayError, type ReplayRun, replayEpisode } from "./replay";

export interface ForkDeps {
  store: TrajectoryStore;
  recorder: Recorder;
  /** A typed client for the trajectory's server, through the recording relay. */
  clientFor: (server: string) => OrsClient;
}

export interface ReplayResult {
  trajectory_id: string;
  diff: Omit<TrajectoryDiff, "steps"> & { steps: { index: number; fields: string[] }[] };
}

/** Marks the recorded copy of a replay run and returns its id. */
async function markRecorded(
  deps: ForkDeps,
  t: Trajectory,
  run: ReplayRun,
  origin: { kind: "fork"; step: number } | { kind: "replay" },
): Promise<string> {
  await deps.recorder.idle();
  const recorded = await deps.store.findBySession(t.server, run.sid);
  if (!recorded) throw new ReplayError("server", 500, "the replayed episode was not recorded");
  await deps.store.setOrigin(recorded.id, { ...origin, from: t.id });
  for (const m of run.marks) await deps.store.setStepReplay(recorded.id, m.step, m);
  return recorded.id;
}

/**
 * Forks at step `n`: a new live session on the same task with actions 1..n replayed. When
 * `signal` aborts (the asking page went away) the run stops and its session is deleted.
 */
export async function forkTrajectory(
  deps: ForkDeps,
  t: Trajectory,
  n: number,
  secrets?: Secrets,
  signal?: AbortSignal,
): Promise<ForkResult> {
  const run = await replayEpisode(deps.clientFor(t.server), t, { upTo: n, keepOpen: true, secrets, signal });
  const id = await markRecorded(deps, t, run, { kind: "fork", step: n });
  return {
    server: t.server,
    env: run.env,
    sid: run.sid,
    trajectory_id: id,
    step: n,
    marks: run.marks,
    differing: run.marks.filter(markDiffers).map((m) => m.step),
  };
}

/** Re-runs every action against the server as it is now, closes the session, and diffs (`signal`: as for a fork). */
export async function replayTrajectory(
  deps: ForkDeps,
  t: Trajectory,
  secrets?: Secrets,
  signal?: AbortSignal,
): Promise<ReplayResult> {
  const run = await replayEpisode(deps.clientFor(t.server), t, { secrets, signal });
  const id = await markRecorded(deps, t, run, { kind: "replay" });
  const replay = await deps.store.get(id);
  if (!replay) throw new ReplayError("server", 500, "the replayed trajectory vanished");
  const diff = diffTrajectories({ ...t, steps: episodeActions(t) }, replay);
  return {
    trajectory_id: id,
    diff: { ...diff, steps: diff.steps.map((d) => ({ index: d.index, fields: d.fields })) },
  };
}
