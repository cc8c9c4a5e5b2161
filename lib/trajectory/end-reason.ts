// How an episode ends (docs: the trajectory format's end reasons): the one vocabulary of the
// recorder, the store, the API and every view, and the one classifier that turns a failed session
// request into an end — by status code first, never by regular expressions over error text.
import type { END_REASONS } from "./model";

export type EndReason = (typeof END_REASONS)[number];

/** Short labels of the end reasons (and of a running episode), for badges and filters. */
export const END_REASON_LABEL: Record<EndReason | "running", string> = {
  finished: "Finished",
  user_closed: "Closed",
  timeout: "Expired",
  error: "Error",
  cancelled: "Cancelled",
  interrupted: "Interrupted",
  policy_stopped: "Stopped by policy",
  running: "Running",
};

/** The spec's idle limit (ors-sessions-episodes.txt "Session Timeout"), when a server's own is unknown. */
export const SPEC_IDLE_LIMIT_MS = 15 * 60_000;

/** A request of a recorded session that the server (or the relay) answered with an error. */
export interface SessionFailure {
  /** The ORS endpoint: create, prompt, task_tools, call, ping, delete, delete_session ... */
  endpoint: string;
  status: number;
  detail: string;
  /** Time since the session's last successful request (or its start). */
  idleForMs: number;
  /** The server's idle limit when the playground knows it, else null. */
  idleLimitMs: number | null;
  /** Whether a request that waits for setup (prompt, task_tools, call) has succeeded. */
  setupDone: boolean;
}

/** Statuses the relay itself answers (server unreachable, not ORS, timed out): never an end. */
const RELAY_STATUSES = new Set([502, 504]);
const SESSION_ENDPOINTS = new Set(["prompt", "task_tools", "call", "ping", "delete", "delete_session"]);
const SETUP_WAITERS = new Set(["prompt", "task_tools", "call", "ping"]);
/** Endpoints whose 404 may mean something else than an unknown session (environment, tool). */
const AMBIGUOUS_404 = new Set(["prompt", "task_tools", "call"]);

/** The failure does not say whether the session is gone: ask the server (`/ping`), then decide. */
export const CHECK_LIVENESS = "check-liveness";

/**
 * Whether a failed request ends the episode, and how:
 * - `/create` refused (any 4xx/5xx): `error`, with the server's message (e.g. a task_spec the
 *   environment cannot use);
 * - 410 Gone: the session was deleted by a client outside the playground: `user_closed`;
 * - 404 on /ping or /delete: the server no longer knows the session: `timeout` when it was idle
 *   for the server's limit (the spec's 15 min when unknown), else `error` (lost: a restart ...);
 *   a 404 on /prompt, /task_tools or /call may also mean an unknown environment or tool (spec:
 *   ors-http-api.txt "POST /{env}/call"), so it asks for a liveness check (CHECK_LIVENESS) first;
 * - a 5xx from the server before setup was seen to finish: setup failed: `error`.
 * Anything else (the relay's 502/504, 4xx for bad input, 401 ...) leaves the episode running.
 */
export function endForFailure(
  f: SessionFailure,
): { reason: EndReason; error: string } | typeof CHECK_LIVENESS | null {
  const why = f.detail || `HTTP ${f.status}`;
  if (f.endpoint === "create") return f.status >= 400 ? { reason: "error", error: why } : null;
  if (!SESSION_ENDPOINTS.has(f.endpoint)) return null;
  if (f.status === 410) return { reason: "user_closed", error: `the session was deleted elsewhere: ${why}` };
  if (f.status === 404) {
    if (AMBIGUOUS_404.has(f.endpoint)) return CHECK_LIVENESS;
    const limit = f.idleLimitMs ?? SPEC_IDLE_LIMIT_MS;
    if (f.idleForMs >= limit - 2_000) return { reason: "timeout", error: `the session expired: ${why}` };
    return { reason: "error", error: `the server lost the session: ${why}` };
  }
  if (f.status >= 500 && !RELAY_STATUSES.has(f.status) && !f.setupDone && SETUP_WAITERS.has(f.endpoint))
    return { reason: "error", error: `setup failed: ${why}` };
  return null;
}
