// The recorder's second half: when relay events are applied and committed. Events are applied in the
// order the relay saw them, those that queued up together in one batch: the store may then write them
// in one commit (`batch`), which is what keeps many concurrent episodes cheap. A batch lasts a few
// milliseconds at most; then it commits and the event loop serves other requests before the next one,
// so recording megabytes of results never holds the relay's small calls up for long.
import "server-only";
import type { RelayEvent } from "@/lib/relay/events";
import type { TrajectoryStore } from "../store/types";

export interface RecordQueue {
  /** Takes one event; it is applied after every event taken before it. */
  handle(e: RelayEvent): void;
  /** Runs `fn` after every event taken so far (and what was queued with `after` before). */
  after<T>(fn: () => Promise<T>): Promise<T>;
  /** Resolves once every event taken so far has been applied and committed. */
  idle(): Promise<void>;
}

/** How long the recorder applies events before it lets the event loop serve others, at most (ms)... */
const SLICE_MS = 8;
/** ...unless this many events are waiting: then it works them off first. */
const MAX_BACKLOG = 2000;

export function createRecordQueue(
  store: Pick<TrajectoryStore, "batch">,
  apply: (e: RelayEvent) => Promise<void>,
  log: (message: string) => void,
): RecordQueue {
  let chain: Promise<void> = Promise.resolve();
  const queue: RelayEvent[] = [];
  let scheduled = false;
  const applyOne = async (e: RelayEvent) => {
    try {
      await apply(e);
    } catch (err) {
      log(`could not record ${e.type} of ${e.server}: ${err instanceof Error ? err.message : String(err)}`);
    }
  };
  const drain = async () => {
    try {
      while (queue.length > 0) {
        const start = performance.now();
        let n = 0;
        const slice = async () => {
          while (n < queue.length) {
            await applyOne(queue[n++]!);
            // A backlog is worked off before anything else: the queue (and its memory) stays bounded.
            if (performance.now() - start >= SLICE_MS && queue.length - n < MAX_BACKLOG) break;
          }
        };
        try {
          await (store.batch ? store.batch(slice) : slice());
        } finally {
          queue.splice(0, n);
        }
        if (queue.length > 0) await new Promise<void>((resolve) => setImmediate(resolve));
      }
    } finally {
      scheduled = false;
    }
  };
  return {
    handle(e) {
      queue.push(e);
      if (scheduled) return;
      scheduled = true;
      chain = chain.then(drain).catch((err: unknown) => {
        log(`could not record: ${err instanceof Error ? err.message : String(err)}`);
      });
    },
    after(fn) {
      const done = chain.then(fn);
      chain = done.then(
        () => {},
        () => {},
      );
      return done;
    },
    idle: () => chain,
  };
}
