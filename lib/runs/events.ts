// The runs' live progress (docs/runs.md "Progress"): what the executor publishes while it plays —
// counts, rate and time left, each episode as it starts and ends, the run's status — on a small bus
// that `GET /api/runs/{id}/events` (SSE) subscribes to. In process here; the RunEvents interface is
// the seam for a cross-replica bus (a database's notifications) later.
import { createKeyedBus, type KeyedBus } from "@/lib/episodes/live";
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

/** Listens to one run (`runId`) or to all (`null`). */
export type RunEvents = KeyedBus<RunEvent>;

export function createRunEvents(): RunEvents {
  return createKeyedBus<RunEvent>((e) => e.runId);
}
