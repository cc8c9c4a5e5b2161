// The store as the recorder's event application sees it during a batch: the hot writes of concurrent
// calls (steps, protocol log entries) are gathered and written at once when the batch is flushed
// (`writeBatch`: one transaction, multi-row statements on PostgreSQL); every other write flushes
// them first, so the store changes in the order events happened. Live events wait for the flush too:
// watchers are told what is in the store. Reads see the gathered steps (a trajectory's step count)
// and, within a batch, a session's running trajectory is looked up once.
import "server-only";
import type { Block, ToolSpec } from "@/lib/ors/protocol";
import type { ExchangeLimit, NewTrajectory, TrajectoryStore } from "../store/types";
import type {
  EndReason,
  NewExchange,
  Trajectory,
  TrajectoryStep,
  TrajectorySummary,
} from "../trajectory/schema";
import type { LiveEvent } from "./live";

/** What applying events reads and writes. */
export interface RecordingStore
  extends Pick<
    TrajectoryStore,
    | "create"
    | "summary"
    | "findRunning"
    | "findBySession"
    | "get"
    | "hasPrompt"
    | "setPrompt"
    | "addReprompt"
    | "setEnv"
    | "setTools"
    | "touch"
    | "putStep"
    | "end"
    | "endRunningOf"
  > {
  /** Appends to a protocol log at the flush; `told` makes the live event of its seq (when kept). */
  logExchange(
    id: string,
    exchange: NewExchange,
    limit: ExchangeLimit,
    told: (seq: number) => LiveEvent,
  ): void;
  /** Tells the live feeds, once what came before is written. */
  publish(e: LiveEvent): void;
  /** Writes what is gathered, then tells the live feeds. Never rejects (a failure is logged). */
  flush(): Promise<void>;
  /**
   * A new batch begins: starts looking up the running trajectories of its sessions at once (each a
   * key of `findRunning`), so that applying it waits for one round of reads, not one per event.
   */
  prefetch(sessions: Iterable<{ server: string; sid: string }>): void;
}

interface Logged {
  id: string;
  exchange: NewExchange;
  limit: ExchangeLimit;
  told: (seq: number) => LiveEvent;
  seq: number | null;
}

export function createRecordingStore(
  store: TrajectoryStore,
  live: (e: LiveEvent) => void,
  log: (message: string) => void,
): RecordingStore {
  let steps = new Map<string, { id: string; step: TrajectoryStep }>();
  let exchanges: Logged[] = [];
  /** The highest step index written per trajectory in this batch: its step count as it stands. */
  let lastIndex = new Map<string, number>();
  let told: (LiveEvent | Logged)[] = [];
  let running = new Map<string, Promise<TrajectorySummary | null>>();

  const flush = async () => {
    const ws = [...steps.values()];
    const xs = exchanges;
    const events = told;
    steps = new Map();
    exchanges = [];
    told = [];
    if (ws.length > 0 || xs.length > 0) {
      try {
        const seqs = await store.writeBatch({ steps: ws, exchanges: xs });
        xs.forEach((x, i) => {
          x.seq = seqs[i] ?? null;
        });
      } catch (err) {
        log(
          `could not record ${ws.length} step write(s) and ${xs.length} protocol log entries: ${err instanceof Error ? err.message : String(err)}`,
        );
      }
    }
    for (const e of events) {
      if (!("told" in e)) live(e);
      else if (e.seq !== null) live(e.told(e.seq));
    }
  };
  /** A write that is not gathered: what is gathered goes first; the sessions looked up may change. */
  const after = async <T>(write: () => Promise<T>): Promise<T> => {
    await flush();
    running = new Map();
    return write();
  };
  /** A summary with the steps gathered counted. */
  const counted = (t: TrajectorySummary | null): TrajectorySummary | null => {
    const last = t ? lastIndex.get(t.id) : undefined;
    return t && last !== undefined && last > t.num_steps ? { ...t, num_steps: last } : t;
  };

  const lookup = (server: string, sid: string) => {
    const key = `${server}\n${sid}`;
    let found = running.get(key);
    if (!found) {
      found = store.findRunning(server, sid);
      // Awaited by whoever asks; a prefetch nobody asks for must not be an unhandled rejection.
      found.catch(() => {});
      running.set(key, found);
    }
    return found;
  };

  return {
    create: (t: NewTrajectory) => after(() => store.create(t)),
    summary: async (id: string) => counted(await store.summary(id)),
    findRunning: async (server: string, sid: string) => counted(await lookup(server, sid)),
    prefetch(sessions) {
      // A new batch: what was looked up and counted in the last one may have changed since.
      running = new Map();
      lastIndex = new Map();
      const keys = new Map<string, { server: string; sid: string }>();
      for (const { server, sid } of sessions) {
        const key = `${server}\n${sid}`;
        if (!running.has(key)) keys.set(key, { server, sid });
      }
      if (keys.size === 0) return;
      const all = store.findRunningMany([...keys.values()]);
      all.catch(() => {});
      // Each session's lookup is the one read's (a failure makes each ask again on its own).
      for (const [key, { server, sid }] of keys)
        running.set(
          key,
          all.then(
            (found) => found.get(key) ?? null,
            () => store.findRunning(server, sid),
          ),
        );
    },
    findBySession: async (server: string, sid: string) => counted(await store.findBySession(server, sid)),
    get: (id: string): Promise<Trajectory | null> => after(() => store.get(id)),
    hasPrompt: (id: string) => store.hasPrompt(id),
    setPrompt: (id: string, blocks: Block[], at: number) => after(() => store.setPrompt(id, blocks, at)),
    addReprompt: (id: string, at: number, same: boolean) => after(() => store.addReprompt(id, at, same)),
    setEnv: (id: string, env: string) => after(() => store.setEnv(id, env)),
    setTools: (id: string, tools: ToolSpec[]) => after(() => store.setTools(id, tools)),
    touch: (id: string, at: number) => after(() => store.touch(id, at)),
    end: (id: string, reason: EndReason, at: number, error?: string | null) =>
      after(() => store.end(id, reason, at, error)),
    endRunningOf: (server: string, reason: EndReason, at: number, error: string | null) =>
      after(() => store.endRunningOf(server, reason, at, error)),
    async putStep(id: string, step: TrajectoryStep) {
      const key = `${id}\n${step.index}`;
      steps.delete(key);
      steps.set(key, { id, step });
      lastIndex.set(id, Math.max(lastIndex.get(id) ?? 0, step.index));
    },
    logExchange(id, exchange, limit, make) {
      const x: Logged = { id, exchange, limit, told: make, seq: null };
      exchanges.push(x);
      told.push(x);
    },
    publish(e) {
      told.push(e);
    },
    flush,
  };
}
