// One ORS session = one episode (spec: ors-sessions-episodes.txt): its environment, task, secrets
// and state, the asynchronous setup that later requests wait for, and how it ended (deleted → 410,
// expired → 404). The contexts handed to environment hooks are built here.
import { OrsError } from "../protocol/http-error";
import type { JsonObject } from "../protocol/schemas";
import type { AnyEnvironment, AnyTool, SessionContext, ToolContext } from "../sdk/define";
import type { OrsHostOptions } from "./options";
import { quote, seconds } from "./request";
import type { ToolRun } from "./tool-runs";

/** Why a session ended; `reloaded`: its environment's code was replaced (hot reload). */
export type CloseReason = "deleted" | "idle" | "max-duration" | "reloaded" | "shutdown";

export const SETTING_UP = 0;
export const READY = 1;
export const FAILED = 2;
/** Created without `env_name` on a multi-environment host: bound by its first `/{env}/...` request. */
export const UNBOUND = 3;

/** What `/create` asked for, kept until an unbound session learns its environment. */
export interface PendingTask {
  taskSpec: JsonObject | null;
  split: string | null;
  index: number | null;
  secrets: Record<string, string>;
}

/** The environment as the host serves it, with its discovery answers precomputed. */
export interface HostedEnvironment {
  readonly env: AnyEnvironment;
  readonly name: string;
  /** `/{env}/tools` body. */
  readonly toolsJson: string;
  /** `/{env}/splits` body. */
  readonly splitsJson: string;
  /** Shared tool specs, for `/{env}/task_tools`. */
  readonly toolSpecs: ReadonlyArray<{ name: string; description: string; input_schema: JsonObject | null }>;
}

/** The context every hook of a session gets; `state` is shared and mutable. */
export class HookContext implements SessionContext<JsonObject, Record<string, unknown>> {
  state: Record<string, unknown>;
  constructor(
    readonly sessionId: string,
    readonly task: JsonObject,
    readonly secrets: Readonly<Record<string, string>>,
    state: Record<string, unknown>,
  ) {
    this.state = state;
  }
}

/** A tool run's context: the session's context (state read and written through) plus a signal. */
export class RunContext implements ToolContext<JsonObject, Record<string, unknown>> {
  constructor(
    private readonly base: HookContext,
    /** The run's own signal, or the session whose signal is created on first read. */
    private readonly source: AbortSignal | { readonly signal: AbortSignal },
  ) {}
  get signal(): AbortSignal {
    const src = this.source;
    return src instanceof AbortSignal ? src : src.signal;
  }
  get sessionId(): string {
    return this.base.sessionId;
  }
  get task(): JsonObject {
    return this.base.task;
  }
  get secrets(): Readonly<Record<string, string>> {
    return this.base.secrets;
  }
  get state(): Record<string, unknown> {
    return this.base.state;
  }
  set state(value: Record<string, unknown>) {
    this.base.state = value;
  }
}

export class Session {
  status: number = SETTING_UP;
  setupError: string | null = null;
  closed: CloseReason | null = null;
  /** Requests waiting for setup plus tool runs in progress: a busy session is never idle. */
  busy = 0;
  lastSeen: number;
  readonly createdAt: number;
  /** Resolves when setup settles or the session closes, whichever is first. */
  ready: Promise<void> | null = null;
  resolveReady: (() => void) | null = null;
  /** Runs in progress, so teardown can end their streams. */
  running: Set<ToolRun> | null = null;
  /** Shared tools plus this task's tools, computed after setup. */
  tools: ReadonlyMap<string, AnyTool> | null = null;
  taskToolsJson: string | null = null;
  /** Bytes of the inputs this session holds (its /create body and X-Secrets), counted against
   *  ORS_MAX_SESSION_BYTES until it ends. */
  bytes = 0;
  /** Reachable only through the playground's relay (OrsHostOptions.relayKey). */
  relayOnly = false;
  /** Set while unbound; `binding` is the bind in progress, shared by concurrent requests. */
  pending: PendingTask | null = null;
  binding: Promise<void> | null = null;
  hosted!: HostedEnvironment;
  ctx!: HookContext;
  private abortController: AbortController | null = null;
  private abortReason: string | null = null;

  constructor(
    readonly id: string,
    now: number,
  ) {
    this.createdAt = now;
    this.lastSeen = now;
  }

  /** Aborted when the session is torn down; created on first use. */
  get signal(): AbortSignal {
    if (!this.abortController) {
      this.abortController = new AbortController();
      if (this.abortReason !== null) this.abortController.abort(new Error(this.abortReason));
    }
    return this.abortController.signal;
  }

  /** Whether a signal was handed out (then `abort` must give it a reason). */
  get hasSignal(): boolean {
    return this.abortController !== null;
  }

  abort(reason: string): void {
    this.abortReason = reason;
    this.abortController?.abort(new Error(reason));
  }
}

/** A 404 unless the session runs this environment (spec: `/call` "environment mismatch"). */
export function assertSameEnv(s: Session, hosted: HostedEnvironment): void {
  if (s.hosted !== hosted)
    throw new OrsError(
      404,
      `Session ${quote(s.id)} runs environment ${quote(s.hosted.name)}, not ${quote(hosted.name)}`,
    );
}

export function setupFailed(s: Session): OrsError {
  return new OrsError(500, `Setup of environment ${s.hosted.name} failed: ${s.setupError}`);
}

/** Why a session is gone, as the detail of later requests and the `event: error` of its calls says. */
export function endedMessage(sid: string, reason: CloseReason, o: OrsHostOptions): string {
  switch (reason) {
    case "deleted":
      return `Session ${quote(sid)} was deleted`;
    case "idle":
      return `Session ${quote(sid)} expired: no request for ${seconds(o.idleTimeoutMs)}`;
    case "max-duration":
      return `Session ${quote(sid)} expired: it reached the maximum session duration of ${seconds(o.maxSessionMs)}`;
    case "reloaded":
      return `Session ${quote(sid)} ended: its environment was reloaded (its code changed); start a new session`;
    default:
      return `Session ${quote(sid)} ended: the server shut down`;
  }
}

/** Deleted sessions are 410 Gone; expired and shut-down ones 404 (spec: timeout → 404). */
export function endedError(sid: string, reason: CloseReason, o: OrsHostOptions): OrsError {
  return new OrsError(reason === "deleted" ? 410 : 404, endedMessage(sid, reason, o));
}
