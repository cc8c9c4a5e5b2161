// The in-process executor's worker pool (docs/runs.md "Running"): plays a run's episodes
// `concurrency` at a time in this process — each claimed in the store first, played as one attempt
// (./episode.ts), ended with its typed outcome — and plays an infrastructure failure again after a
// backoff while the run's attempts allow. Knows nothing of who owns the run (./ownership.ts) or how
// the run ends (./settle.ts): it stops taking episodes when its signal aborts.
import "server-only";
import type { RunEpisodeKey, RunEpisodeStatus, RunRecord } from "@/lib/store/types";
import { acquire, type CapacityGate, runResource, serverResource } from "./capacity";
import { type EpisodeDeps, playEpisode, runningPatch } from "./episode";
import type { RunEvent } from "./events";
import type { Policy } from "./policy";

export interface PoolDeps extends EpisodeDeps {
  /** This process's id in the store: it claims the episodes it plays. */
  instance: string;
  publish(e: RunEvent): void;
  log(line: string): void;
  /** The first wait before an episode is played again (doubled each time, at most 30 s). */
  retryBaseMs?: number;
  /** The capacity this process's runs share (a server's `maxSessions`), and that cap when set. */
  gate: CapacityGate;
  maxSessions(server: string): Promise<number | null>;
}

export interface PoolPlan {
  run: RunRecord;
  policy: Policy;
  keys: RunEpisodeKey[];
  concurrency: number;
  maxTurns: number;
  timeoutMs: number;
  maxAttempts: number;
  /** Aborted when no more episodes may start (and those playing stop). */
  stop: AbortSignal;
  /** A claim refused: the caller checks whether the run is still this process's. */
  onRefused(): Promise<void>;
  /** An episode ended (counted in the run's rate). */
  onEnded(): void;
}

const MAX_RETRY_WAIT_MS = 30_000;

/** The wait before the attempt after `failures` infrastructure failures: doubling, with jitter. */
export function retryWaitMs(failures: number, baseMs: number): number {
  const wait = Math.min(MAX_RETRY_WAIT_MS, baseMs * 2 ** Math.max(0, failures - 1));
  return Math.round(wait * (0.75 + Math.random() * 0.5));
}

/** Episodes to play now, and those waiting to be played again (with when). */
function createQueue(keys: RunEpisodeKey[]) {
  const ready = [...keys];
  const later: { key: RunEpisodeKey; at: number }[] = [];
  const waiting = new Set<() => void>();
  const wakeAll = () => {
    for (const w of [...waiting]) w();
  };
  return {
    take(now: number): RunEpisodeKey | null {
      const i = later.findIndex((x) => x.at <= now);
      if (i >= 0) return later.splice(i, 1)[0]!.key;
      return ready.shift() ?? null;
    },
    later(key: RunEpisodeKey, at: number) {
      later.push({ key, at });
      wakeAll();
    },
    wakeAll,
    /** When the next waiting episode is due (null: none waits). */
    nextAt: () => (later.length ? Math.min(...later.map((x) => x.at)) : null),
    /** Resolves on the next change, or after `ms`. */
    changed(ms: number, signal: AbortSignal): Promise<void> {
      return new Promise((resolve) => {
        const done = () => {
          clearTimeout(timer);
          signal.removeEventListener("abort", done);
          waiting.delete(done);
          resolve();
        };
        const timer = setTimeout(done, ms);
        signal.addEventListener("abort", done, { once: true });
        waiting.add(done);
      });
    },
  };
}

/** Claims, plays and ends one episode; the episode's new status (null: it was not this process's to play). */
async function playOne(deps: PoolDeps, plan: PoolPlan, key: RunEpisodeKey): Promise<RunEpisodeStatus | null> {
  const now = deps.now ?? Date.now;
  const { run } = plan;
  const startedAt = now();
  const claimed = await deps.store.claimEpisode(run.id, key, deps.instance, runningPatch(startedAt));
  if (!claimed) {
    await plan.onRefused();
    return null;
  }
  const episode = { type: "episode" as const, runId: run.id, ...key };
  deps.publish({ ...episode, status: "running", trajectoryId: null, reward: null, error: null, at: now() });
  let end: Awaited<ReturnType<typeof playEpisode>>;
  try {
    end = await playEpisode(deps, { ...plan, key, owner: deps.instance, startedAt });
  } catch (err) {
    // The store failed under the episode: record what can be, keep the other workers going.
    end = {
      outcome: "env_error",
      error: `the episode could not be recorded: ${(err as Error).message}`,
      endedAt: now(),
    };
    deps.log(`run ${run.id}: ${end.error}`);
  }
  // Written only while this process holds the episode (another may have taken the run over).
  const status = await deps.store.endAttempt(run.id, key, end, {
    owner: deps.instance,
    maxAttempts: plan.maxAttempts,
  });
  if (status === null) return null;
  plan.onEnded();
  deps.publish({
    ...episode,
    status,
    trajectoryId: end.trajectoryId ?? null,
    reward: end.reward ?? null,
    error: end.error ?? null,
    at: now(),
  });
  return status;
}

let holders = 0;

/** Plays one episode within the server's cap on sessions (shared by this process's runs). */
async function playHeld(
  deps: PoolDeps,
  plan: PoolPlan,
  key: RunEpisodeKey,
): Promise<RunEpisodeStatus | null> {
  const server = plan.run.server;
  const holder = `pool-${++holders}`;
  const limit = (await deps.maxSessions(server)) ?? Number.MAX_SAFE_INTEGER;
  await acquire(
    deps.gate,
    [
      { key: serverResource(server), limit },
      { key: runResource(plan.run.id), limit: plan.concurrency },
    ],
    holder,
    plan.stop,
  );
  try {
    return await playOne(deps, plan, key);
  } finally {
    await deps.gate.release(holder);
  }
}

/** Plays `plan.keys`, `plan.concurrency` at a time, until they are all played or `plan.stop` aborts. */
export async function playPool(deps: PoolDeps, plan: PoolPlan): Promise<void> {
  const now = deps.now ?? Date.now;
  const queue = createQueue(plan.keys);
  const failures = new Map<string, number>();
  let playing = 0;
  const worker = async () => {
    while (!plan.stop.aborted) {
      const key = queue.take(now());
      if (!key) {
        const next = queue.nextAt();
        if (next === null && playing === 0) return;
        await queue.changed(next === null ? 1000 : Math.max(1, next - now()), plan.stop);
        continue;
      }
      playing++;
      try {
        const status = await playHeld(deps, plan, key).catch((err) => {
          // Aborted while waiting for a slot: it stays to play.
          if (plan.stop.aborted) return null;
          throw err;
        });
        if (status === "pending" && !plan.stop.aborted) {
          const id = `${key.taskIndex}/${key.repeat}`;
          const n = (failures.get(id) ?? 0) + 1;
          failures.set(id, n);
          queue.later(key, now() + retryWaitMs(n, deps.retryBaseMs ?? 1000));
        }
      } finally {
        playing--;
        queue.wakeAll();
      }
    }
  };
  const n = Math.max(1, Math.min(plan.concurrency, plan.keys.length));
  await Promise.all(Array.from({ length: n }, worker));
}
