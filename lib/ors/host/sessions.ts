// The host's sessions and their limits (spec: ors-sessions-episodes.txt; ors-http-api.txt /create,
// /delete): creation with its asynchronous setup, the wait for it, binding a session created without
// an environment, the limits (sessions at once, bytes of inputs held: 429 with Retry-After beyond),
// teardown on /delete, idle and maximum duration, and the tombstones that answer 410/404 for ended ids.
import { OrsError } from "../protocol/http-error";
import type { CreateRequest, JsonObject } from "../protocol/schemas";
import { formatSseEvent } from "../protocol/sse";
import type { AnyTool } from "../sdk/define";
import { type EnvironmentIndex, taskAt } from "./environments";
import { Fifo } from "./fifo";
import type { OrsHostOptions } from "./options";
import { errorMessage } from "./output";
import { quote } from "./request";
import {
  assertSameEnv,
  type CloseReason,
  endedError,
  endedMessage,
  FAILED,
  HookContext,
  type HostedEnvironment,
  READY,
  SETTING_UP,
  Session,
  setupFailed,
  UNBOUND,
} from "./session";
import type { RunRegistry } from "./tool-runs";

const MAX_TOMBSTONES = 100_000;
const TOMBSTONE_TTL_MS = 60 * 60_000;
const REASONS: readonly CloseReason[] = ["deleted", "idle", "max-duration", "reloaded", "shutdown"];

/** A tombstone is one number, not an object (up to 100,000 are kept): the time ended, ms, times 8, plus the reason. */
function tombstone(reason: CloseReason, at: number): number {
  return Math.floor(at) * 8 + REASONS.indexOf(reason);
}
const reasonOf = (t: number): CloseReason => REASONS[t % 8]!;
const endedAt = (t: number): number => Math.floor(t / 8);

/** What `/create` asks for, after its body and headers were read and checked. */
export interface CreateOrder {
  sid: string;
  body: CreateRequest;
  /** The environment named by `env_name` (or chosen by the router), or null for "bind later". */
  hosted: HostedEnvironment | null;
  secrets: Record<string, string>;
  /** Bytes of the inputs the session will hold (its /create body and X-Secrets header). */
  bytes: number;
  /** Created through the playground's relay: reachable only through it (OrsHostOptions.relayKey). */
  relayOnly?: boolean;
}

export class SessionTable {
  private readonly sessions = new Map<string, Session>();
  private readonly tombstones = new Map<string, number>();
  /** The ids of `tombstones` in the order they ended, oldest first. */
  private readonly ended = new Fifo<string>();
  private closing = false;
  /** Bytes of inputs held by live sessions (Session.bytes summed). */
  bytes = 0;

  constructor(
    private readonly options: OrsHostOptions,
    private readonly runs: RunRegistry,
    private readonly envs: () => EnvironmentIndex,
  ) {}

  get size(): number {
    return this.sessions.size;
  }

  get tombstoneCount(): number {
    return this.tombstones.size;
  }

  settingUpCount(): number {
    let n = 0;
    for (const s of this.sessions.values()) if (s.status === SETTING_UP) n++;
    return n;
  }

  /** The live session of this id, if any (no error for unknown ones). */
  peek(sid: string): Session | undefined {
    return this.sessions.get(sid);
  }

  // ---- creation ----

  async create(order: CreateOrder): Promise<void> {
    const { sid, body, secrets } = order;
    const hosted = order.hosted;
    this.assertNewSession(sid);
    this.assertCapacity(order.bytes);
    if (!hosted) {
      // No environment yet (the reference client's split+index sessions on a multi-environment
      // host): the session's first /{env}/... request names it.
      if (body.task_spec == null) await this.assertSomeEnvHasTask(body.split!, body.index!);
      this.assertNewSession(sid);
      this.assertCapacity(order.bytes);
      const session = this.add(sid, order);
      session.status = UNBOUND;
      session.pending = {
        taskSpec: body.task_spec ?? null,
        split: body.split ?? null,
        index: body.index ?? null,
        secrets,
      };
      return;
    }
    const task = body.task_spec ?? (await taskAt(hosted.env, body.split!, body.index!));
    // Checked again: another /create may have taken the id or the last place meanwhile.
    this.assertNewSession(sid);
    this.assertCapacity(order.bytes);
    this.start(this.add(sid, order), hosted, task, secrets);
  }

  private add(sid: string, order: CreateOrder): Session {
    const session = new Session(sid, performance.now());
    session.bytes = order.bytes;
    session.relayOnly = order.relayOnly === true;
    this.bytes += order.bytes;
    this.sessions.set(sid, session);
    return session;
  }

  private async assertSomeEnvHasTask(split: string, index: number): Promise<void> {
    if (index < 0) throw new OrsError(400, `index: must be 0 or more, got ${index}`);
    for (const hosted of this.envs().values()) {
      if (!hosted.env.hasSplit(split)) continue;
      const n = await hosted.env.numTasks(split).catch(() => 0);
      if (index < n) return;
    }
    throw new OrsError(
      400,
      `No environment here has task ${index} of a split ${quote(split)}; name the environment with env_name`,
    );
  }

  /** Binds an unbound session to the environment of its first /{env}/... request. */
  private async bind(s: Session, hosted: HostedEnvironment): Promise<void> {
    if (!s.binding) {
      const p = s.pending!;
      s.binding = (async () => {
        const task = p.taskSpec ?? (await taskAt(hosted.env, p.split!, p.index!));
        if (s.closed || s.status !== UNBOUND) return;
        s.pending = null;
        this.start(s, hosted, task, p.secrets);
      })().finally(() => {
        s.binding = null;
      });
    }
    await s.binding;
  }

  /** Builds the session's context and state and starts its setup (asynchronously). */
  private start(
    session: Session,
    hosted: HostedEnvironment,
    task: JsonObject,
    secrets: Record<string, string>,
  ): void {
    const def = hosted.env.definition;
    const frozenSecrets = Object.freeze(secrets);
    session.hosted = hosted;
    session.ctx = new HookContext(session.id, task, frozenSecrets, {});
    session.status = SETTING_UP;
    try {
      if (def.createState) session.ctx.state = def.createState({ task, secrets: frozenSecrets });
    } catch (e) {
      this.failSetup(session, e);
      return;
    }
    if (!def.setup) {
      session.status = READY;
      return;
    }
    session.ready = new Promise<void>((resolve) => {
      session.resolveReady = resolve;
    });
    Promise.resolve()
      .then(() => def.setup!(session.ctx))
      .then(
        () => {
          if (session.closed) {
            void this.teardown(session);
            return;
          }
          session.status = READY;
          session.resolveReady?.();
        },
        (e) => this.failSetup(session, e),
      );
  }

  private failSetup(session: Session, e: unknown): void {
    session.status = FAILED;
    session.setupError = errorMessage(e);
    this.options.log(`setup of ${session.hosted.name} failed for a session: ${session.setupError}`);
    session.resolveReady?.();
  }

  /** A 400 when the id is held or was used by a session that ended. */
  assertNewSession(sid: string): void {
    if (this.sessions.has(sid)) throw new OrsError(400, `Session already exists: ${quote(sid)}`);
    if (this.tombstones.has(sid))
      throw new OrsError(
        400,
        `Session ${quote(sid)} was already used and has ended; get a new id from /create_session`,
      );
  }

  /** Room for one more session holding `bytes`: 429 with Retry-After beyond a limit (nobody is evicted). */
  private assertCapacity(bytes: number): void {
    if (this.closing) throw new OrsError(503, "The server is shutting down");
    const { maxSessions, maxSessionBytes, retryAfterS } = this.options;
    const retry = { "retry-after": String(retryAfterS) };
    if (this.sessions.size >= maxSessions)
      throw new OrsError(
        429,
        `Too many sessions: this server holds at most ${maxSessions} at once (ORS_MAX_SESSIONS). Delete finished sessions with /delete, or retry after ${retryAfterS} s`,
        retry,
      );
    if (bytes > maxSessionBytes)
      throw new OrsError(
        413,
        `This session's inputs (task spec and secrets: ${bytes} bytes) exceed the ${maxSessionBytes} bytes all sessions may hold together (ORS_MAX_SESSION_BYTES)`,
      );
    if (this.bytes + bytes > maxSessionBytes)
      throw new OrsError(
        429,
        `Session memory full: live sessions hold ${this.bytes} bytes of task specs and secrets, and this one's ${bytes} would pass the limit of ${maxSessionBytes} (ORS_MAX_SESSION_BYTES). Delete finished sessions with /delete, or retry after ${retryAfterS} s`,
        retry,
      );
  }

  // ---- lookups ----

  /** The live session, or the right error for an ended (410/404) or never-seen (404) one. */
  require(sid: string): Session {
    const s = this.sessions.get(sid);
    if (s) return s;
    const t = this.tombstones.get(sid);
    if (t !== undefined) throw endedError(sid, reasonOf(t), this.options);
    throw new OrsError(404, `Session not found: ${quote(sid)} (create it with /create first)`);
  }

  /**
   * The session once its setup has finished: waits for it, reports a failed one. An unbound
   * session is bound to `hosted` first.
   */
  async ready(sid: string, hosted: HostedEnvironment): Promise<Session> {
    const s = this.require(sid);
    if (s.status === UNBOUND) {
      await this.bind(s, hosted);
      if (s.closed) throw endedError(sid, s.closed, this.options);
    }
    if (s.status === SETTING_UP) {
      s.busy++;
      try {
        await s.ready;
      } finally {
        s.busy--;
        s.lastSeen = performance.now();
      }
      if (s.closed) throw endedError(sid, s.closed, this.options);
    }
    if (s.status === FAILED) {
      // On another environment's path the request is about that environment, which the session is
      // not of: a 404, as for /call; the setup's 500 answers its own environment's paths.
      assertSameEnv(s, hosted);
      throw setupFailed(s);
    }
    return s;
  }

  /** The session when its setup is done (nothing to wait for, no binding to make), else null. */
  readyNow(sid: string): Session | null {
    const s = this.sessions.get(sid);
    return s?.status === READY ? s : null;
  }

  /** `/ping`: the session exists and its setup did not fail. */
  ping(sid: string): void {
    const s = this.require(sid);
    if (s.status === FAILED) throw setupFailed(s);
  }

  /** The session's tools: the shared ones plus its task's (computed once, after setup). */
  tools(s: Session): ReadonlyMap<string, AnyTool> {
    if (s.tools) return s.tools;
    const shared = s.hosted.env.tools as ReadonlyMap<string, AnyTool>;
    const extra = s.hosted.env.definition.taskTools?.(s.ctx) as Record<string, AnyTool> | undefined;
    if (!extra || Object.keys(extra).length === 0) {
      s.tools = shared;
      s.taskToolsJson = s.hosted.toolsJson;
      return shared;
    }
    const all = new Map(shared);
    const specs = s.hosted.toolSpecs.filter((t) => !(t.name in extra));
    for (const [name, tool] of Object.entries(extra)) {
      all.set(name, tool);
      specs.push({ name, description: tool.description, input_schema: tool.inputSchema });
    }
    s.tools = all;
    s.taskToolsJson = JSON.stringify({ tools: specs });
    return all;
  }

  // ---- ending ----

  /** `/delete`: the session must exist (404/410 otherwise). */
  delete(sid: string): Promise<void> | undefined {
    return this.close(this.require(sid), "deleted");
  }

  /** `/delete_session` (optional cleanup after /delete, spec): tears down a session still held. */
  deleteIfHeld(sid: string): Promise<void> | undefined {
    const s = this.sessions.get(sid);
    return s ? this.close(s, "deleted") : undefined;
  }

  /**
   * Ends a session: tombstone, abort its runs' signal, end running calls, teardown. The promise of
   * the teardown, or undefined when there is none to wait for.
   */
  close(s: Session, reason: CloseReason): Promise<void> | undefined {
    if (s.closed) return;
    s.closed = reason;
    this.sessions.delete(s.id);
    this.bytes -= s.bytes;
    s.bytes = 0;
    s.pending = null;
    if (this.tombstones.size >= MAX_TOMBSTONES) this.tombstones.delete(this.ended.shift()!);
    this.tombstones.set(s.id, tombstone(reason, performance.now()));
    this.ended.push(s.id);
    // The message only where something is told it: a signal a tool read, or running calls.
    const message = s.hasSignal || s.running?.size ? endedMessage(s.id, reason, this.options) : "";
    s.abort(message);
    if (s.running?.size) {
      const now = performance.now();
      for (const run of [...s.running]) this.runs.complete(run, formatSseEvent("error", message), now);
      s.running = null;
    }
    if (s.status === SETTING_UP) {
      // Waiters are released now; teardown runs if and when the setup succeeds.
      s.resolveReady?.();
      return;
    }
    if (s.status === READY) return this.teardown(s);
  }

  private teardown(s: Session): Promise<void> | undefined {
    const teardown = s.hosted.env.definition.teardown;
    if (!teardown) return;
    return (async () => {
      try {
        await teardown(s.ctx);
      } catch (e) {
        this.options.log(`teardown of ${s.hosted.name} failed`, e);
      }
    })();
  }

  /** Ends idle and too-old sessions; forgets old tombstones. */
  sweep(now: number): void {
    const { idleTimeoutMs, maxSessionMs } = this.options;
    for (const s of this.sessions.values()) {
      if (maxSessionMs > 0 && now - s.createdAt >= maxSessionMs) void this.close(s, "max-duration");
      else if (s.busy === 0 && now - s.lastSeen >= idleTimeoutMs) void this.close(s, "idle");
    }
    for (let sid = this.ended.peek(); sid !== undefined; sid = this.ended.peek()) {
      if (now - endedAt(this.tombstones.get(sid)!) < TOMBSTONE_TTL_MS) break;
      this.tombstones.delete(sid);
      this.ended.shift();
    }
  }

  /** Ends the sessions of environments no longer served (a reload); returns their ids. */
  async endReloaded(kept: ReadonlySet<HostedEnvironment>): Promise<string[]> {
    // Unbound sessions have no environment yet: their first /{env}/... request binds one of the new.
    const ended = [...this.sessions.values()].filter((s) => s.status !== UNBOUND && !kept.has(s.hosted));
    await Promise.all(ended.map((s) => this.close(s, "reloaded")));
    return ended.map((s) => s.id);
  }

  /** Refuses new sessions and ends every one held (host shutdown). */
  async closeAll(): Promise<void> {
    this.closing = true;
    await Promise.all([...this.sessions.values()].map((s) => this.close(s, "shutdown")));
  }
}
