// Host limits and timeouts (docs/architecture.md "Host-side limits"; spec: session timeout, SSE pings, result
// linger) and how they are read from `ORS_*` environment variables.
import { SSE_PING_INTERVAL_MS } from "../protocol/sse";

export interface OrsHostOptions {
  /** Path prefix stripped from request paths when present (e.g. `/api/ors`). */
  basePath: string;
  /** A session with no request for this long (and nothing running) is torn down. Spec: 15 min. */
  idleTimeoutMs: number;
  /** A session is torn down this long after `/create`, however active. 0 = no limit. */
  maxSessionMs: number;
  /** A tool call running longer ends with `event: error`; the session goes on. 0 = no limit. */
  callTimeoutMs: number;
  /** Sessions held at once; `/create` beyond answers 429 with `Retry-After` (nobody is evicted). */
  maxSessions: number;
  /** Total bytes of the inputs live sessions hold (their /create bodies: task specs, secrets; and
   *  X-Secrets headers); a `/create` beyond answers 429 with `Retry-After`. */
  maxSessionBytes: number;
  /** The `Retry-After` (seconds) of a capacity 429. */
  retryAfterS: number;
  /** Prefix of the session ids `/create_session` makes (e.g. `w3-`: ids that name their worker, for
   *  a proxy that routes by session id). URL-safe characters only; default none. */
  sessionIdPrefix: string;
  /** Request bodies above this many bytes answer 413. */
  maxBodyBytes: number;
  /** How long a completed tool result is kept for reconnection by `task_id`. Spec: 60 s. */
  resultLingerMs: number;
  /** Total size (UTF-16 code units + a fixed overhead per result) of results kept for reconnection. */
  resultCacheBytes: number;
  /** Interval of the `: ping` comment while a tool runs. Spec: 10 s. Below 30 s (see
   *  CLIENT_SILENCE_LIMIT_MS). */
  pingIntervalMs: number;
  /** When non-empty, every endpoint but /health requires one of these in `X-API-Key`. */
  apiKeys: string[];
  /** How often expired sessions and results are swept. Default: derived from the timeouts. */
  sweepIntervalMs: number;
  /** Where errors are logged (never secrets). Default: console.error. */
  log: (message: string, error?: unknown) => void;
  /**
   * A key the playground's relay sends in `RELAY_ONLY_HEADER` (./routing.ts) to the host in its
   * process: a session created with it is reachable only by requests carrying it, so a session the
   * playground records cannot be driven, unrecorded, through the host's public mounts. Null: none.
   */
  relayKey: string | null;
}

export const DEFAULT_HOST_OPTIONS: Readonly<Omit<OrsHostOptions, "sweepIntervalMs" | "log">> = {
  basePath: "",
  idleTimeoutMs: 15 * 60_000,
  maxSessionMs: 0,
  callTimeoutMs: 0,
  maxSessions: 50_000,
  maxSessionBytes: 256 * 1024 * 1024,
  retryAfterS: 2,
  sessionIdPrefix: "",
  maxBodyBytes: 10 * 1024 * 1024,
  resultLingerMs: 60_000,
  resultCacheBytes: 64 * 1024 * 1024,
  pingIntervalMs: SSE_PING_INTERVAL_MS,
  apiKeys: [],
  relayKey: null,
};

/**
 * The OpenReward client gives up on a stream that sends nothing for 30 s (its read timeout, pings
 * included); the reference client's tools wait as long. A ping interval must stay well below it.
 */
export const CLIENT_SILENCE_LIMIT_MS = 30_000;

function pingTooSlow(ms: number, name: string): Error {
  return new Error(
    `${name} must be below ${CLIENT_SILENCE_LIMIT_MS} (30 s), got ${ms}: the OpenReward client gives up on a stream silent for 30 s, so pings must come well before that (the spec's interval is 10000)`,
  );
}

/**
 * Fills in defaults; the sweep runs often enough for the shortest configured timeout. Throws on a
 * ping interval of 30 s or more.
 */
export function resolveHostOptions(options: Partial<OrsHostOptions> = {}): OrsHostOptions {
  const o = { ...DEFAULT_HOST_OPTIONS, ...stripUndefined(options) };
  if (!(o.pingIntervalMs > 0 && o.pingIntervalMs < CLIENT_SILENCE_LIMIT_MS))
    throw pingTooSlow(o.pingIntervalMs, "pingIntervalMs");
  checkSessionIdPrefix(o.sessionIdPrefix, "sessionIdPrefix");
  const timeouts = [o.idleTimeoutMs, o.maxSessionMs, o.resultLingerMs].filter((t) => t > 0);
  const shortest = timeouts.length ? Math.min(...timeouts) : 1000;
  let basePath = o.basePath.replace(/\/+$/, "");
  if (basePath && !basePath.startsWith("/")) basePath = `/${basePath}`;
  return {
    ...o,
    basePath,
    apiKeys: o.apiKeys.filter(Boolean),
    sweepIntervalMs: options.sweepIntervalMs ?? Math.max(5, Math.min(1000, Math.floor(shortest / 4))),
    log: options.log ?? defaultLog,
  };
}

/** Letters, digits, `-`, `_`, `.`, `~` (RFC 3986 unreserved): safe in a header, a path, an nginx map. */
const SID_PREFIX = /^[A-Za-z0-9._~-]{0,64}$/;

function checkSessionIdPrefix(prefix: string, name: string): void {
  if (!SID_PREFIX.test(prefix))
    throw new Error(
      `${name} must be at most 64 URL-safe characters (letters, digits, - _ . ~), got ${JSON.stringify(prefix)}`,
    );
}

function stripUndefined<T extends object>(o: T): Partial<T> {
  const out: Partial<T> = {};
  for (const [k, v] of Object.entries(o)) if (v !== undefined) (out as Record<string, unknown>)[k] = v;
  return out;
}

function defaultLog(message: string, error?: unknown): void {
  if (error === undefined) console.error(`[ors-host] ${message}`);
  else
    console.error(`[ors-host] ${message}:`, error instanceof Error ? (error.stack ?? error.message) : error);
}

/** The `ORS_*` variables, their option and a one-line meaning (the README table is built from this). */
export const HOST_ENV_VARS = [
  ["ORS_IDLE_TIMEOUT_MS", "idleTimeoutMs"],
  ["ORS_MAX_SESSION_MS", "maxSessionMs"],
  ["ORS_CALL_TIMEOUT_MS", "callTimeoutMs"],
  ["ORS_MAX_SESSIONS", "maxSessions"],
  ["ORS_MAX_SESSION_BYTES", "maxSessionBytes"],
  ["ORS_MAX_BODY_BYTES", "maxBodyBytes"],
  ["ORS_RESULT_LINGER_MS", "resultLingerMs"],
  ["ORS_RESULT_CACHE_BYTES", "resultCacheBytes"],
  ["ORS_PING_INTERVAL_MS", "pingIntervalMs"],
] as const;

/**
 * Reads the host options from `ORS_*` environment variables. A variable that is set but not a
 * non-negative integer throws at startup, naming it, and so does `ORS_PING_INTERVAL_MS` of 30 s or
 * more (the OpenReward client's silence limit).
 */
export function hostOptionsFromEnv(
  env: Record<string, string | undefined> = process.env,
): Partial<OrsHostOptions> {
  const out: Partial<OrsHostOptions> = {};
  for (const [name, key] of HOST_ENV_VARS) {
    const raw = env[name]?.trim();
    if (!raw) continue;
    if (!/^\d+$/.test(raw))
      throw new Error(`${name} must be a non-negative integer, got ${JSON.stringify(raw)}`);
    const value = Number(raw);
    if (
      (key === "maxSessions" ||
        key === "maxSessionBytes" ||
        key === "pingIntervalMs" ||
        key === "idleTimeoutMs") &&
      value === 0
    )
      throw new Error(`${name} must be greater than 0`);
    if (key === "pingIntervalMs" && value >= CLIENT_SILENCE_LIMIT_MS) throw pingTooSlow(value, name);
    out[key] = value;
  }
  const prefix = env.ORS_SESSION_ID_PREFIX?.trim();
  if (prefix) {
    checkSessionIdPrefix(prefix, "ORS_SESSION_ID_PREFIX");
    out.sessionIdPrefix = prefix;
  }
  const keys = env.ORS_API_KEYS?.trim();
  if (keys)
    out.apiKeys = keys
      .split(",")
      .map((k) => k.trim())
      .filter(Boolean);
  return out;
}
