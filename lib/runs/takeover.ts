// Taking over what a dead worker was playing (docs/runs.md "Death and takeover"), without anyone
// pressing anything: every few seconds each worker asks the store for attempts whose worker's lease
// is gone (found dead: its pid, its connections, or a lease older than PLAYGROUND_RUN_LEASE_MS). Each
// is ended `interrupted` (by whichever worker gets there first: the store's owner check), its
// recorded episode ended and its session deleted upstream where the server still has it, and its
// job failed so that pg-boss plays it again as a new attempt — or completed when its attempts ran out.
// A job it had fetched and not yet claimed (no attempt names it) is failed too, once active longer
// than the lease. The dead worker's capacity slots are freed only after all that (releaseDead).
import "server-only";
import type { OrphanedAttempt, RunStore, TrajectoryStore } from "@/lib/store/types";
import type { CapacityGate } from "./capacity";
import type { EpisodeDeps } from "./episode";
import type { RunEvent } from "./events";
import type { JobQueue } from "./job-queue";
import { DEFAULT_MAX_ATTEMPTS } from "./spec";
import { runConfigOf } from "./summary";

export interface TakeoverDeps extends Pick<EpisodeDeps, "clientFor" | "recorder"> {
  store: RunStore & TrajectoryStore;
  queue: JobQueue;
  publish(e: RunEvent): void;
  log(line: string): void;
  /** A lease not renewed for this long is a dead worker's. */
  leaseMs: number;
  /** Marks the run done once nothing is left to play (the worker's). */
  settleIfDone(runId: string): Promise<void>;
  gate: Pick<CapacityGate, "releaseDead">;
  /** This process: never dead to itself, whatever its lease says (a late beat on a busy machine). */
  instance: string;
}

/** How long a takeover waits for the server to delete a dead worker's session. */
const DELETE_TIMEOUT_MS = 10_000;

/** What the attempt's worker left: ended, its session deleted upstream, its job played again. */
async function takeOver(d: TakeoverDeps, a: OrphanedAttempt): Promise<void> {
  const run = await d.store.getRun(a.runId);
  if (!run) return;
  const error = `interrupted: the worker playing it (${a.worker}) stopped; played again as a new attempt`;
  const key = { taskIndex: a.taskIndex, repeat: a.repeat };
  const t = a.trajectoryId ? await d.store.summary(a.trajectoryId) : null;
  // Its session deleted upstream first, where the server still has it (its idle limit ends it
  // otherwise): the dead worker's slot is given back (releaseDead) only once the attempt is ended.
  const sid = a.sid ?? t?.sid ?? null;
  if (sid)
    await d
      .clientFor(a.server, { headers: {}, wrapFetch: (f) => f })
      .delete(sid, { signal: AbortSignal.timeout(DELETE_TIMEOUT_MS) })
      .catch(() => {});
  // Read after the delete: a sweep may have been on other attempts for a while.
  const now = Date.now();
  const status = await d.store.endAttempt(
    a.runId,
    key,
    { outcome: "interrupted", error, endedAt: now, trajectoryId: a.trajectoryId },
    { owner: a.worker ?? "", maxAttempts: runConfigOf(run).maxAttempts ?? DEFAULT_MAX_ATTEMPTS },
  );
  // Another worker took it over first.
  if (status === null) return;
  if (t && t.end_reason === null)
    await d.recorder
      .endEpisode(t.id, "interrupted", now, error)
      .catch((e: Error) => d.log(`could not end trajectory ${t.id}: ${e.message}`));
  if (a.jobId) {
    const job = { runId: a.runId, id: a.jobId };
    if (status === "pending" || status === "interrupted") await d.queue.fail(job, error);
    else await d.queue.complete(job);
  }
  d.publish({
    type: "episode",
    runId: a.runId,
    ...key,
    status,
    trajectoryId: a.trajectoryId,
    reward: null,
    error,
    at: now,
  });
  await d.settleIfDone(a.runId);
}

/**
 * Jobs fetched by a worker that died before it claimed their episode: failed, so that pg-boss plays
 * them again (a worker that finds the episode settled completes the job).
 */
async function sweepAbandoned(d: TakeoverDeps): Promise<number> {
  const jobs = await d.queue.abandoned(d.leaseMs);
  for (const job of jobs) {
    d.log(
      `run ${job.runId} task ${job.taskIndex} repeat ${job.repeat}: its worker stopped before playing it; played again`,
    );
    await d.queue.fail(job, "the worker that took it stopped before playing it");
  }
  return jobs.length;
}

/** Takes over every orphaned attempt found now, and abandoned jobs; the number taken over. */
export async function sweepOrphans(d: TakeoverDeps, now = Date.now()): Promise<number> {
  const abandoned = await sweepAbandoned(d).catch((e: Error) => {
    d.log(`could not look for abandoned jobs: ${e.message}`);
    return 0;
  });
  const orphans = (await d.store.orphanedAttempts(now - d.leaseMs)).filter((a) => a.worker !== d.instance);
  for (const a of orphans) {
    try {
      await takeOver(d, a);
    } catch (err) {
      d.log(
        `could not take over run ${a.runId} task ${a.taskIndex} repeat ${a.repeat}: ${(err as Error).message}`,
      );
    }
  }
  // Their sessions deleted upstream: the dead workers' slots are free now.
  await d.gate.releaseDead();
  return orphans.length + abandoned;
}
