// The live feed of recorded episodes: an in-process bus the recorder publishes to and the SSE
// routes `/api/trajectories/<id>/events` and `/api/trajectories/live/events` subscribe to. One per
// process, built by the composition root (lib/playground.ts). Its keyed bus carries the runs'
// events too (lib/runs/events.ts).
import "server-only";
import type { LiveEvent } from "../trajectory/feed";

export type { LiveEvent };

export type LiveListener = (e: LiveEvent) => void;

/** Listens to one trajectory (`id`) or to every trajectory (`id` = null). */
export type LiveFeeds = KeyedBus<LiveEvent>;

/** Listeners of events keyed by `keyOf` (a trajectory, a run): one key's, or all (`null`). */
export interface KeyedBus<E> {
  /** Listens to one key's events or to all (`key` = null); returns the function that unsubscribes. */
  subscribe(key: string | null, listener: (e: E) => void): () => void;
  publish(e: E): void;
}

/** An in-process KeyedBus: a listener that throws is skipped, the others still hear the event. */
export function createKeyedBus<E>(keyOf: (e: E) => string): KeyedBus<E> {
  type Listener = (e: E) => void;
  const all = new Set<Listener>();
  const byKey = new Map<string, Set<Listener>>();
  return {
    subscribe(key, listener) {
      // Its own entry, so the same function subscribed twice is unsubscribed once each.
      const entry: Listener = (e) => listener(e);
      if (key == null) {
        all.add(entry);
        return () => all.delete(entry);
      }
      let set = byKey.get(key);
      if (!set) {
        set = new Set();
        byKey.set(key, set);
      }
      set.add(entry);
      return () => {
        const s = byKey.get(key);
        s?.delete(entry);
        if (s && s.size === 0) byKey.delete(key);
      };
    },
    publish(e) {
      for (const l of [...(byKey.get(keyOf(e)) ?? []), ...all]) {
        try {
          l(e);
        } catch {
          // A broken subscriber (a closed stream) must not stop the others.
        }
      }
    },
  };
}

export function createLiveFeeds(): LiveFeeds {
  return createKeyedBus<LiveEvent>((e) => e.id);
}
