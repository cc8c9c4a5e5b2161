// The recorder's second half: when relay events are applied and committed, and the acknowledgement
// the relay waits for (lib/relay/events.ts). Events are applied in the order the relay saw them; those
// that queued up while the last batch was written form the next batch, written in slices of a few
// milliseconds, each one commit (SQLite: a transaction; the gathered steps and protocol log entries
// in one `writeBatch`), the event loop serving other requests between slices. A batch's events are
// acknowledged once all of it is committed: under load, more calls share each commit. A backlog that
// grows is logged; it stays bounded because the relay waits for these acknowledgements (a call's end,
// every window of a long stream) before it goes on.
import "server-only";
import type { RelayEvent } from "@/lib/relay/events";
import type { TrajectoryStore } from "../store/types";

export interface RecordQueue {
  /** Takes one event; returns its acknowledgement: settles once it is committed (never rejects). */
  handle(e: RelayEvent): Promise<void>;
  /** Resolves once every event taken so far has been applied and committed. */
  idle(): Promise<void>;
}

/** How long a slice applies events before it commits and lets the event loop serve others (ms). */
const SLICE_MS = 8;
/** Events waiting at which the backlog is first logged (then at each doubling). */
const BACKLOG_LOGGED_AT = 1000;

interface Batch {
  events: RelayEvent[];
  done: Promise<void>;
  resolve: () => void;
}

function newBatch(): Batch {
  let resolve!: () => void;
  const done = new Promise<void>((r) => {
    resolve = r;
  });
  return { events: [], done, resolve };
}

export interface RecordQueueOptions {
  store: Pick<TrajectoryStore, "batch">;
  /** Applies one event (its writes may be gathered until `flush`). */
  apply(e: RelayEvent): Promise<void>;
  /** Writes what applying gathered; called at the end of each slice, inside its commit. */
  flush(): Promise<void>;
  /** Called with a batch's events before they are applied (to start their reads at once). */
  prepare?(events: readonly RelayEvent[]): void;
  log(message: string): void;
}

export function createRecordQueue(o: RecordQueueOptions): RecordQueue {
  let next: Batch | null = null;
  let writing: Promise<void> = Promise.resolve();
  let running = false;
  let logAt = BACKLOG_LOGGED_AT;

  const applyOne = async (e: RelayEvent) => {
    try {
      await o.apply(e);
    } catch (err) {
      o.log(`could not record ${e.type} of ${e.server}: ${err instanceof Error ? err.message : String(err)}`);
    }
  };
  /** Applies a batch's events in slices, each committed on its own. */
  const commit = async (events: RelayEvent[]) => {
    o.prepare?.(events);
    // A store whose writes run on this thread (SQLite) holds the event loop while it writes: its
    // batches go in slices. Another (PostgreSQL) waits on the network, which lets the loop serve
    // others anyway: its batch is one slice, one write.
    const sliced = o.store.batch !== undefined;
    let n = 0;
    while (n < events.length) {
      const start = performance.now();
      const slice = async () => {
        while (n < events.length) {
          await applyOne(events[n++]!);
          if (sliced && performance.now() - start >= SLICE_MS) break;
        }
        await o.flush();
      };
      try {
        await (o.store.batch ? o.store.batch(slice) : slice());
      } catch (err) {
        o.log(`could not commit what was recorded: ${err instanceof Error ? err.message : String(err)}`);
      }
      if (n < events.length) await new Promise<void>((resolve) => setImmediate(resolve));
    }
  };
  const drain = async () => {
    try {
      while (next) {
        const batch = next;
        next = null;
        writing = batch.done;
        try {
          await commit(batch.events);
        } finally {
          batch.resolve();
        }
        if (!next && logAt > BACKLOG_LOGGED_AT) {
          o.log("recording caught up");
          logAt = BACKLOG_LOGGED_AT;
        }
      }
    } finally {
      running = false;
    }
  };

  return {
    handle(e) {
      next ??= newBatch();
      const batch = next;
      batch.events.push(e);
      if (batch.events.length >= logAt) {
        o.log(
          `recording is behind: ${batch.events.length} relay events wait to be written (the store is slower than the relay)`,
        );
        logAt *= 2;
      }
      if (!running) {
        running = true;
        // After what this turn of the event loop brings (other requests' events too): one batch.
        setImmediate(() => void drain());
      }
      return batch.done;
    },
    idle: () => next?.done ?? writing,
  };
}
