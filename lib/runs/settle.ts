// How a run this process played ends (docs/runs.md "Run statuses"), once its pool has stopped: done
// when every episode was played; cancelled or interrupted by what stopped it (its episodes still
// running said so too); nothing at all when the run was lost to another process, which says how it
// stands now; failed when the store failed under it.
import "server-only";
import type { RunRecord, RunStatus, RunStore } from "@/lib/store/types";
import { EpisodeStop } from "./episode";
import type { RunEvent } from "./events";

export interface SettleDeps {
  store: RunStore;
  instance: string;
  now: () => number;
  publish(e: RunEvent): void;
  log(line: string): void;
}

/** Sets the status of a run this process plays (not once another process has taken it over). */
export async function setRunStatus(
  d: SettleDeps,
  run: RunRecord,
  status: RunStatus,
  error: string | null = null,
): Promise<void> {
  if (await d.store.setRunStatus(run.id, status, d.now(), { error, owner: d.instance }))
    d.publish({ type: "status", runId: run.id, status, error, at: d.now() });
}

/** Settles `run` after its pool stopped, by `stop`'s reason (not aborted: every episode was played). */
export async function settleRun(d: SettleDeps, run: RunRecord, stop: AbortSignal): Promise<void> {
  const reason = stop.reason;
  if (!stop.aborted) return setRunStatus(d, run, "done");
  if (reason instanceof EpisodeStop && reason.lost) {
    // Not this process's run any more: whoever has it now says how it stands.
    d.log(`run ${run.id}: stopped playing it: ${reason.message}`);
    return;
  }
  if (reason instanceof EpisodeStop && reason.status === "interrupted") {
    await d.store.setEpisodesStatus(run.id, ["running"], "interrupted", reason.message);
    return setRunStatus(d, run, "interrupted", reason.message);
  }
  await d.store.setEpisodesStatus(run.id, ["running"], "cancelled", "the run was cancelled");
  const current = await d.store.getRun(run.id);
  if (current?.status !== "cancelled") return setRunStatus(d, run, "cancelled");
  d.publish({ type: "status", runId: run.id, status: "cancelled", error: null, at: d.now() });
}
