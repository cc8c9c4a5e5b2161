// What a listener of an event bus (the live feeds, the runs' events) receives, for the tests of buses
// across replicas: every event in order, and a bounded wait for the first n of them.
import { waitUntil } from "./wait";

interface Bus<E> {
  subscribe(id: string | null, listener: (e: E) => void): () => void;
}

/** Subscribes to `id` (null: every id) on `bus`; `until(n)` resolves with the events once n came. */
export function collectEvents<E extends { type: string }>(bus: Bus<E>, id: string | null) {
  const got: E[] = [];
  const off = bus.subscribe(id, (e) => got.push(e));
  return {
    got,
    off,
    until: (n: number, timeoutMs = 10_000) =>
      waitUntil(
        `${n} events`,
        () => {
          if (got.length < n) throw new Error(`got ${got.length} of ${n} events: ${got.map((e) => e.type)}`);
          return got;
        },
        { timeoutMs, everyMs: 20 },
      ),
  };
}
