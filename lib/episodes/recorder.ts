// The trajectory recorder: turns the relay's events (lib/relay/events.ts) into recorded episodes in
// the store, step by step, with each episode's protocol log (./protocol-log.ts decides which episode a
// request belongs to), and publishes every change on the live feeds. Three parts: applying events
// (./record-apply.ts), when they are applied and committed (./record-queue.ts), and the idle sweep
// (./idle.ts); episodes end through ./lifecycle.ts. Secrets never reach it (relay events carry none).
import "server-only";
import { type Env, processEnv, settingOrDefault } from "@/lib/config";
import type { RelayEvent, RelayEvents } from "@/lib/relay/events";
import type { ExchangeLimit, TrajectoryStore } from "../store/types";
import type { EndReason, TrajectoryStep } from "../trajectory/schema";
import { createIdleSweep, idleTimeoutMs } from "./idle";
import { createEpisodeLifecycle } from "./lifecycle";
import type { LiveEvent, LiveFeeds } from "./live";
import { createProtocolLog, exchangeLimitFrom } from "./protocol-log";
import { createEventApplier } from "./record-apply";
import { createRecordQueue } from "./record-queue";
import { createRecordingStore } from "./record-writes";

export { IDLE_GRACE_MS, idleRule, idleTimeoutMs } from "./idle";

export interface Recorder {
  /**
   * Takes one relay event (the relay's bus calls this; tests may too). Applied in order; returns its
   * acknowledgement, which settles once it is committed (lib/relay/events.ts "Acknowledgement").
   */
  handle(event: RelayEvent): Promise<void>;
  /** Steps of a trajectory whose calls are passing through the relay now, with their frames so far. */
  inflight(trajectoryId: string): TrajectoryStep[];
  /** Indices of the steps in flight now: through this relay, and through other processes' (the store's `inflightElsewhere`). */
  inflightIndices(trajectoryId: string): Promise<number[]>;
  /** Resolves once every event taken so far has been written. */
  idle(): Promise<void>;
  /** Ends episodes idle past the limit and applies retention now. */
  sweep(now?: number): Promise<void>;
  /**
   * Ends a running episode from outside the relay's events (a run cancelled, timed out): after
   * every event taken so far, published on the live feeds. False when it had already ended.
   */
  endEpisode(id: string, reason: EndReason, at: number, error: string | null): Promise<boolean>;
  stop(): void;
}

export interface RecorderOptions {
  /** The relay's events to record; without it, events are handed to `handle()` by the caller. */
  events?: RelayEvents;
  /** Where recorded changes are published for watchers. */
  live: LiveFeeds;
  /** A server's idle limit when the playground knows it (its own host, a per-server setting). */
  idleLimitOf?: (server: string) => Promise<number | null> | number | null;
  /**
   * A running episode without any request for this long is ended as `timeout`, on every server
   * (tests; PLAYGROUND_IDLE_TIMEOUT_S). Without it, each server's own limit decides: see `idleRule`.
   */
  idleMs?: number;
  /**
   * Deletes a session on its server (a `/delete` through the relay): the idle sweep sends one for
   * each episode it ends, so a server without an idle limit of its own does not keep it forever.
   */
  closeSession?: (server: string, sid: string) => Promise<unknown>;
  /** How often idle episodes are ended and retention applied (0: only when `sweep()` is called). */
  sweepEveryMs?: number;
  /**
   * Asks a server whether a session still lives (a `/ping` through the relay, whose own answer is
   * then recorded): used when a failure does not say whether the session is gone.
   */
  checkLiveness?: (server: string, sid: string) => void;
  /** Where failures to write are reported (default console.error). */
  log?: (message: string) => void;
  /** The step-size cap in bytes (default PLAYGROUND_MAX_STEP_BYTES, else 4 MiB; see capStep). */
  maxStepBytes?: number;
  /** The caps of each episode's protocol log (default: exchangeLimitFrom(processEnv())). */
  exchangeLimit?: ExchangeLimit;
}

/** The step cap from PLAYGROUND_MAX_STEP_BYTES (bytes; at least 16 KiB), else the default. */
export function maxStepBytesFrom(env: Env): number {
  return settingOrDefault(env, "PLAYGROUND_MAX_STEP_BYTES");
}

export function createRecorder(store: TrajectoryStore, opts: RecorderOptions): Recorder {
  const log = opts.log ?? ((m: string) => console.error(`[recorder] ${m}`));
  const publish = (e: LiveEvent) => opts.live.publish(e);
  // Events change the store through `writes` (gathered per batch, watchers told after); what ends
  // an episode from outside the relay's events goes straight to the store.
  const writes = createRecordingStore(store, publish, log);
  const applier = createEventApplier({
    store: writes,
    lifecycle: createEpisodeLifecycle(writes, writes.publish),
    exchanges: createProtocolLog(writes, opts.exchangeLimit ?? exchangeLimitFrom(processEnv())),
    maxStepBytes: opts.maxStepBytes ?? maxStepBytesFrom(processEnv()),
    idleLimitOf: opts.idleLimitOf,
    checkLiveness: opts.checkLiveness,
  });
  const queue = createRecordQueue({
    store,
    apply: applier.apply,
    flush: writes.flush,
    // The sessions whose running episode the batch's events look up, looked up together.
    prepare: (events) =>
      writes.prefetch(
        events.filter((e) => e.type !== "session_created" && "sid" in e && e.sid) as {
          server: string;
          sid: string;
        }[],
      ),
    log,
  });
  const lifecycle = createEpisodeLifecycle(store, publish);
  const sweepNow = createIdleSweep({
    store,
    lifecycle,
    explicitIdleMs: opts.idleMs ?? idleTimeoutMs(),
    idleLimitOf: opts.idleLimitOf,
    closeSession: opts.closeSession,
    busyHere: (id) => applier.inflight(id).length > 0,
    log,
  });
  const sweep = async (now?: number) => {
    await queue.idle();
    await sweepNow(now);
  };

  const unsubscribe = opts.events ? opts.events.subscribe(queue.handle) : () => {};
  const every = opts.sweepEveryMs ?? 60_000;
  const timer = every > 0 ? setInterval(() => void sweep().catch(() => {}), every) : null;
  timer?.unref?.();
  return {
    handle: queue.handle,
    inflight: applier.inflight,
    async inflightIndices(trajectoryId) {
      const here = applier.inflight(trajectoryId).map((s) => s.index);
      const elsewhere = await store.inflightElsewhere(trajectoryId);
      return [...new Set([...here, ...elsewhere])].sort((x, y) => x - y);
    },
    idle: queue.idle,
    sweep,
    async endEpisode(id, reason, at, error) {
      await queue.idle();
      return lifecycle.end(id, reason, at, error);
    },
    stop() {
      unsubscribe();
      if (timer) clearInterval(timer);
    },
  };
}
