// Whether a run is still this process's to play (docs/runs.md "Who plays a run"): another process
// may cancel it (the app, for a run the CLI plays) or take it over after finding this one dead.
// Checked in the store every few seconds and whenever a claim is refused; when it is not, every
// episode of the run stops here: as cancelled, or as lost (nothing more is written to the run).
import "server-only";
import type { RunStore } from "@/lib/store/types";
import { EpisodeStop } from "./episode";

/** How often a playing run checks whether another process cancelled it. */
export const STATUS_POLL_MS = 2_000;

export interface Ownership {
  /** Checks now (a refused claim asks). */
  check(): Promise<void>;
  /** Stops checking. */
  close(): void;
}

/** Watches the store for `runId` played by `instance`; aborts `stop` with an EpisodeStop when it is no longer so. */
export function watchOwnership(
  store: RunStore,
  runId: string,
  instance: string,
  stop: AbortController,
): Ownership {
  const check = async () => {
    const r = await store.getRun(runId);
    if (stop.signal.aborted || (r?.status === "running" && r.instance === instance)) return;
    if (r?.status === "cancelled" && r.instance === instance)
      stop.abort(new EpisodeStop("cancelled", "the run was cancelled"));
    else
      stop.abort(
        new EpisodeStop(
          "interrupted",
          !r
            ? "the run was deleted"
            : r.instance !== instance
              ? "the run is played by another process now"
              : `the run is ${r.status}`,
          true,
        ),
      );
  };
  const poll = setInterval(() => void check().catch(() => {}), STATUS_POLL_MS);
  poll.unref?.();
  return { check, close: () => clearInterval(poll) };
}
