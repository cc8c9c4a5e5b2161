// A run's progress as `GET /api/runs/{id}/events` and the CLI's bar show it (docs/runs.md
// "Progress"): episodes by status from the store, the rate of the last half minute (from the
// executor's own record of ended episodes when it plays the run here, else from the store) and the
// time left at that rate.
import "server-only";
import type { RunRecord, RunStore } from "@/lib/store/types";
import type { RunProgress } from "./events";

export const RATE_WINDOW_MS = 30_000;

/** Episode end times of the last half minute, kept by whoever plays a run. */
export function createRateWindow(now: () => number) {
  const ends: number[] = [];
  const prune = () => {
    while (ends.length && ends[0]! < now() - RATE_WINDOW_MS) ends.shift();
  };
  return {
    ended() {
      ends.push(now());
      prune();
    },
    count() {
      prune();
      return ends.length;
    },
  };
}

/** The progress of `run` now; `local`: the rate window of this process when it plays the run. */
export async function progressOf(
  store: RunStore,
  run: RunRecord,
  now: number,
  local?: { count(): number },
): Promise<RunProgress> {
  const p = await store.runProgress(run.id, now - RATE_WINDOW_MS);
  const c = p.counts;
  const window = local ? Math.min(RATE_WINDOW_MS, Math.max(1, now - (run.startedAt ?? now))) : RATE_WINDOW_MS;
  const ended = local ? local.count() : p.endedSince;
  const rate = ended ? ended / (window / 1000) : null;
  const left = c.pending + c.running + c.cancelled + c.interrupted;
  const status = (await store.getRun(run.id))?.status ?? run.status;
  return {
    status,
    total: run.episodes,
    done: c.done,
    errored: c.errored,
    running: c.running,
    pending: c.pending,
    cancelled: c.cancelled,
    interrupted: c.interrupted,
    rate,
    etaMs: rate && status === "running" ? Math.round((left / rate) * 1000) : null,
  };
}
