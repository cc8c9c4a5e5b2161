// What recording processes (app replicas, a CLI `run`) do for each other through the store (its
// "Leases", ./types.ts): each renews its lease every few seconds and, on the same beat, recovers
// what dead ones left — calls in flight cut, the built-in host's episodes ended, runs interrupted.
// One loop per process, started by the composition root once its store is ready.
import "server-only";
import os from "node:os";
import type { OrphanRecovery, RecoveredOrphans, StoreInstance, TrajectoryStore } from "./types";

/** How often a process renews its lease (and sweeps for the dead). */
export const LEASE_EVERY_MS = 5_000;
/** A lease not renewed for this long is dead, whatever else is known. */
export const LEASE_STALE_MS = 60_000;

/** Whether a process of this machine lives (a pid elsewhere: its lease decides). */
export function instanceAlive(i: StoreInstance): boolean {
  if (i.host !== os.hostname()) return true;
  if (i.pid === process.pid) return true;
  try {
    process.kill(i.pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM";
  }
}

export interface LeaseOptions {
  everyMs?: number;
  staleMs?: number;
  /** Told what each sweep recovered (to publish it): only when something was. */
  onRecovered?: (r: RecoveredOrphans) => void | Promise<void>;
  log?: (message: string) => void;
}

export interface Lease {
  /** Renews the lease and recovers what the dead left, now (the loop does it on every beat). */
  sweep(): Promise<RecoveredOrphans>;
  stop(): void;
}

/**
 * Renews this process's lease and sweeps now and every `everyMs`. The first sweep is awaited by
 * the caller (`start` resolves after it); a failing one is logged, and the next beat tries again.
 */
export function holdLease(store: TrajectoryStore, o: LeaseOptions = {}): Lease & { start(): Promise<void> } {
  const everyMs = o.everyMs ?? LEASE_EVERY_MS;
  const recovery: OrphanRecovery = { everyMs, staleMs: o.staleMs ?? LEASE_STALE_MS, alive: instanceAlive };
  const log = o.log ?? ((m: string) => console.error(`[leases] ${m}`));
  let timer: ReturnType<typeof setInterval> | null = null;
  let stopped = false;
  let running: Promise<RecoveredOrphans> | null = null;
  const sweep = (): Promise<RecoveredOrphans> => {
    // One sweep at a time: a slow database must not stack them up.
    running ??= (async () => {
      try {
        const at = Date.now();
        await store.beat(at);
        const r = await store.recoverOrphans(at, recovery);
        if (r.ended.length || r.steps.length || r.runs.length) await o.onRecovered?.(r);
        return r;
      } finally {
        running = null;
      }
    })();
    return running;
  };
  const tick = () =>
    void sweep().catch((e: Error) =>
      log(`could not renew the lease or recover what stopped processes left: ${e.message}`),
    );
  return {
    sweep,
    async start() {
      if (stopped || timer) return;
      await sweep().catch((e: Error) => log(`could not recover what stopped processes left: ${e.message}`));
      if (stopped) return;
      timer = setInterval(tick, everyMs);
      timer.unref?.();
    },
    stop() {
      stopped = true;
      if (timer) clearInterval(timer);
    },
  };
}
