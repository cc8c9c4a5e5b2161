// The ORS host as a fetch handler (spec: ors-http-api.txt, every endpoint; ors-sse.txt for /call;
// ors-sessions-episodes.txt for the session lifecycle): the coordinator of the router, the session
// table and the tool calls. No framework imports: the Next.js route and the node:http adapter both
// forward to it, and tests call it with plain `Request`s.
import { errorBody, INTERNAL_ERROR_DETAIL, OrsError } from "../protocol/http-error";
import type { AnyEnvironment } from "../sdk/define";
import { ToolCalls } from "./calls";
import { EnvironmentIndex } from "./environments";
import { type OrsHostOptions, resolveHostOptions } from "./options";
import { jsonReply, type OrsReply, replyToResponse } from "./reply";
import { type IncomingOrsRequest, pathOf, readRequestBody } from "./request";
import { Router } from "./routing";
import { SessionTable } from "./sessions";
import { RunRegistry } from "./tool-runs";

export { type IncomingOrsRequest, pathOf, tooLarge } from "./request";

/** Counters for monitoring and benchmarks. */
export interface OrsHostStats {
  sessions: number;
  settingUp: number;
  tombstones: number;
  runsRunning: number;
  resultsKept: number;
  resultBytesKept: number;
  /** Bytes of the inputs live sessions hold (their /create bodies and X-Secrets), bounded by
   *  `maxSessionBytes`. */
  sessionBytes: number;
}

export interface OrsHost {
  readonly options: OrsHostOptions;
  /** Sessions held now (setting up, ready or failed). */
  readonly sessionCount: number;
  stats(): OrsHostStats;
  /** Answers one request, adapter-neutral (the relay calls the built-in host so). */
  dispatch(req: IncomingOrsRequest): Promise<OrsReply>;
  /** As `dispatch`, but a reply known at once comes back as it is, not in a promise (the node:http
   *  adapter uses this: most requests of an episode are answered without waiting for anything). */
  answer(req: IncomingOrsRequest): OrsReply | Promise<OrsReply>;
  /**
   * Serves these environments from now on (a hot reload). An environment object served before is
   * kept with its sessions; the sessions of every other one end with reason `reloaded` (their
   * running calls get `event: error`, teardown runs, later requests get 404 saying so). Returns the
   * ids of the ended sessions. Throws, changing nothing, on a list `createOrsHandler` would refuse.
   */
  replaceEnvironments(environments: AnyEnvironment[]): Promise<string[]>;
  /** Tears down every session and stops the sweep timer. */
  close(): Promise<void>;
}

export type OrsHandler = ((req: Request) => Promise<Response>) & {
  close(): Promise<void>;
  readonly host: OrsHost;
};

class Host implements OrsHost {
  readonly options: OrsHostOptions;
  // Replaced as a whole by replaceEnvironments (a reload); never mutated in place.
  private envs: EnvironmentIndex;
  private readonly sessions: SessionTable;
  private readonly runs: RunRegistry;
  private readonly router: Router;
  private readonly sweepTimer: ReturnType<typeof setInterval>;

  constructor(environments: AnyEnvironment[], options: Partial<OrsHostOptions>) {
    this.envs = EnvironmentIndex.of(environments);
    this.options = resolveHostOptions(options);
    this.runs = new RunRegistry(this.options.resultLingerMs, this.options.resultCacheBytes);
    const envs = () => this.envs;
    this.sessions = new SessionTable(this.options, this.runs, envs);
    const calls = new ToolCalls(this.options, this.sessions, this.runs);
    this.router = new Router({ options: this.options, envs, sessions: this.sessions, calls });
    this.sweepTimer = setInterval(() => this.sweep(), this.options.sweepIntervalMs);
    this.sweepTimer.unref?.();
  }

  get sessionCount(): number {
    return this.sessions.size;
  }

  stats(): OrsHostStats {
    const r = this.runs.stats;
    return {
      sessions: this.sessions.size,
      settingUp: this.sessions.settingUpCount(),
      tombstones: this.sessions.tombstoneCount,
      runsRunning: r.running,
      resultsKept: r.kept,
      resultBytesKept: r.keptBytes,
      sessionBytes: this.sessions.bytes,
    };
  }

  dispatch(req: IncomingOrsRequest): Promise<OrsReply> {
    return Promise.resolve(this.answer(req));
  }

  answer(req: IncomingOrsRequest): OrsReply | Promise<OrsReply> {
    let out: OrsReply | Promise<OrsReply>;
    try {
      out = this.router.route(req);
    } catch (e) {
      return this.failure(req, e);
    }
    return out instanceof Promise ? out.then(undefined, (e: unknown) => this.failure(req, e)) : out;
  }

  /** The answer to what a request threw: its OrsError, or a logged 500. */
  private failure(req: IncomingOrsRequest, e: unknown): OrsReply {
    if (e instanceof OrsError)
      return jsonReply(e.status, errorBody(e.detail), e.headers ? { ...e.headers } : undefined);
    this.options.log(`internal error on ${req.method} ${req.path.slice(0, 200)}`, e);
    return jsonReply(500, errorBody(INTERNAL_ERROR_DETAIL));
  }

  private sweep(): void {
    const now = performance.now();
    this.sessions.sweep(now);
    this.runs.sweep(now);
  }

  async replaceEnvironments(environments: AnyEnvironment[]): Promise<string[]> {
    const current = new Map([...this.envs.values()].map((h) => [h.env, h] as const));
    // Validates first: an invalid list changes nothing.
    const index = EnvironmentIndex.of(environments, current);
    this.envs = index;
    return this.sessions.endReloaded(new Set(index.values()));
  }

  async close(): Promise<void> {
    clearInterval(this.sweepTimer);
    await this.sessions.closeAll();
    this.runs.clear();
  }
}

/**
 * Creates the ORS host as a fetch handler. Paths are served with or without `options.basePath`
 * (so `/health` and `/api/ors/health` both work when it is `/api/ors`).
 *
 * @example
 * const handler = createOrsHandler([math], { idleTimeoutMs: 60_000 });
 * const res = await handler(new Request("http://x/health"));
 */
export function createOrsHandler(
  environments: AnyEnvironment[],
  options: Partial<OrsHostOptions> = {},
): OrsHandler {
  const host = new Host(environments, options);
  const handler = async (req: Request): Promise<Response> => {
    const reply = await host.dispatch({
      method: req.method,
      path: pathOf(req.url),
      header: (name) => req.headers.get(name),
      readBody: (limit) => readRequestBody(req, limit),
    });
    return replyToResponse(reply, req.signal);
  };
  return Object.assign(handler, {
    close: () => host.close(),
    host: host as OrsHost,
  });
}
