// How a recorded episode ends: the one function that ends it in the store and tells its viewers (the
// live feeds' `ended`), used by the recorder (a finished call, a `/delete`, a lost session), its idle
// sweep, a run's end, a reload of the environments, a spawned server's restart and crash recovery.
import "server-only";
import type { TrajectoryStore } from "../store/types";
import type { EndReason } from "../trajectory/schema";
import type { LiveEvent } from "./live";

export interface EpisodeLifecycle {
  /** Ends a running episode and tells its viewers; false (and nothing told) when it had ended already. */
  end(id: string, reason: EndReason, at: number, error: string | null): Promise<boolean>;
  /** Ends every running episode of a server (for `local`, this process's) and tells their viewers. */
  endRunningOf(server: string, reason: EndReason, at: number, error: string | null): Promise<string[]>;
  /** Tells the viewers of an episode the store has ended already (crash recovery ends them itself). */
  told(id: string, reason: EndReason, at: number, error: string | null): void;
}

export function createEpisodeLifecycle(
  store: Pick<TrajectoryStore, "end" | "endRunningOf">,
  publish: (e: LiveEvent) => void,
): EpisodeLifecycle {
  const told = (id: string, reason: EndReason, at: number, error: string | null) =>
    publish({ type: "ended", id, end_reason: reason, error, ended_at: at });
  return {
    async end(id, reason, at, error) {
      if (!(await store.end(id, reason, at, error))) return false;
      told(id, reason, at, error);
      return true;
    },
    async endRunningOf(server, reason, at, error) {
      const ids = await store.endRunningOf(server, reason, at, error);
      for (const id of ids) told(id, reason, at, error);
      return ids;
    },
    told,
  };
}
