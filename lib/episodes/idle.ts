// The idle rule (how long a recorded episode may go without any request before the playground ends
// it as `timeout` and deletes its session) and the sweep that applies it, with retention, once a
// minute. The episode page's keep-alive stops when nobody uses its tab, so a forgotten or closed tab
// lets this rule end the episode.
import "server-only";
import { type Env, processEnv, settingOrDefault } from "@/lib/config";
import type { TrajectoryStore } from "../store/types";
import { SPEC_IDLE_LIMIT_MS } from "../trajectory/end-reason";
import type { EpisodeLifecycle } from "./lifecycle";

/** Past a server's idle limit, a minute of grace for clocks and requests in flight. */
export const IDLE_GRACE_MS = 60_000;

/** PLAYGROUND_IDLE_TIMEOUT_S in milliseconds when set (one limit for every server), else null. */
export function idleTimeoutMs(env: Env = processEnv()): number | null {
  return settingOrDefault(env, "PLAYGROUND_IDLE_TIMEOUT_S");
}

/**
 * The idle rule: an explicit limit for every server when given; else the server's own idle limit
 * when the playground knows it (its built-in host's, a per-server setting), else the spec's 15
 * minutes; plus the grace.
 */
export function idleRule(explicitMs: number | null, serverLimitMs: number | null): number {
  return explicitMs ?? (serverLimitMs ?? SPEC_IDLE_LIMIT_MS) + IDLE_GRACE_MS;
}

/** A limit in words: "16 min", "90 s". */
export function formatIdle(ms: number): string {
  return ms % 60_000 === 0 ? `${ms / 60_000} min` : `${Math.round(ms / 1000)} s`;
}

export interface IdleSweepOptions {
  store: Pick<TrajectoryStore, "running" | "inflightElsewhere" | "enforceRetention">;
  lifecycle: Pick<EpisodeLifecycle, "end">;
  /** One limit for every server (PLAYGROUND_IDLE_TIMEOUT_S), or null: each server's own decides. */
  explicitIdleMs: number | null;
  /** A server's idle limit when the playground knows it. */
  idleLimitOf?: (server: string) => Promise<number | null> | number | null;
  /** Deletes a session on its server (a `/delete` through the relay). */
  closeSession?: (server: string, sid: string) => Promise<unknown>;
  /** Whether this process has a call of the episode in flight (then it is busy, not idle). */
  busyHere: (id: string) => boolean;
  log: (message: string) => void;
}

/** A server's limit and why, for the message an ended episode keeps. */
async function limitOf(o: IdleSweepOptions, server: string): Promise<{ ms: number; why: string }> {
  const known = o.explicitIdleMs === null ? ((await o.idleLimitOf?.(server)) ?? null) : null;
  const why =
    o.explicitIdleMs !== null
      ? "the playground's idle timeout"
      : known !== null
        ? `past server "${server}"'s idle limit of ${formatIdle(known)}`
        : `server "${server}"'s idle limit is unknown; the spec's is ${formatIdle(SPEC_IDLE_LIMIT_MS)}`;
  return { ms: idleRule(o.explicitIdleMs, known), why };
}

/**
 * The sweep: ends the idle episodes first (so the relay's record of the `/delete` that follows finds
 * them ended, not closed by a user), then deletes their sessions upstream, then applies retention.
 * Episodes with a call in flight (here, or through another process) are busy, not idle. Another
 * replica's sweep may end one first: `end` then says so and this one sends nothing.
 */
export function createIdleSweep(o: IdleSweepOptions): (now?: number) => Promise<void> {
  return async (now = Date.now()) => {
    const limits = new Map<string, { ms: number; why: string }>();
    const closing: Promise<unknown>[] = [];
    for (const t of await o.store.running()) {
      let limit = limits.get(t.server);
      if (limit === undefined) {
        limit = await limitOf(o, t.server);
        limits.set(t.server, limit);
      }
      if (now - t.last_activity_at <= limit.ms) continue;
      if (o.busyHere(t.id) || (await o.store.inflightElsewhere(t.id)).length > 0) continue;
      const at = t.last_activity_at + limit.ms;
      const sid = t.sid;
      const close = sid !== null ? o.closeSession : undefined;
      const error = `no request for ${formatIdle(limit.ms)} (${limit.why}): the playground ended the episode${close ? " and deleted its session" : ""}`;
      if (!(await o.lifecycle.end(t.id, "timeout", at, error))) continue;
      if (close && sid !== null)
        closing.push(
          close(t.server, sid).catch((e: unknown) => {
            o.log(
              `could not delete idle session ${sid} on ${t.server}: ${e instanceof Error ? e.message : String(e)}`,
            );
          }),
        );
    }
    await Promise.all(closing);
    await o.store.enforceRetention(now);
  };
}
