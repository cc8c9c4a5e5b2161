// The capacity gate of ./capacity.ts shared by every worker on one PostgreSQL database (docs/runs.md
// "Capacity"): slots are rows taken under a per-resource advisory lock (a dead worker's rows stop
// counting as soon as its lease is gone: its instance row is what makes them count), the minute's
// requests likewise, and a 429's pause is a row plus a notification every worker hears at once.
import "server-only";
import type pg from "pg";
import type { PostgresDatabase } from "@/lib/store/postgres/db";
import type { PostgresNotifier } from "@/lib/store/postgres/notify";
import { ATTEMPT_EPISODE_JOIN, PLAYED_ATTEMPT } from "@/lib/store/run-rows";
import type { CapacityClaim, CapacityGate, CapacityUsage } from "./capacity";

/** The channel 429 pauses travel on. */
export const CAPACITY_CHANNEL = "ors_playground_capacity";
/** How long after a change this process's count of waiters is written. */
const WAITING_FLUSH_MS = 200;

/** Rows of living workers only (a dead worker's instance row is gone). */
const LIVE = "EXISTS (SELECT 1 FROM instances i WHERE i.id = h.worker)";

/** Takes a slot of every claim for `holder` under the resources' advisory locks; false when one is full. */
async function takeSlots(
  db: PostgresDatabase,
  worker: string,
  claims: readonly CapacityClaim[],
  holder: string,
) {
  const keys = [...new Set(claims.map((c) => c.key))].sort();
  return db.transaction(async (c) => {
    // One lock per resource, always taken in the same order.
    for (const key of keys)
      await c.query("SELECT pg_advisory_xact_lock(hashtext($1))", [`ors-capacity:${key}`]);
    const used = new Map(
      (
        await c.query<{ resource: string; n: number }>(
          // A dead worker's holds count until its takeover deleted its sessions (releaseDead).
          `SELECT resource, COUNT(*)::int AS n FROM run_capacity_holds h
           WHERE resource = ANY($1) GROUP BY resource`,
          [keys],
        )
      ).rows.map((r) => [r.resource, r.n]),
    );
    if (claims.some((cl) => (used.get(cl.key) ?? 0) >= cl.limit)) return false;
    await c.query(
      `INSERT INTO run_capacity_holds (holder, resource, worker, at)
       SELECT $1, k, $2, $3 FROM unnest($4::text[]) AS k ON CONFLICT DO NOTHING`,
      [holder, worker, Date.now(), keys],
    );
    return true;
  });
}

/** One request of the minute's budget of `key`, under its advisory lock; false when it is spent. */
async function takeRequest(db: PostgresDatabase, key: string, perMinute: number) {
  return db.transaction(async (c) => {
    await c.query("SELECT pg_advisory_xact_lock(hashtext($1))", [`ors-capacity:${key}`]);
    const now = Date.now();
    await c.query("DELETE FROM run_capacity_requests WHERE resource = $1 AND at <= $2", [key, now - 60_000]);
    const n = (
      await c.query<{ n: number }>(
        "SELECT COUNT(*)::int AS n FROM run_capacity_requests WHERE resource = $1",
        [key],
      )
    ).rows[0]!.n;
    if (n >= perMinute) return false;
    await c.query("INSERT INTO run_capacity_requests (resource, at) VALUES ($1, $2)", [key, now]);
    return true;
  });
}

/** The resources as the run page shows them: holds, living workers' waiters, pauses. */
async function usageOf(db: PostgresDatabase, keys: readonly string[]): Promise<CapacityUsage[]> {
  const list = [...keys];
  const q = <R extends pg.QueryResultRow>(text: string, values: unknown[]) =>
    db.use(() => db.pool.query<R>(text, values));
  const [held, waiting, paused] = await Promise.all([
    q<{ resource: string; n: number }>(
      "SELECT resource, COUNT(*)::int AS n FROM run_capacity_holds h WHERE resource = ANY($1) GROUP BY resource",
      [list],
    ),
    q<{ resource: string; n: number }>(
      `SELECT resource, SUM(n)::int AS n FROM run_capacity_waiting h WHERE resource = ANY($1) AND ${LIVE}
       GROUP BY resource`,
      [list],
    ),
    q<{ resource: string; until: number }>(
      "SELECT resource, until FROM run_capacity_pauses WHERE resource = ANY($1) AND until > $2",
      [list, Date.now()],
    ),
  ]);
  const at = (rows: { resource: string; n: number }[], k: string) =>
    rows.find((r) => r.resource === k)?.n ?? 0;
  return list.map((key) => ({
    key,
    inUse: at(held.rows, key),
    waiting: at(waiting.rows, key),
    pausedUntil: paused.rows.find((r) => r.resource === key)?.until ?? null,
  }));
}

export function createPostgresGate(
  db: PostgresDatabase,
  notifier: PostgresNotifier,
  worker: string,
  opts: { log?: (m: string) => void } = {},
): CapacityGate {
  const log = opts.log ?? ((m: string) => console.error(`[capacity] ${m}`));
  const pauses = new Map<string, number>();
  const waiters = new Map<string, number>();
  const dirty = new Set<string>();
  let flushTimer: ReturnType<typeof setTimeout> | null = null;
  const notePause = (key: string, until: number) => pauses.set(key, Math.max(pauses.get(key) ?? 0, until));
  const channel = notifier.channel(CAPACITY_CHANNEL, {
    what: "capacity pause",
    onPayload(payload) {
      try {
        const p = JSON.parse(payload ?? "") as { k?: unknown; u?: unknown };
        if (typeof p.k === "string" && typeof p.u === "number") notePause(p.k, p.u);
      } catch {
        // anyone may NOTIFY: not ours
      }
    },
  });
  // Pauses set before this worker started still hold.
  void db
    .use(() =>
      db.pool.query<{ resource: string; until: number }>(
        "SELECT resource, until FROM run_capacity_pauses WHERE until > $1",
        [Date.now()],
      ),
    )
    .then((r) => {
      for (const x of r.rows) notePause(x.resource, x.until);
    })
    .catch((e: Error) => log(`could not read the pauses: ${e.message}`));

  const flush = async () => {
    flushTimer = null;
    const keys = [...dirty];
    dirty.clear();
    for (const key of keys) {
      const n = waiters.get(key) ?? 0;
      await db
        .use(() =>
          n > 0
            ? db.pool.query(
                `INSERT INTO run_capacity_waiting (resource, worker, n) VALUES ($1, $2, $3)
                 ON CONFLICT (resource, worker) DO UPDATE SET n = EXCLUDED.n`,
                [key, worker, n],
              )
            : db.pool.query("DELETE FROM run_capacity_waiting WHERE resource = $1 AND worker = $2", [
                key,
                worker,
              ]),
        )
        .catch((e: Error) => log(`could not write the waiters of ${key}: ${e.message}`));
    }
  };

  return {
    tryAcquire: (claims, holder) => takeSlots(db, worker, claims, holder),
    async release(holder) {
      await db.use(() => db.pool.query("DELETE FROM run_capacity_holds WHERE holder = $1", [holder]));
    },
    async releaseDead() {
      await db.use(() =>
        db.pool.query(
          // Only once the takeover ended every attempt the dead worker still played (its sessions
          // deleted first): another worker's sweep must not free the slots of sessions still open
          // upstream. Attempts of runs no longer running, and older attempts left open, are not the
          // takeover's (ORPHANED_ATTEMPTS_SQL): they hold nothing back.
          `DELETE FROM run_capacity_holds h WHERE NOT EXISTS (SELECT 1 FROM instances i WHERE i.id = h.worker)
             AND NOT EXISTS (SELECT 1 FROM run_attempts a JOIN runs r ON r.id = a.run_id JOIN ${ATTEMPT_EPISODE_JOIN}
               WHERE a.worker = h.worker AND r.status = 'running' AND ${PLAYED_ATTEMPT})`,
        ),
      );
    },
    tryRequest: (key, perMinute) => takeRequest(db, key, perMinute),
    waiting(key, delta) {
      waiters.set(key, Math.max(0, (waiters.get(key) ?? 0) + delta));
      dirty.add(key);
      flushTimer ??= setTimeout(() => void flush(), WAITING_FLUSH_MS);
    },
    pause(key, until) {
      notePause(key, until);
      channel.send(JSON.stringify({ k: key, u: until }));
      void db
        .use(() =>
          db.pool.query(
            `INSERT INTO run_capacity_pauses (resource, until) VALUES ($1, $2)
             ON CONFLICT (resource) DO UPDATE SET until = GREATEST(run_capacity_pauses.until, EXCLUDED.until)`,
            [key, until],
          ),
        )
        .catch((e: Error) => log(`could not record the pause of ${key}: ${e.message}`));
    },
    pausedUntil(key) {
      const until = pauses.get(key) ?? 0;
      return until > Date.now() ? until : 0;
    },
    usage: (keys) => usageOf(db, keys),
    async close() {
      if (flushTimer) clearTimeout(flushTimer);
      for (const key of waiters.keys()) {
        waiters.set(key, 0);
        dirty.add(key);
      }
      await flush();
      await db
        .use(() => db.pool.query("DELETE FROM run_capacity_holds WHERE worker = $1", [worker]))
        .catch(() => {});
    },
  };
}
