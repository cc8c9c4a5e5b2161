// The worker side of `serve --workers`: a `serve` process started by the supervisor (lib/scale/
// supervisor.ts) says when it listens (IPC), stops when the supervisor goes away, and answers the
// sessions of its earlier life — lost when it restarted — with a clear 410 instead of "not found".
import "server-only";
import type { IncomingMessage, ServerResponse } from "node:http";

/** Set by the supervisor on each worker: `{"index": 1, "restart": 2}` (JSON). Not meant to be set by hand. */
export const WORKER_VAR = "ORS_SCALE_WORKER";

export interface WorkerIdentity {
  index: number;
  /** How many times this worker was restarted before this start (0: the first start). */
  restart: number;
  /** What every session id of this worker starts with, whatever its restart (`w1-`). */
  routePrefix: string;
  /** What this start's session ids start with (`w1-r2-`): ORS_SESSION_ID_PREFIX. */
  sessionPrefix: string;
}

/** What a worker reports to the supervisor once it listens. */
export interface WorkerReady {
  type: "ready";
  url: string;
  environments: string[];
  /** The module files it serves, their environments, and whether it reloads them when saved. */
  modules: Array<{ file: string; environments: string[]; watched: boolean }>;
}

/** This process's identity as a worker, or null when it runs on its own. */
export function workerIdentityFromEnv(env: Record<string, string | undefined>): WorkerIdentity | null {
  const raw = env[WORKER_VAR];
  if (!raw) return null;
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    parsed = null;
  }
  const { index, restart } = (parsed ?? {}) as { index?: unknown; restart?: unknown };
  if (!Number.isSafeInteger(index) || !Number.isSafeInteger(restart) || (index as number) < 0)
    throw new Error(`${WORKER_VAR}=${raw}: set by serve --workers for its workers; unset it`);
  const sessionPrefix = env.ORS_SESSION_ID_PREFIX ?? "";
  const own = new RegExp(`w${index}-r${restart}-$`);
  if (!own.test(sessionPrefix))
    throw new Error(
      `${WORKER_VAR}: ORS_SESSION_ID_PREFIX ${JSON.stringify(sessionPrefix)} is not this worker's`,
    );
  return {
    index: index as number,
    restart: restart as number,
    routePrefix: sessionPrefix.slice(0, sessionPrefix.length - `r${restart}-`.length),
    sessionPrefix,
  };
}

type Listener = (req: IncomingMessage, res: ServerResponse) => void;

/**
 * Wraps the host's listener: a request for a session this worker made before it was restarted gets
 * 410 with a `detail` saying so (the host alone would say "not found"). One header test per request.
 */
export function answerLostSessions(worker: WorkerIdentity, next: Listener): Listener {
  const { routePrefix, sessionPrefix } = worker;
  const body = JSON.stringify({
    detail: `This session is lost: ORS host worker ${worker.index} stopped and was restarted since it was created. Sessions live in the memory of the worker that created them and cannot move; start a new session with /create_session`,
  });
  return (req, res) => {
    const sid = req.headers["x-session-id"];
    if (typeof sid === "string" && sid.startsWith(routePrefix) && !sid.startsWith(sessionPrefix)) {
      res.writeHead(410, {
        "content-type": "application/json",
        "cache-control": "no-store",
        "content-length": Buffer.byteLength(body),
      });
      res.end(body);
      req.resume();
      return;
    }
    next(req, res);
  };
}

/** Tells the supervisor this worker listens (no-op without an IPC channel). */
export function reportReady(ready: WorkerReady): void {
  process.send?.(ready);
}

/** Resolves when the supervisor is gone (its IPC channel closed); never without one. */
export function supervisorGone(): Promise<void> {
  return new Promise((resolve) => {
    if (!process.send) return;
    if (!process.connected) resolve();
    else process.once("disconnect", () => resolve());
  });
}
