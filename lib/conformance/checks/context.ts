// What one conformance run shares between its checks: the options, the HTTP probe, what was learnt
// so far (environments, tools, the target task and tool, the calls seen), the sessions to delete
// at the end, and the bookkeeping that records each check's result once.
import { envPath, type JsonObject, type SseFrame, type ToolSpec } from "@/lib/ors/protocol";
import { analyzeCall, type CallAnalysis } from "../calls";
import { type CheckId, checkInfo } from "../catalogue";
import { failed, notExercised, type Verdict } from "../findings";
import type { MarkerId } from "../frameworks";
import type { VerdictTags } from "../ownership";
import { describeAnswer, Probe, type ProbeAnswer, ProbeError, type ProbeRequest, parseJson } from "../probe";
import { referenceCreateSession } from "../reference-client";
import { type CheckResult, type CheckTask, type CheckTool, isFinding } from "../types";
import { isObject } from "./util";

export interface ConformanceOptions {
  /** The server's ORS base URL, e.g. `http://127.0.0.1:8080`. */
  baseUrl: string;
  /** The fetch to use (default: the global one). An in-process handler works too. */
  fetch?: typeof fetch;
  /** Sent as `X-API-Key` on every request, as the reference client does. */
  apiKey?: string;
  /** The environment for the session checks (default: the first one with tasks). */
  env?: string;
  /** The task for the session checks (default: task 0 of the first split with tasks). */
  task?: CheckTask;
  /** The tool for the call checks, with its input (default: made up from its input schema). Default:
   *  the tool best suited, chosen from the tools' input schemas. */
  tool?: { name: string; input?: Record<string, unknown> };
  /** The server's idle limit in ms: a session left idle this long must be gone. Unchecked without it. */
  idleTimeoutMs?: number;
  /** Extra wait after the idle limit before looking (servers sweep periodically). Default 6 s. */
  idleGraceMs?: number;
  /** Time limit of one request. Default 30 s. */
  requestTimeoutMs?: number;
  /** Time limit of the whole check. Default 5 min. */
  maxTimeMs?: number;
  /** How long a slow tool found for the ping check is asked to run, in seconds (default 12: just
   *  over the spec's 10 s ping interval); 0 calls none. */
  slowToolSeconds?: number;
  /** Bytes read of one answer at most. Default 32 MiB. */
  maxBodyBytes?: number;
  /** Stops the check (the sessions it created are still deleted). */
  signal?: AbortSignal;
  /** Count every finding toward `summary.passed`, the framework's too (`--strict`). */
  strict?: boolean;
  /** Check ids whose findings are waived: reported, never counted (`--allow`, `--allow-file`). */
  allow?: readonly string[];
  /** Called with each result as it is decided (its owner is decided only in the report). */
  onResult?: (result: CheckResult) => void;
}

export const DEFAULT_REQUEST_TIMEOUT_MS = 30_000;
export const DEFAULT_MAX_TIME_MS = 300_000;
const CLEANUP_TIMEOUT_MS = 5_000;

export const TOOL_HINT = "Name a tool that runs longer with --tool NAME --input JSON.";

export const now = () => performance.now();
const stopAtTerminal = (f: SseFrame) => f.kind === "event" && (f.event === "end" || f.event === "error");

export interface ObservedCall {
  label: string;
  analysis: CallAnalysis;
}

export class CheckContext {
  readonly o: ConformanceOptions;
  readonly probe: Probe;
  readonly signal: AbortSignal;
  readonly overallMs: number;
  readonly started = now();
  readonly startedAt = new Date();
  readonly results = new Map<string, CheckResult>();
  /** What each verdict said about known framework deviations. */
  readonly tags = new Map<CheckId, VerdictTags>();
  /** Behaviours seen that mark a framework (./frameworks.ts). */
  readonly markers = new Set<MarkerId>();
  /** Sessions created with /create and not deleted yet: sid → environment. */
  readonly live = new Map<string, string>();
  /** Why the run stops early (the server is unreachable, or wants a key); null while it goes on. */
  stopReason: string | null = null;

  envs: string[] = [];
  readonly toolsByEnv = new Map<string, ToolSpec[]>();
  env: string | null = null;
  envProblem: string | null = null;
  splitNames: string[] = [];
  task: CheckTask | null = null;
  numTasks: number | null = null;
  tasks: unknown[] | null = null;
  taskSpec: JsonObject | null = null;
  sids: string[] = [];
  sessionTools: ToolSpec[] | null = null;
  main: CheckTool | null = null;
  /** The answer to /create_session asked as the reference client asks (create-session-sse). */
  sseSessionAnswer: ProbeAnswer | null = null;
  /** The main call of the session flow (call-framing), replayed by the reconnection checks. */
  mainAnalysis: CallAnalysis | null = null;
  readonly calls: ObservedCall[] = [];
  /** Work running beside the main sequence; settled before the sessions are cleaned up. */
  readonly background: Promise<unknown>[] = [];
  /** Why the run broke off, when something outside every check threw. */
  crashed: string | null = null;

  constructor(o: ConformanceOptions, signal: AbortSignal, overallMs: number) {
    this.o = o;
    this.signal = signal;
    this.overallMs = overallMs;
    this.probe = new Probe({
      baseUrl: o.baseUrl,
      fetch: o.fetch ?? ((input, init) => globalThis.fetch(input, init)),
      apiKey: o.apiKey,
      requestTimeoutMs: o.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS,
      signal,
      maxBodyBytes: o.maxBodyBytes ?? 32 * 1024 * 1024,
    });
  }

  // ---- bookkeeping ----

  record(id: CheckId, v: Verdict, durationMs: number): void {
    if (this.results.has(id)) return;
    const result: CheckResult = {
      ...checkInfo(id),
      outcome: v.outcome,
      observed: v.observed,
      durationMs,
      owner: null,
      deviations: [],
      waived: this.o.allow?.includes(id) ?? false,
      counted: false,
    };
    this.results.set(id, result);
    const deviations = v.deviations ?? [];
    this.tags.set(id, {
      deviations,
      unexplained: v.unexplained ?? (isFinding(v.outcome) && deviations.length === 0),
    });
    this.o.onResult?.(result);
  }

  /** Notes a behaviour that is some framework's own (it helps recognise the framework). */
  mark(marker: MarkerId): void {
    this.markers.add(marker);
  }

  failureVerdict(err: unknown): Verdict {
    if (err instanceof ProbeError) {
      if (err.kind === "aborted") return notExercised(`stopped: ${err.message}`);
      return failed(err.message);
    }
    if (this.signal.aborted)
      return notExercised(`stopped: ${(this.signal.reason as Error)?.message ?? "aborted"}`);
    return failed(`the check itself failed: ${(err as Error)?.message ?? String(err)}`);
  }

  /** Runs one check unless already decided or the run has stopped; never throws. */
  async check(id: CheckId, fn: () => Promise<Verdict> | Verdict): Promise<void> {
    if (this.results.has(id)) return;
    if (this.stopReason || this.signal.aborted) return;
    const t0 = now();
    let v: Verdict;
    try {
      v = await fn();
    } catch (err) {
      v = this.failureVerdict(err);
    }
    this.record(id, v, now() - t0);
  }

  /** Records the same verdict for several checks at once (they all depend on one missing thing). */
  skip(ids: readonly CheckId[], v: Verdict): void {
    for (const id of ids) this.record(id, v, 0);
  }

  /** A call of the main tool, or of `submit` with no input when none was found (for errors that come first). */
  get anyCall(): { name: string; input: unknown } {
    return { name: this.main?.name ?? "submit", input: this.main?.input ?? {} };
  }

  get singleEnv(): boolean {
    return this.envs.length === 1;
  }

  // ---- requests ----

  send(req: ProbeRequest): Promise<ProbeAnswer> {
    return this.probe.send({ accept: "application/json", ...req });
  }

  get(path: string, sid?: string): Promise<ProbeAnswer> {
    return this.send({ method: "GET", path, sid });
  }

  post(path: string, json?: unknown, sid?: string): Promise<ProbeAnswer> {
    return this.send({ method: "POST", path, json, sid });
  }

  call(env: string, sid: string, body: unknown, timeoutMs?: number): Promise<ProbeAnswer> {
    return this.probe.send({
      method: "POST",
      path: envPath(env, "call"),
      sid,
      json: body,
      accept: "text/event-stream",
      stopAt: stopAtTerminal,
      timeoutMs,
    });
  }

  /** POST /create_session as the reference client asks it (Accept: text/event-stream), read to `end`. */
  createSessionSse(): Promise<ProbeAnswer> {
    return this.probe.send({
      method: "POST",
      path: "/create_session",
      json: {},
      accept: "text/event-stream",
      stopAt: (f) => f.kind === "event" && f.event === "end",
    });
  }

  /** A session id as the reference client gets one (SSE), else the JSON way, else a random one. */
  async newSid(): Promise<string> {
    try {
      const a = await this.createSessionSse();
      const ref = referenceCreateSession(a);
      if (ref.ok && ref.sid) return this.keepSid(ref.sid);
      const j = await this.post("/create_session");
      const parsed = parseJson(j);
      if (parsed.ok && isObject(parsed.value) && typeof parsed.value.sid === "string" && parsed.value.sid)
        return this.keepSid(parsed.value.sid);
    } catch (err) {
      if (err instanceof ProbeError && err.kind === "aborted") throw err;
    }
    // /create_session only makes up an id (spec): any fresh id does for /create.
    return `conformance-${crypto.randomUUID()}`;
  }

  keepSid(sid: string): string {
    this.sids.push(sid);
    return sid;
  }

  /** POST /create; a 2xx answer makes the session one to delete at the end. */
  async create(
    sid: string,
    body: unknown,
    env: string | null,
    headers?: Readonly<Record<string, string>>,
  ): Promise<ProbeAnswer> {
    // Held before sending, and sent to its answer even if the check stops meanwhile: the cleanup
    // then deletes whatever the server made.
    this.live.set(sid, env ?? this.envs[0] ?? "");
    const a = await this.send({ method: "POST", path: "/create", json: body, sid, headers, detached: true });
    if (a.status < 200 || a.status >= 300) this.live.delete(sid);
    return a;
  }

  async remove(sid: string): Promise<ProbeAnswer> {
    const a = await this.post("/delete", undefined, sid);
    if (a.status < 500) this.live.delete(sid);
    return a;
  }

  /**
   * A session on `env` with its first task (split + index) and its prompt asked for, as the
   * reference client does before any call (some environments build their world there); null
   * when none could be made.
   */
  async sessionOn(env: string): Promise<{ sid: string; problem: null } | { sid: null; problem: string }> {
    const task = await this.firstTask(env);
    if (!task) return { sid: null, problem: `${env} has no split with tasks` };
    const sid = await this.newSid();
    const a = await this.create(sid, { env_name: env, split: task.split, index: task.index }, env);
    if (a.status !== 200) return { sid: null, problem: `POST /create on ${env}: ${describeAnswer(a, 80)}` };
    const p = await this.get(envPath(env, "prompt"), sid);
    if (p.status !== 200) {
      await this.remove(sid).catch(() => {});
      return { sid: null, problem: `GET /${env}/prompt: ${describeAnswer(p, 80)}` };
    }
    return { sid, problem: null };
  }

  /** Task 0 of the first split with tasks (quietly: no check is judged on these requests). */
  async firstTask(env: string): Promise<CheckTask | null> {
    if (env === this.env && this.task) return this.task;
    const s = await this.get(envPath(env, "splits"));
    const parsed = parseJson(s);
    const splits = parsed.ok && Array.isArray(parsed.value) ? parsed.value : [];
    for (const split of splits.slice(0, 5)) {
      const name = isObject(split) ? split.name : split;
      if (typeof name !== "string") continue;
      const n = parseJson(await this.post(envPath(env, "num_tasks"), { split: name }));
      if (n.ok && isObject(n.value) && typeof n.value.num_tasks === "number" && n.value.num_tasks > 0)
        return { split: name, index: 0 };
    }
    return null;
  }

  observe(label: string, a: ProbeAnswer): CallAnalysis {
    const analysis = analyzeCall(a);
    this.calls.push({ label, analysis });
    return analysis;
  }

  /** The environment chosen for the session checks, then the others. */
  envsTargetFirst(): string[] {
    return this.env ? [this.env, ...this.envs.filter((e) => e !== this.env)] : this.envs;
  }

  // ---- target ----

  noTarget(): Verdict | null {
    if (this.envProblem) return failed(this.envProblem);
    if (!this.env) return notExercised("no environment to check");
    return null;
  }

  noTask(): Verdict | null {
    const none = this.noTarget();
    if (none) return none;
    if (!this.task) return notExercised(`${this.env}: no split with tasks`);
    return null;
  }

  // ---- end ----

  /** Deletes every session still held, within a time limit of its own. */
  async cleanup(): Promise<void> {
    if (!this.live.size) return;
    const probe = new Probe({
      baseUrl: this.o.baseUrl,
      fetch: this.o.fetch ?? ((input, init) => globalThis.fetch(input, init)),
      apiKey: this.o.apiKey,
      requestTimeoutMs: CLEANUP_TIMEOUT_MS,
      signal: AbortSignal.timeout(CLEANUP_TIMEOUT_MS * 2),
      maxBodyBytes: 64 * 1024,
    });
    await Promise.all(
      [...this.live.keys()].map((sid) =>
        probe
          .send({ method: "POST", path: "/delete", sid })
          .then(() => this.live.delete(sid))
          .catch(() => {}),
      ),
    );
  }
}
