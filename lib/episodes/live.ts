// The live feed of recorded episodes: an in-process bus the recorder publishes to and the SSE
// routes `/api/trajectories/<id>/events` and `/api/trajectories/live/events` subscribe to. One per
// process, built by the composition root (lib/playground.ts).
import "server-only";
import type { LiveEvent } from "../trajectory/feed";

export type { LiveEvent };

export type LiveListener = (e: LiveEvent) => void;

export interface LiveFeeds {
  /** Listens to one trajectory (`id`) or to every trajectory (`id` = null). Returns unsubscribe. */
  subscribe(id: string | null, listener: LiveListener): () => void;
  publish(e: LiveEvent): void;
}

export function createLiveFeeds(): LiveFeeds {
  const all = new Set<LiveListener>();
  const byId = new Map<string, Set<LiveListener>>();
  return {
    subscribe(id, listener) {
      const entry: LiveListener = (e) => listener(e);
      if (id == null) {
        all.add(entry);
        return () => all.delete(entry);
      }
      let set = byId.get(id);
      if (!set) {
        set = new Set();
        byId.set(id, set);
      }
      set.add(entry);
      return () => {
        const s = byId.get(id);
        s?.delete(entry);
        if (s && s.size === 0) byId.delete(id);
      };
    },
    publish(e) {
      for (const l of [...(byId.get(e.id) ?? []), ...all]) {
        try {
          l(e);
        } catch {
          // A broken subscriber (a closed stream) must not stop the others.
        }
      }
    },
  };
}
