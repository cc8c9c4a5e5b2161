// What app replicas on one database do for each other: the built-in host (`local`) lives inside
// each replica, so when a replica stops (killed, crashed), its `local` episodes cannot go on. Every
// replica looks for such orphans now and then, ends them as errors and tells the watchers.
import "server-only";
import type { LiveFeeds } from "./live";
import type { PostgresTrajectoryStore } from "./store/postgres";

export const ORPHAN_ERROR = "the app replica that hosted this session stopped";

/** Ends the orphaned `local` episodes every `everyMs` (and once now); returns the stop function. */
export function sweepOrphansEvery(
  store: PostgresTrajectoryStore,
  live: LiveFeeds,
  everyMs = 15_000,
): () => void {
  const sweep = () => {
    const at = Date.now();
    store.endOrphanedOf("local", "error", at, ORPHAN_ERROR).then(
      (ids) => {
        for (const id of ids)
          live.publish({ type: "ended", id, end_reason: "error", error: ORPHAN_ERROR, ended_at: at });
      },
      (err: Error) =>
        console.error(`[replicas] could not end the episodes of stopped replicas: ${err.message}`),
    );
  };
  const timer = setInterval(sweep, everyMs);
  timer.unref?.();
  return () => clearInterval(timer);
}
