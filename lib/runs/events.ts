// The runs' live progress (docs/runs.md "Progress"): what the executor publishes while it plays —
// counts, rate and time left, each episode as it starts and ends, the run's status — on a small bus
// that `GET /api/runs/{id}/events` (SSE) subscribes to. In process here; the RunEvents interface is
// the seam for a cross-replica bus (a database's notifications) later.
import type { RunEpisodeStatus, RunStatus } from "@/lib/store/types";

export interface RunProgress {
  status: RunStatus;
  total: number;
  /** Completed (done) episodes. */
  done: number;
  errored: number;
  running: number;
  pending: number;
  cancelled: number;
  interrupted: number;
  /** Episodes ended per second, over the last half minute (null before any ended). */
  rate: number | null;
  /** Time left at that rate, in ms (null when unknown). */
  etaMs: number | null;
}

export type RunEvent =
  | ({ type: "progress"; runId: string; at: number } & RunProgress)
  | {
      type: "episode";
      runId: string;
      taskIndex: number;
      repeat: number;
      status: RunEpisodeStatus;
      trajectoryId: string | null;
      reward: number | null;
      error: string | null;
      at: number;
    }
  | { type: "status"; runId: string; status: RunStatus; error: string | null; at: number };

export type RunListener = (e: RunEvent) => void;

export interface RunEvents {
  /** Listens to one run (`runId`) or to all (`null`); returns the function that unsubscribes. */
  subscribe(runId: string | null, listener: RunListener): () => void;
  publish(e: RunEvent): void;
}

export function createRunEvents(): RunEvents {
  const all = new Set<RunListener>();
  const byRun = new Map<string, Set<RunListener>>();
  return {
    subscribe(runId, listener) {
      const entry: RunListener = (e) => listener(e);
      if (runId === null) {
        all.add(entry);
        return () => all.delete(entry);
      }
      let set = byRun.get(runId);
      if (!set) {
        set = new Set();
        byRun.set(runId, set);
      }
      set.add(entry);
      return () => {
        set!.delete(entry);
        if (set!.size === 0) byRun.delete(runId);
      };
    },
    publish(e) {
      for (const l of [...(byRun.get(e.runId) ?? []), ...all]) {
        try {
          l(e);
        } catch {
          // A broken listener (a closed stream) must not stop the others.
        }
      }
    },
  };
}
