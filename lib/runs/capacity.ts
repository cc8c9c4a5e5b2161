// Capacity shared by everything that plays runs (docs/runs.md "Capacity"): per ORS server a cap on
// concurrent sessions (`maxSessions`; default the run's concurrency), per run its concurrency, per
// model endpoint a cap on concurrent requests and an optional requests-per-minute limit; and a 429
// with `Retry-After` from a server or an endpoint pauses everyone's traffic to it for that time.
// The gate is in memory here (one process: the embedded default); ./capacity-postgres.ts shares it
// across workers through the database. `capacityFetch` puts any fetch behind a gate.
import { sleep } from "@/lib/ors/protocol";
import { retryAfterMs } from "./retry-fetch";

/** A resource and the most holders it takes at once. */
export interface CapacityClaim {
  key: string;
  limit: number;
}

/** A resource as the run page shows it. */
export interface CapacityUsage {
  key: string;
  inUse: number;
  waiting: number;
  /** Until when a 429 paused it (ms since the epoch), or null. */
  pausedUntil: number | null;
}

export interface CapacityGate {
  /** Takes one slot of every claim at once for `holder` (all or none); false when one is full. */
  tryAcquire(claims: readonly CapacityClaim[], holder: string): Promise<boolean>;
  /** Gives back every slot `holder` took. */
  release(holder: string): Promise<void>;
  /**
   * Gives back what dead workers held (once their sessions were deleted by a takeover): until then
   * a dead worker's slots count, since its sessions may still be open on the server.
   */
  releaseDead(): Promise<void>;
  /** A request against a requests-per-minute limit: false when the minute's budget is spent. */
  tryRequest(key: string, perMinute: number): Promise<boolean>;
  /** Counts this process's waiters of a resource (+1 when one starts waiting, −1 when it stops). */
  waiting(key: string, delta: 1 | -1): void;
  /** Pauses a resource until `until` (ms since the epoch), for every user of the gate. */
  pause(key: string, until: number): void;
  /** Until when the resource is paused (0: it is not). */
  pausedUntil(key: string): number;
  usage(keys: readonly string[]): Promise<CapacityUsage[]>;
  close(): Promise<void>;
}

export const serverResource = (server: string) => `server:${server}`;
export const runResource = (runId: string) => `run:${runId}`;
export const modelResource = (baseUrl: string) => `model:${baseUrl}`;

/** The gate of one process: the embedded default's (and the tests'). */
export function createMemoryGate(now: () => number = Date.now): CapacityGate {
  const held = new Map<string, string[]>();
  const counts = new Map<string, number>();
  const waiters = new Map<string, number>();
  const pauses = new Map<string, number>();
  const requests = new Map<string, number[]>();
  return {
    async tryAcquire(claims, holder) {
      if (claims.some((c) => (counts.get(c.key) ?? 0) >= c.limit)) return false;
      for (const c of claims) counts.set(c.key, (counts.get(c.key) ?? 0) + 1);
      held.set(holder, [...(held.get(holder) ?? []), ...claims.map((c) => c.key)]);
      return true;
    },
    async release(holder) {
      for (const key of held.get(holder) ?? []) counts.set(key, Math.max(0, (counts.get(key) ?? 1) - 1));
      held.delete(holder);
    },
    async releaseDead() {},
    async tryRequest(key, perMinute) {
      const t = now();
      const recent = (requests.get(key) ?? []).filter((x) => x > t - 60_000);
      if (recent.length >= perMinute) {
        requests.set(key, recent);
        return false;
      }
      recent.push(t);
      requests.set(key, recent);
      return true;
    },
    waiting(key, delta) {
      waiters.set(key, Math.max(0, (waiters.get(key) ?? 0) + delta));
    },
    pause(key, until) {
      pauses.set(key, Math.max(pauses.get(key) ?? 0, until));
    },
    pausedUntil(key) {
      const until = pauses.get(key) ?? 0;
      return until > now() ? until : 0;
    },
    async usage(keys) {
      return keys.map((key) => {
        const until = pauses.get(key) ?? 0;
        return {
          key,
          inUse: counts.get(key) ?? 0,
          waiting: waiters.get(key) ?? 0,
          pausedUntil: until > now() ? until : null,
        };
      });
    },
    async close() {},
  };
}

/** How often a waiter asks again for a slot. */
const ACQUIRE_POLL_MS = 100;

/** Waits until the gate gives `holder` a slot of every claim (counted as waiting meanwhile). */
export async function acquire(
  gate: CapacityGate,
  claims: readonly CapacityClaim[],
  holder: string,
  signal?: AbortSignal,
): Promise<void> {
  if (await gate.tryAcquire(claims, holder)) return;
  for (const c of claims) gate.waiting(c.key, 1);
  try {
    for (let wait = ACQUIRE_POLL_MS; ; wait = Math.min(1000, wait * 1.5)) {
      await sleep(wait, signal);
      if (await gate.tryAcquire(claims, holder)) return;
    }
  } finally {
    for (const c of claims) gate.waiting(c.key, -1);
  }
}

/** Waits while a 429 paused the resource. */
export async function untilOpen(gate: CapacityGate, key: string, signal?: AbortSignal): Promise<void> {
  for (let until = gate.pausedUntil(key); until; until = gate.pausedUntil(key))
    await sleep(Math.max(1, until - Date.now()), signal);
}

export interface CapacityFetchOptions {
  /** Concurrent requests at most (none: unlimited). */
  maxConcurrent?: number;
  /** Requests per minute at most (none: unlimited). */
  perMinute?: number;
  /**
   * Times a 429 (or a 503 with `Retry-After`) is tried again here after the pause (default 8);
   * 0 hands the answer back (a client that retries by itself, like the AI SDK).
   */
  retries?: number;
  /** The pause without `Retry-After` (default 1 s, doubled each time). */
  baseMs?: number;
  /** The longest pause honoured (default 60 s). */
  maxWaitMs?: number;
}

let holders = 0;

/**
 * `inner` behind the gate's resource `key`: every request waits while the resource is paused (and
 * for a slot and the minute's budget when limited); a 429 or a 503 with `Retry-After` pauses the
 * resource for everyone for that time, and is tried again (a 429 means the server did not act).
 */
export function capacityFetch(
  gate: CapacityGate,
  key: string,
  inner: typeof fetch,
  o: CapacityFetchOptions = {},
): typeof fetch {
  const retries = o.retries ?? 8;
  const baseMs = o.baseMs ?? 1_000;
  const maxWaitMs = o.maxWaitMs ?? 60_000;
  return async (input, init) => {
    const signal = init?.signal ?? undefined;
    for (let attempt = 0; ; attempt++) {
      await untilOpen(gate, key, signal);
      if (o.perMinute) {
        gate.waiting(key, 1);
        try {
          while (!(await gate.tryRequest(key, o.perMinute))) await sleep(250, signal);
        } finally {
          gate.waiting(key, -1);
        }
      }
      const holder = o.maxConcurrent ? `req-${process.pid}-${++holders}` : null;
      if (holder) await acquire(gate, [{ key, limit: o.maxConcurrent! }], holder, signal);
      let res: Response;
      try {
        res = await inner(input, init);
      } finally {
        if (holder) await gate.release(holder);
      }
      const asked = retryAfterMs(res.headers.get("retry-after"));
      if (res.status !== 429 && !(res.status === 503 && asked !== null)) return res;
      gate.pause(key, Date.now() + Math.min(maxWaitMs, asked ?? baseMs * 2 ** attempt));
      if (attempt >= retries) return res;
      await res.body?.cancel().catch(() => {});
    }
  };
}
