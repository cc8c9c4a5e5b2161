// The ORS conformance check (isomorphic, any `fetch`): walks every endpoint and behaviour of the
// spec against one server and reports each check of ./catalogue.ts as it is decided, deleting the
// sessions it creates and stopping at its time limits.
import {
  blocksSchema,
  describeZodError,
  envPath,
  type JsonObject,
  listEnvironmentsResponseSchema,
  listToolsOutputSchema,
  numTasksResponseSchema,
  SSE_CHUNK_SIZE,
  type SseFrame,
  sidResponseSchema,
  sleep,
  splitsSchema,
  statusResponseSchema,
  type ToolSpec,
  taskRangeResponseSchema,
  taskResponseSchema,
  tasksResponseSchema,
} from "@/lib/ors/protocol";
import {
  analyzeCall,
  type CallAnalysis,
  codePoints,
  describeEvents,
  describeResult,
  judgeChunking,
  judgeFraming,
  judgePings,
} from "./calls";
import { CHECKS, type CheckId, checkInfo } from "./catalogue";
import {
  breaks,
  differs,
  expectStatus,
  Findings,
  failed,
  notExercised,
  pass,
  type Verdict,
} from "./findings";
import {
  invalidInput,
  looksLarge,
  looksSlow,
  minimalInput,
  rankToolsForCall,
  slowInput,
  takesNoInput,
} from "./inputs";
import { formatMs } from "./labels";
import {
  describeAnswer,
  isRedirect,
  isSse,
  Probe,
  type ProbeAnswer,
  ProbeError,
  type ProbeRequest,
  parseJson,
  snippet,
} from "./probe";
import { referenceCreateSession, referenceJsonProblem, referenceJsonRead } from "./reference-client";
import {
  type CheckResult,
  type CheckTask,
  type CheckTool,
  type ConformanceReport,
  countOutcomes,
} from "./types";

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
  /** Called with each result as it is decided. */
  onResult?: (result: CheckResult) => void;
}

export const DEFAULT_REQUEST_TIMEOUT_MS = 30_000;
export const DEFAULT_MAX_TIME_MS = 300_000;
const DEFAULT_IDLE_GRACE_MS = 6_000;
const CLEANUP_TIMEOUT_MS = 5_000;
const MAX_ENVS_LISTED = 20;
const MAX_SPLITS = 10;
const MAX_RANGE_ALL = 1_000;
/** Tool calls at most when looking for a large result. */
const MAX_LARGE_TRIES = 8;
const TOOL_HINT = "Name a tool that runs longer with --tool NAME --input JSON.";
const LARGE_HINT = "Name a tool whose result is larger with --tool NAME --input JSON.";

const now = () => performance.now();
const stopAtTerminal = (f: SseFrame) => f.kind === "event" && (f.event === "end" || f.event === "error");

function hex(n = 8): string {
  return crypto.randomUUID().replace(/-/g, "").slice(0, n);
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** The answer's JSON value, or undefined when it is not JSON. */
function bodyOf(a: ProbeAnswer): unknown {
  const body = parseJson(a);
  return body.ok ? body.value : undefined;
}

function same(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

function list(names: readonly string[], max = 6): string {
  return names.length > max ? `${names.slice(0, max).join(", ")}, … (${names.length})` : names.join(", ");
}

/** Lenient view of a /tools answer: the tools it lists, whatever else is wrong with it. */
function toolsOf(value: unknown): ToolSpec[] {
  const tools = isObject(value) && Array.isArray(value.tools) ? value.tools : [];
  return tools
    .filter((t): t is Record<string, unknown> => isObject(t) && typeof t.name === "string")
    .map((t) => ({
      name: t.name as string,
      description: typeof t.description === "string" ? t.description : "",
      input_schema: isObject(t.input_schema) ? t.input_schema : null,
    }));
}

interface ObservedCall {
  label: string;
  analysis: CallAnalysis;
}

class CheckRun {
  private readonly o: ConformanceOptions;
  private readonly probe: Probe;
  private readonly signal: AbortSignal;
  private readonly overallMs: number;
  private readonly started = now();
  private readonly startedAt = new Date();
  private readonly results = new Map<string, CheckResult>();
  /** Sessions created with /create and not deleted yet: sid → environment. */
  private readonly live = new Map<string, string>();
  private stopReason: string | null = null;

  private envs: string[] = [];
  private readonly toolsByEnv = new Map<string, ToolSpec[]>();
  private env: string | null = null;
  private envProblem: string | null = null;
  private splitNames: string[] = [];
  private task: CheckTask | null = null;
  private numTasks: number | null = null;
  private tasks: unknown[] | null = null;
  private taskSpec: JsonObject | null = null;
  private sids: string[] = [];
  private sessionTools: ToolSpec[] | null = null;
  private main: CheckTool | null = null;
  private readonly calls: ObservedCall[] = [];
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

  private record(id: CheckId, v: Verdict, durationMs: number): void {
    if (this.results.has(id)) return;
    const result: CheckResult = { ...checkInfo(id), outcome: v.outcome, observed: v.observed, durationMs };
    this.results.set(id, result);
    this.o.onResult?.(result);
  }

  private failureVerdict(err: unknown): Verdict {
    if (err instanceof ProbeError) {
      if (err.kind === "aborted") return notExercised(`stopped: ${err.message}`);
      return failed(err.message);
    }
    if (this.signal.aborted)
      return notExercised(`stopped: ${(this.signal.reason as Error)?.message ?? "aborted"}`);
    return failed(`the check itself failed: ${(err as Error)?.message ?? String(err)}`);
  }

  /** Runs one check unless already decided or the run has stopped; never throws. */
  private async check(id: CheckId, fn: () => Promise<Verdict> | Verdict): Promise<void> {
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

  private send(req: ProbeRequest): Promise<ProbeAnswer> {
    return this.probe.send({ accept: "application/json", ...req });
  }

  private get(path: string, sid?: string): Promise<ProbeAnswer> {
    return this.send({ method: "GET", path, sid });
  }

  private post(path: string, json?: unknown, sid?: string): Promise<ProbeAnswer> {
    return this.send({ method: "POST", path, json, sid });
  }

  private call(env: string, sid: string, body: unknown, timeoutMs?: number): Promise<ProbeAnswer> {
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

  /** A session id as the reference client gets one (SSE), else the JSON way, else a random one. */
  private async newSid(): Promise<string> {
    try {
      const a = await this.probe.send({
        method: "POST",
        path: "/create_session",
        json: {},
        accept: "text/event-stream",
        stopAt: (f) => f.kind === "event" && f.event === "end",
      });
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

  private keepSid(sid: string): string {
    this.sids.push(sid);
    return sid;
  }

  /** POST /create; a 2xx answer makes the session one to delete at the end. */
  private async create(sid: string, body: unknown, env: string | null): Promise<ProbeAnswer> {
    // Held before sending, and sent to its answer even if the check stops meanwhile: the cleanup
    // then deletes whatever the server made.
    this.live.set(sid, env ?? this.envs[0] ?? "");
    const a = await this.send({ method: "POST", path: "/create", json: body, sid, detached: true });
    if (a.status < 200 || a.status >= 300) this.live.delete(sid);
    return a;
  }

  private async remove(sid: string): Promise<ProbeAnswer> {
    const a = await this.post("/delete", undefined, sid);
    if (a.status < 500) this.live.delete(sid);
    return a;
  }

  /**
   * A session on `env` with its first task (split + index) and its prompt asked for, as the
   * reference client does before any call (some environments build their world there); null
   * when none could be made.
   */
  private async sessionOn(
    env: string,
  ): Promise<{ sid: string; problem: null } | { sid: null; problem: string }> {
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
  private async firstTask(env: string): Promise<CheckTask | null> {
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

  private observe(label: string, a: ProbeAnswer): CallAnalysis {
    const analysis = analyzeCall(a);
    this.calls.push({ label, analysis });
    return analysis;
  }

  private get singleEnv(): boolean {
    return this.envs.length === 1;
  }

  // ---- the run ----

  async execute(): Promise<void> {
    await this.check("health", () => this.health());
    if (this.stopReason) return;
    await this.check("list-environments", () => this.listEnvironments());
    await this.check("base-url", () => this.baseUrl());
    await this.check("tools", () => this.tools());
    if (!this.stopReason) await this.pickTarget().catch(() => {});
    await this.check("splits", () => this.splits());
    await this.check("num-tasks", () => this.numTasksCheck());
    await this.check("tasks", () => this.tasksCheck());
    await this.check("task", () => this.taskCheck());
    await this.check("task-range", () => this.taskRange());
    await this.check("invalid-split", () => this.invalidSplit());
    await this.check("invalid-index", () => this.invalidIndex());
    await this.check("unknown-environment", () => this.unknownEnvironment());

    // Slow parts run beside the rest: a slow tool for the pings, a session left idle.
    const slow = this.slowCall().catch(() => {});
    const idle = this.check("idle-timeout", () => this.idleTimeout());
    this.background.push(slow, idle);

    await this.check("create-session-sse", () => this.createSessionSse());
    await this.check("create-session-json", () => this.createSessionJson());
    await this.sessionFlow();
    await this.check("create-default-env", () => this.createDefaultEnv());
    await this.check("create-task-source", () => this.createTaskSource());
    await this.check("missing-session-id", () => this.missingSessionId());
    await this.check("unknown-session", () => this.unknownSession());
    await this.check("delete-unknown-session", () => this.deleteUnknownSession());
    await this.check("unknown-path", () => this.unknownPath());
    await this.check("isolation-session-ids", () => this.sessionIds());
    await this.check("call-chunking", () => this.chunking());

    await slow;
    await this.check("call-pings", () =>
      judgePings(this.calls, `No tool that runs over 10 s was found. ${TOOL_HINT}`),
    );
    await idle;
  }

  // ---- discovery ----

  private async health(): Promise<Verdict> {
    let a: ProbeAnswer;
    try {
      a = await this.get("/health");
    } catch (err) {
      if (err instanceof ProbeError && err.kind !== "aborted")
        this.stopReason = `the server did not answer GET /health (${err.message})`;
      throw err;
    }
    if (a.status >= 500) return failed(describeAnswer(a));
    const body = parseJson(a);
    if (a.status === 200 && body.ok && isObject(body.value) && body.value.status === "ok") {
      const extra = Object.keys(body.value).filter((k) => k !== "status");
      return pass(
        `HTTP 200 {"status": "ok"${extra.length ? `, plus ${list(extra.map((k) => JSON.stringify(k)))}` : ""}} in ${formatMs(a.ms)}`,
      );
    }
    if (a.status === 401) return differs(`${describeAnswer(a)}: /health asks for an API key`);
    return differs(`${describeAnswer(a)} (the spec: 200 {"status": "ok"})`);
  }

  private async listEnvironments(): Promise<Verdict> {
    const a = await this.get("/list_environments");
    if (a.status === 401) {
      // Every other request would be refused the same way.
      this.stopReason = `the server wants an API key (HTTP 401 on /list_environments)`;
      return failed(
        `${describeAnswer(a)}: the server wants an API key (${this.o.apiKey ? "not the one given" : "give one with --api-key"})`,
      );
    }
    if (a.status >= 500) return failed(describeAnswer(a));
    const body = parseJson(a);
    const parsed = body.ok ? listEnvironmentsResponseSchema.safeParse(body.value) : null;
    if (parsed?.success) this.envs = parsed.data;
    if (this.o.env && !this.envs.includes(this.o.env) && this.envs.length)
      this.envProblem = `environment ${JSON.stringify(this.o.env)} is not on this server (it has ${list(this.envs)})`;
    if (a.status !== 200 || !parsed?.success)
      return differs(
        `${describeAnswer(a)}${parsed && !parsed.success ? `: ${describeZodError(parsed.error)}` : ""} (the spec: a JSON list of names)`,
      );
    if (!this.envs.length) return differs("HTTP 200 with an empty list: the server hosts no environment");
    return pass(`${this.envs.length} environment${this.envs.length === 1 ? "" : "s"}: ${list(this.envs)}`);
  }

  private async baseUrl(): Promise<Verdict> {
    let url: URL;
    try {
      url = new URL(this.probe.baseUrl);
    } catch {
      return failed(`${JSON.stringify(this.probe.baseUrl)} is not a URL`);
    }
    const path = url.pathname.replace(/\/+$/, "");
    if (!path) return pass("no path in the base URL: the reference client uses it as is");
    const root = `${url.origin}/list_environments`;
    const a = await this.probe.sendTo(root, {
      method: "GET",
      path: "/list_environments",
      accept: "application/json",
    });
    const body = parseJson(a);
    if (a.status === 200 && body.ok && Array.isArray(body.value) && same(body.value, this.envs))
      return pass(
        `the reference client drops ${JSON.stringify(path)} and asks ${url.origin}/…, which serves the same environments`,
      );
    return breaks(
      `the reference client drops the path ${JSON.stringify(path)} of its base URL and asks ${root}: ${
        a.status === 200 && body.ok
          ? `another server's environments (${snippet(a.text, 60)})`
          : describeAnswer(a, 60)
      }`,
    );
  }

  private async tools(): Promise<Verdict> {
    const given = this.o.env && !this.envProblem ? [this.o.env] : [];
    const envs = [...given, ...this.envs.filter((e) => e !== this.o.env)];
    if (!envs.length) return notExercised("no environment to ask (GET /list_environments gave none)");
    const f = new Findings();
    let count = 0;
    const asked = envs.slice(0, MAX_ENVS_LISTED);
    for (const env of asked) {
      const a = await this.get(envPath(env, "tools"));
      if (a.status >= 500) {
        f.error(`${env}: ${describeAnswer(a)}`);
        continue;
      }
      const body = parseJson(a);
      const tools = body.ok ? toolsOf(body.value) : [];
      this.toolsByEnv.set(env, tools);
      count += tools.length;
      const problem = referenceJsonProblem(a, "tools");
      if (problem) f.breaks(`${env}: ${problem} (${describeAnswer(a, 60)})`);
      else {
        const parsed = listToolsOutputSchema.safeParse(body.ok ? body.value : undefined);
        if (!parsed.success) f.differs(`${env}: not a valid tool list: ${describeZodError(parsed.error)}`);
        else if (!parsed.data.tools.length) f.differs(`${env}: no tools`);
      }
    }
    if (f.outcome === "pass")
      f.pass(
        `${asked.length} environment${asked.length === 1 ? "" : "s"}, ${count} tools, every ToolSpec valid${envs.length > asked.length ? ` (the first ${asked.length} of ${envs.length} asked)` : ""}`,
      );
    return f.verdict();
  }

  /** The environment and task the session checks use: given, or the first environment with tasks. */
  private async pickTarget(): Promise<void> {
    if (this.o.env) {
      this.env = this.o.env;
      this.task = this.o.task ?? (this.envProblem ? null : await this.firstTask(this.o.env));
      return;
    }
    for (const env of this.envs.slice(0, 8)) {
      const task = await this.firstTask(env);
      if (task) {
        this.env = env;
        this.task = this.o.task ?? task;
        return;
      }
    }
    this.env = this.envs[0] ?? null;
    this.task = this.o.task ?? null;
  }

  private noTarget(): Verdict | null {
    if (this.envProblem) return failed(this.envProblem);
    if (!this.env) return notExercised("no environment to check");
    return null;
  }

  private async splits(): Promise<Verdict> {
    const none = this.noTarget();
    if (none) return none;
    const env = this.env!;
    const a = await this.get(envPath(env, "splits"));
    if (a.status >= 500) return failed(describeAnswer(a));
    const body = parseJson(a);
    const problem = referenceJsonProblem(a, "splits");
    if (body.ok && Array.isArray(body.value))
      this.splitNames = body.value
        .map((s) => (isObject(s) ? s.name : s))
        .filter((s): s is string => typeof s === "string");
    if (problem) return breaks(`${env}: ${problem} (${describeAnswer(a, 60)})`);
    const parsed = splitsSchema.safeParse(body.ok ? body.value : undefined);
    if (!parsed.success) return differs(`${env}: not a valid split list: ${describeZodError(parsed.error)}`);
    if (!parsed.data.length) return differs(`${env}: no splits`);
    return pass(`${env}: ${list(parsed.data.map((s) => `${s.name} (${s.type})`))}`);
  }

  private async numTasksCheck(): Promise<Verdict> {
    const none = this.noTarget();
    if (none) return none;
    const env = this.env!;
    if (!this.splitNames.length) return notExercised(`${env}: no split names to ask about`);
    const f = new Findings();
    const counts: string[] = [];
    for (const split of this.splitNames.slice(0, MAX_SPLITS)) {
      const a = await this.post(envPath(env, "num_tasks"), { split });
      if (a.status >= 500) {
        f.error(`${split}: ${describeAnswer(a)}`);
        continue;
      }
      const problem = referenceJsonProblem(a, "num_tasks");
      if (problem) {
        f.breaks(`${split}: ${problem} (${describeAnswer(a, 60)})`);
        continue;
      }
      const body = parseJson(a);
      const parsed = numTasksResponseSchema.safeParse(body.ok ? body.value : undefined);
      if (!parsed.success) {
        f.differs(`${split}: ${describeZodError(parsed.error)}`);
        continue;
      }
      counts.push(`${split}: ${parsed.data.num_tasks}`);
      if (this.task?.split === split) this.numTasks = parsed.data.num_tasks;
    }
    if (this.task && this.numTasks === null && this.splitNames.includes(this.task.split) === false)
      f.error(`the task's split ${JSON.stringify(this.task.split)} is not among ${list(this.splitNames)}`);
    if (f.outcome === "pass") f.pass(`${env}: ${list(counts)}`);
    return f.verdict();
  }

  private noTask(): Verdict | null {
    const none = this.noTarget();
    if (none) return none;
    if (!this.task) return notExercised(`${this.env}: no split with tasks`);
    return null;
  }

  private async tasksCheck(): Promise<Verdict> {
    const none = this.noTask();
    if (none) return none;
    const { split } = this.task!;
    const env = this.env!;
    const a = await this.post(envPath(env, "tasks"), { split });
    if (a.status >= 500) return failed(describeAnswer(a));
    if (a.truncated) return notExercised(`${split}: the task list is larger than ${a.bytes} bytes`);
    if (a.status === 400)
      return notExercised(
        `${split}: ${describeAnswer(a, 120)} (an environment may serve tasks by index only)`,
      );
    const problem = referenceJsonProblem(a, "tasks");
    if (problem) return breaks(`${split}: ${problem} (${describeAnswer(a, 60)})`);
    const body = parseJson(a);
    const parsed = tasksResponseSchema.safeParse(body.ok ? body.value : undefined);
    if (!parsed.success) return differs(`${split}: ${describeZodError(parsed.error)}`);
    this.tasks = parsed.data.tasks;
    const f = new Findings();
    if (this.numTasks !== null && parsed.data.tasks.length !== this.numTasks)
      f.differs(`${split}: ${parsed.data.tasks.length} tasks, but num_tasks says ${this.numTasks}`);
    if (parsed.data.env_name !== env)
      f.differs(`env_name is ${JSON.stringify(parsed.data.env_name)}, not ${JSON.stringify(env)}`);
    if (f.outcome === "pass")
      f.pass(
        `${split}: ${parsed.data.tasks.length} tasks (${a.bytes} bytes), env_name ${JSON.stringify(env)}`,
      );
    return f.verdict();
  }

  private async fetchTask(split: string, index: number): Promise<{ answer: ProbeAnswer; task: unknown }> {
    const answer = await this.post(envPath(this.env!, "task"), { split, index });
    const body = parseJson(answer);
    return { answer, task: body.ok && isObject(body.value) ? body.value.task : undefined };
  }

  private async taskCheck(): Promise<Verdict> {
    const none = this.noTask();
    if (none) return none;
    const { split, index } = this.task!;
    const { answer: a, task } = await this.fetchTask(split, index);
    if (a.status >= 500) return failed(describeAnswer(a));
    const problem = referenceJsonProblem(a, "task");
    if (problem) return breaks(`${split}[${index}]: ${problem} (${describeAnswer(a, 60)})`);
    const parsed = taskResponseSchema.safeParse(bodyOf(a));
    if (!parsed.success) return differs(`${split}[${index}]: ${describeZodError(parsed.error)}`);
    this.taskSpec = parsed.data.task;
    if (this.tasks && index < this.tasks.length && !same(this.tasks[index], task))
      return differs(`${split}[${index}] differs from task ${index} of POST /tasks`);
    return pass(`${split}[${index}]: ${snippet(JSON.stringify(task), 80)}`);
  }

  private async taskRange(): Promise<Verdict> {
    const none = this.noTask();
    if (none) return none;
    const { split } = this.task!;
    const n = this.numTasks;
    if (n === null || n < 1) return notExercised(`${split}: the number of tasks is unknown`);
    const taskAt = async (i: number): Promise<unknown> =>
      this.tasks && i < this.tasks.length ? this.tasks[i] : (await this.fetchTask(split, i)).task;
    const f = new Findings();
    const cases: { body: Record<string, unknown>; label: string; expect: number[] }[] = [
      {
        body: { split, start: 0, stop: Math.min(2, n) },
        label: `start 0, stop ${Math.min(2, n)}`,
        expect: [0, 1].filter((i) => i < n),
      },
      { body: { split, start: -1 }, label: "start -1", expect: [n - 1] },
      {
        body: { split, start: n - 1, stop: n + 5 },
        label: `start ${n - 1}, stop ${n + 5} (past the end)`,
        expect: [n - 1],
      },
      {
        body: { split, start: Math.min(2, n), stop: 1 },
        label: `start ${Math.min(2, n)}, stop 1`,
        expect: [],
      },
    ];
    if (n <= MAX_RANGE_ALL) {
      const all = Array.from({ length: n }, (_, i) => i);
      cases.push({ body: { split }, label: "start and stop omitted", expect: all });
      cases.push({ body: { split, start: 0, stop: -1 }, label: "stop -1", expect: all.slice(0, -1) });
    }
    const done: string[] = [];
    for (const c of cases) {
      const a = await this.post(envPath(this.env!, "task_range"), c.body);
      if (a.status >= 500) {
        f.error(`${c.label}: ${describeAnswer(a)}`);
        continue;
      }
      const problem = referenceJsonProblem(a, "task_range");
      if (problem) {
        f.breaks(`${c.label}: ${problem} (${describeAnswer(a, 60)})`);
        continue;
      }
      const parsed = taskRangeResponseSchema.safeParse(bodyOf(a));
      if (!parsed.success) {
        f.differs(`${c.label}: ${describeZodError(parsed.error)}`);
        continue;
      }
      const got = parsed.data.tasks;
      if (got.length !== c.expect.length) {
        f.differs(`${c.label}: ${got.length} tasks, Python's slice gives ${c.expect.length}`);
        continue;
      }
      // Compare contents at the edges (the whole range for small ones).
      const probes = c.expect.length <= 4 ? c.expect.map((_, i) => i) : [0, c.expect.length - 1];
      let mismatch = false;
      for (const i of probes) {
        if (!same(got[i], await taskAt(c.expect[i]!))) {
          f.differs(`${c.label}: item ${i} is not task ${c.expect[i]}`);
          mismatch = true;
          break;
        }
      }
      if (!mismatch) done.push(c.label);
    }
    if (f.outcome === "pass") f.pass(`${split} (${n} tasks): ${done.join("; ")}`);
    return f.verdict();
  }

  private async invalidSplit(): Promise<Verdict> {
    const none = this.noTarget();
    if (none) return none;
    const bad = `no-such-split-${hex()}`;
    const f = new Findings();
    f.merge(expectStatus(await this.post(envPath(this.env!, "num_tasks"), { split: bad }), 400, "num_tasks"));
    f.merge(expectStatus(await this.post(envPath(this.env!, "task"), { split: bad, index: 0 }), 400, "task"));
    return f.verdict();
  }

  private async invalidIndex(): Promise<Verdict> {
    const none = this.noTask();
    if (none) return none;
    if (this.numTasks === null) return notExercised("the number of tasks is unknown");
    const a = await this.post(envPath(this.env!, "task"), { split: this.task!.split, index: this.numTasks });
    return expectStatus(a, 400, `task ${this.numTasks} of ${this.numTasks}`);
  }

  private async unknownEnvironment(): Promise<Verdict> {
    const a = await this.get(envPath(`no-such-env-${hex()}`, "tools"));
    if (isRedirect(a.status) && this.singleEnv)
      return pass(`${describeAnswer(a, 0)}: the spec lets a single-environment server redirect to it`);
    return expectStatus(a, 404, "GET /no-such-env-…/tools");
  }

  // ---- sessions ----

  private async createSessionSse(): Promise<Verdict> {
    const a = await this.probe.send({
      method: "POST",
      path: "/create_session",
      json: {},
      accept: "text/event-stream",
      stopAt: (f) => f.kind === "event" && f.event === "end",
    });
    if (a.status >= 500) return failed(describeAnswer(a));
    const ref = referenceCreateSession(a);
    if (!ref.ok) return breaks(`${describeAnswer(a, 80)}: ${ref.failure}`);
    this.keepSid(ref.sid);
    if (ref.discoverySid === null)
      return breaks(
        "the sid came only in the end event's JSON: the reference client's discovery calls (list_splits, list_tasks, …) read it from event: task_id",
      );
    const events = a.frames.filter((f) => f.kind === "event").map((f) => (f.kind === "event" ? f.event : ""));
    return pass(
      `HTTP 200 ${isSse(a) ? "text/event-stream" : a.contentType}: ${events.join(", ")}; sid ${JSON.stringify(snippet(ref.sid, 40))}`,
    );
  }

  private async createSessionJson(): Promise<Verdict> {
    const a = await this.post("/create_session");
    if (a.status >= 500) return failed(describeAnswer(a));
    if (isSse(a) || /^event:/m.test(a.text)) {
      const ref = referenceCreateSession(a);
      if (ref.ok) this.keepSid(ref.sid);
      return differs(
        `answers SSE (${describeAnswer(a, 60)}) to a request that did not accept text/event-stream; the spec answers {"sid": ...}`,
      );
    }
    const body = parseJson(a);
    const parsed = sidResponseSchema.safeParse(body.ok ? body.value : undefined);
    if (a.status !== 200 || !parsed.success)
      return differs(`${describeAnswer(a, 80)} (the spec: 200 {"sid": "..."})`);
    this.keepSid(parsed.data.sid);
    return pass(`HTTP 200 ${describeAnswer(a, 80).replace(/^HTTP 200 /, "")}`);
  }

  private async sessionIds(): Promise<Verdict> {
    const sids = this.sids.filter(Boolean);
    if (sids.length < 2) return notExercised(`only ${sids.length} session id(s) came from /create_session`);
    const unique = new Set(sids);
    if (unique.size !== sids.length)
      return differs(`${sids.length} ids from /create_session, only ${unique.size} different`);
    return pass(`${sids.length} ids from /create_session, all different`);
  }

  /** Creates, uses and deletes the main sessions: S1 (split + index) and S2 (task_spec). */
  private async sessionFlow(): Promise<void> {
    const env = this.env;
    const none = this.noTask();
    const skip = (ids: CheckId[], v: Verdict) => {
      for (const id of ids) this.record(id, v, 0);
    };
    const dependent: CheckId[] = [
      "create-split-index",
      "setup-wait",
      "prompt",
      "task-tools",
      "ping",
      "call-unknown-tool",
      "call-bad-input",
      "call-framing",
      "call-reconnect",
      "call-reconnect-unknown",
      "malformed-body",
      "invalid-body",
      "create-duplicate",
      "create-task-spec",
      "isolation-task-id",
      "delete",
      "isolation-delete",
      "deleted-session",
    ];
    if (this.stopReason || this.signal.aborted) return;
    if (none || !env) return skip(dependent, none ?? notExercised("no environment"));
    const task = this.task!;

    // S1: split + index, as the reference client creates sessions.
    const s1 = await this.newSid();
    const flags = { created: false, s2Ready: false, taskId: null as string | null };
    await this.check("create-split-index", async () => {
      const a = await this.create(s1, { env_name: env, split: task.split, index: task.index }, env);
      flags.created = a.status === 200;
      return this.judgeCreate(a, s1, `split ${JSON.stringify(task.split)}, index ${task.index}`);
    });
    if (!flags.created) {
      return skip(
        dependent.filter((id) => id !== "create-split-index"),
        notExercised("needs a session: POST /create failed (see create-split-index)"),
      );
    }

    await this.setupWait(s1, env);
    this.chooseMainTool();

    await this.check("call-unknown-tool", () => this.unknownTool(s1, env));
    await this.check("call-bad-input", () => this.badInput(s1, env));
    await this.check("call-framing", async () => {
      if (!this.main) return notExercised(`no tool whose input could be made up. ${TOOL_HINT}`);
      const a = await this.call(env, s1, { name: this.main.name, input: this.main.input });
      const analysis = this.observe(`${env}/${this.main.name}`, a);
      flags.taskId = analysis.taskId;
      this.mainAnalysis = analysis;
      return judgeFraming(analysis);
    });
    await this.check("call-reconnect", () => this.reconnect(s1, env, flags.taskId));
    await this.check("call-reconnect-unknown", () => this.reconnectUnknown(s1, env));
    await this.check("malformed-body", () => this.malformedBody(s1, env));
    await this.check("invalid-body", () => this.invalidBody(s1, env));
    await this.check("create-duplicate", async () => {
      const a = await this.post("/create", { env_name: env, split: task.split, index: task.index }, s1);
      return expectStatus(a, 400, "the same X-Session-ID again");
    });

    // S2: task_spec, used for isolation.
    const s2 = await this.newSid();
    await this.check("create-task-spec", async () => {
      if (!this.taskSpec) return notExercised("no task to pass (POST /task gave none)");
      const a = await this.create(s2, { env_name: env, task_spec: this.taskSpec, secrets: {} }, env);
      const v = this.judgeCreate(a, s2, "task_spec");
      if (a.status !== 200) return v;
      const p = await this.get(envPath(env, "prompt"), s2);
      flags.s2Ready = p.status === 200;
      if (!flags.s2Ready)
        return breaks(`created, but GET /${env}/prompt then answered ${describeAnswer(p, 80)}`);
      return v;
    });
    if (!flags.s2Ready && !this.live.has(s2)) {
      // Isolation still needs a second session: make it with split + index.
      const a = await this.create(s2, { env_name: env, split: task.split, index: task.index }, env);
      flags.s2Ready = a.status === 200;
    }

    await this.check("isolation-task-id", async () => {
      const taskId = flags.taskId;
      if (!taskId) return notExercised("the call gave no task_id");
      if (!flags.s2Ready) return notExercised("no second session");
      const main = this.main!;
      const a = await this.call(env, s2, { name: main.name, input: main.input, task_id: taskId });
      const got = analyzeCall(a);
      if (got.terminal === "end" && this.mainAnalysis?.json !== null && got.json === this.mainAnalysis?.json)
        return differs(
          `another session re-posting the first session's task_id got its result (${describeEvents(got)})`,
        );
      if (got.terminal === "end")
        return differs(
          `another session re-posting the first session's task_id got an end event: ${snippet(got.json ?? "", 80)}`,
        );
      if (got.terminal === "error")
        return pass(
          `the other session gets event: error ${JSON.stringify(snippet(got.errorData ?? "", 80))}`,
        );
      if (a.status >= 400 && a.status < 500) return pass(`the other session gets ${describeAnswer(a, 80)}`);
      return differs(`the other session gets ${describeAnswer(a, 80)}`);
    });

    await this.check("delete", async () => {
      const a = await this.remove(s1);
      const f = new Findings();
      const body = parseJson(a);
      if (a.status !== 200) f.differs(`POST /delete: ${describeAnswer(a, 80)}`);
      else if (!(body.ok && isObject(body.value) && body.value.sid === s1))
        f.differs(`POST /delete: ${describeAnswer(a, 80)} (the spec answers {"sid": "${snippet(s1, 12)}"})`);
      const d = await this.post("/delete_session", undefined, s1);
      if (d.status !== 200) f.differs(`POST /delete_session: ${describeAnswer(d, 80)}`);
      if (f.outcome === "pass")
        f.pass(`/delete: ${describeAnswer(a, 60)}; /delete_session: HTTP ${d.status}`);
      return f.verdict();
    });

    await this.check("isolation-delete", async () => {
      if (!flags.s2Ready) return notExercised("no second session");
      const ping = await this.post("/ping", undefined, s2);
      const prompt = await this.get(envPath(env, "prompt"), s2);
      if (ping.status === 200 && prompt.status === 200)
        return pass(
          "after deleting the first session, the second still answers /ping and /prompt (HTTP 200)",
        );
      return differs(
        `after deleting the first session, the second answers /ping ${describeAnswer(ping, 60)}, /prompt ${describeAnswer(prompt, 60)}`,
      );
    });

    await this.check("deleted-session", () => this.deletedSession(s1, env));
    if (this.live.has(s2)) await this.remove(s2).catch(() => {});
  }

  private mainAnalysis: CallAnalysis | null = null;

  private judgeCreate(a: ProbeAnswer, sid: string, how: string): Verdict {
    if (a.status >= 500) return failed(`${how}: ${describeAnswer(a)}`);
    if (a.status >= 400) return breaks(`${how}: ${describeAnswer(a)}: the reference client raises`);
    const read = referenceJsonRead(a);
    if (!read.ok) return breaks(`${how}: ${read.failure} (${describeAnswer(a, 60)})`);
    const parsed = sidResponseSchema.safeParse(read.value);
    if (a.status !== 200 || !parsed.success)
      return differs(`${how}: ${describeAnswer(a, 80)} (the spec: 200 {"sid": ...})`);
    if (parsed.data.sid !== sid)
      return differs(`${how}: answered sid ${JSON.stringify(parsed.data.sid)}, not the X-Session-ID sent`);
    return pass(`${how}: HTTP 200 {"sid": …} in ${formatMs(a.ms)}`);
  }

  /** prompt, task_tools and ping at once right after /create: each must wait for setup. */
  private async setupWait(sid: string, env: string): Promise<void> {
    const t0 = now();
    let answers: [ProbeAnswer, ProbeAnswer, ProbeAnswer];
    try {
      answers = await Promise.all([
        this.get(envPath(env, "prompt"), sid),
        this.get(envPath(env, "task_tools"), sid),
        this.post("/ping", undefined, sid),
      ]);
    } catch (err) {
      const v = this.failureVerdict(err);
      for (const id of ["setup-wait", "prompt", "task-tools", "ping"] as const)
        this.record(id, v, now() - t0);
      return;
    }
    const [prompt, taskTools, ping] = answers;
    const ms = now() - t0;
    await this.check("setup-wait", () => {
      const f = new Findings();
      for (const [name, a] of [
        ["prompt", prompt],
        ["task_tools", taskTools],
        ["ping", ping],
      ] as const) {
        if (a.status >= 500) f.error(`${name}: ${describeAnswer(a, 80)}`);
        else if (a.status !== 200)
          f.breaks(
            `${name} right after /create: ${describeAnswer(a, 80)}: the reference client, which asks at once, raises`,
          );
      }
      if (f.outcome === "pass")
        f.pass(
          `HTTP 200 right after /create: prompt ${formatMs(prompt.ms)}, task_tools ${formatMs(taskTools.ms)}, ping ${formatMs(ping.ms)} (waiting itself shows only with a slow setup)`,
        );
      return f.verdict();
    });
    this.record("prompt", this.judgePrompt(prompt), ms);
    this.record("task-tools", this.judgeTaskTools(taskTools, env), ms);
    this.record("ping", this.judgePing(ping), ms);
  }

  private judgePrompt(a: ProbeAnswer): Verdict {
    if (a.status >= 500) return failed(describeAnswer(a));
    const problem = referenceJsonProblem(a, "prompt");
    if (problem) return breaks(`${problem} (${describeAnswer(a, 60)})`);
    const parsed = blocksSchema.safeParse(bodyOf(a));
    if (!parsed.success) return differs(`not valid blocks: ${describeZodError(parsed.error)}`);
    const kinds = parsed.data.map((b) =>
      b.type === "text" ? `text (${b.text.length} characters)` : `image (${b.mimeType})`,
    );
    return pass(`${parsed.data.length} block${parsed.data.length === 1 ? "" : "s"}: ${list(kinds, 4)}`);
  }

  private judgeTaskTools(a: ProbeAnswer, env: string): Verdict {
    if (a.status >= 500) return failed(describeAnswer(a));
    if (a.status === 404)
      return differs(`${describeAnswer(a, 80)}: no task_tools (the reference client falls back to /tools)`);
    const problem = referenceJsonProblem(a, "tools");
    if (problem) return breaks(`${problem} (${describeAnswer(a, 60)})`);
    const value = bodyOf(a);
    this.sessionTools = toolsOf(value);
    const parsed = listToolsOutputSchema.safeParse(value);
    if (!parsed.success) return differs(`not a valid tool list: ${describeZodError(parsed.error)}`);
    const shared = this.toolsByEnv.get(env) ?? [];
    const names = new Set(parsed.data.tools.map((t) => t.name));
    const missing = shared.filter((t) => !names.has(t.name)).map((t) => t.name);
    if (missing.length) return differs(`the shared tool(s) ${list(missing)} of /tools are missing`);
    const extra = parsed.data.tools.length - shared.filter((t) => names.has(t.name)).length;
    return pass(
      `${parsed.data.tools.length} tools (${shared.length} shared${extra > 0 ? `, ${extra} for this task` : ""})`,
    );
  }

  private judgePing(a: ProbeAnswer): Verdict {
    if (a.status >= 500) return failed(describeAnswer(a));
    if (a.status >= 400)
      return breaks(
        `${describeAnswer(a, 80)}: the reference client pings every 10 s and ends the session when a ping fails`,
      );
    const body = parseJson(a);
    const parsed = statusResponseSchema.safeParse(body.ok ? body.value : undefined);
    if (a.status !== 200 || !parsed.success || parsed.data.status !== "ok")
      return differs(`${describeAnswer(a, 80)} (the spec: 200 {"status": "ok"})`);
    return pass(`HTTP 200 {"status": "ok"}`);
  }

  private chooseMainTool(): void {
    const tools = this.sessionTools?.length ? this.sessionTools : (this.toolsByEnv.get(this.env!) ?? []);
    const given = this.o.tool;
    if (given) {
      let input = given.input;
      if (input === undefined) {
        const spec = tools.find((t) => t.name === given.name);
        const made = spec ? minimalInput(spec.input_schema) : null;
        input = made?.ok ? made.value : {};
      }
      this.main = { name: given.name, input };
      return;
    }
    const best = rankToolsForCall(tools)[0];
    this.main = best ? { name: best.tool.name, input: best.input } : null;
  }

  private async unknownTool(sid: string, env: string): Promise<Verdict> {
    const name = `no_such_tool_${hex()}`;
    const a = await this.call(env, sid, { name, input: {} });
    return this.judgeToolError(a, "an unknown tool", true);
  }

  /** An answer to a call that the server must refuse as a tool logic error. */
  private judgeToolError(a: ProbeAnswer, what: string, httpErrorIsSpec: boolean): Verdict {
    if (a.status >= 500) return failed(`${what}: ${describeAnswer(a)}`);
    if (a.status === 400 || a.status === 404)
      return httpErrorIsSpec || a.status === 400
        ? pass(`${what}: ${describeAnswer(a, 80)} (the spec also lists this status for /call)`)
        : differs(`${what}: ${describeAnswer(a, 80)}`);
    if (a.status !== 200) return differs(`${what}: ${describeAnswer(a, 80)}`);
    const c = analyzeCall(a);
    if (c.terminal === "error")
      return httpErrorIsSpec
        ? pass(
            `${what}: event: error ${JSON.stringify(snippet(c.errorData ?? "", 80))} (ors-sse.txt lists this as an HTTP-level error)`,
          )
        : differs(
            `${what}: event: error ${JSON.stringify(snippet(c.errorData ?? "", 80))}; the spec makes it a tool logic error ({"ok": false} in end)`,
          );
    if (c.terminal !== "end")
      return breaks(`${what}: ${describeEvents(c)}: the reference client gets no result`);
    if (!c.reference.ok) return breaks(`${what}: the reference client fails: ${c.reference.failure}`);
    const v = c.value as { ok?: unknown; error?: unknown } | undefined;
    if (v?.ok === false && typeof v.error === "string")
      return pass(`${what}: end {"ok": false, "error": ${JSON.stringify(snippet(v.error, 80))}}`);
    if (v?.ok === true) return differs(`${what}: accepted (${describeResult(c.value)})`);
    return differs(`${what}: end ${snippet(c.json ?? "", 100)} is not {"ok": false, "error": "..."}`);
  }

  private async badInput(sid: string, env: string): Promise<Verdict> {
    const tools = this.sessionTools?.length ? this.sessionTools : (this.toolsByEnv.get(env) ?? []);
    const candidates = this.main ? [...tools.filter((t) => t.name === this.main!.name), ...tools] : tools;
    for (const tool of candidates) {
      const bad = invalidInput(tool.input_schema);
      if (!bad) continue;
      const a = await this.call(env, sid, { name: tool.name, input: bad.value });
      return this.judgeToolError(a, `${tool.name} ${bad.why}`, false);
    }
    return notExercised("no tool has an input schema that refuses some input (every tool takes any object)");
  }

  private async reconnect(sid: string, env: string, taskId: string | null): Promise<Verdict> {
    const first = this.mainAnalysis;
    if (!this.main || !first) return notExercised("no call was made");
    if (!taskId) return notExercised("the call's stream had no task_id event");
    if (first.terminal !== "end") return notExercised("the call did not end with a result");
    const a = await this.call(env, sid, { name: this.main.name, input: this.main.input, task_id: taskId });
    const again = analyzeCall(a);
    if (a.status >= 500) return failed(describeAnswer(a));
    if (a.status !== 200)
      return differs(`re-posting task_id ${JSON.stringify(snippet(taskId, 40))}: ${describeAnswer(a, 80)}`);
    if (again.terminal === "error")
      return differs(
        `re-posting the task_id of a call completed ${formatMs(a.headersMs)} ago: event: error ${JSON.stringify(snippet(again.errorData ?? "", 80))} (results linger 60 s)`,
      );
    if (again.terminal !== "end") return differs(`re-posting the task_id: ${describeEvents(again)}`);
    const f = new Findings();
    if (again.json !== first.json)
      f.differs(
        `a different result came back (${again.json?.length} characters instead of ${first.json?.length})`,
      );
    if (!again.reference.ok) f.breaks(`the reference client fails on the replay: ${again.reference.failure}`);
    if (again.taskId !== null && again.taskId !== taskId)
      f.differs(`the replay's task_id event says ${JSON.stringify(again.taskId)}`);
    if (f.outcome === "pass")
      f.pass(`the same ${first.json?.length}-character result replayed (${describeEvents(again)})`);
    return f.verdict();
  }

  private async reconnectUnknown(sid: string, env: string): Promise<Verdict> {
    if (!this.main) return notExercised("no tool to call");
    const taskId = `conformance-unknown-${hex(16)}`;
    const a = await this.call(env, sid, { name: this.main.name, input: this.main.input, task_id: taskId });
    if (a.status >= 500) return failed(describeAnswer(a));
    if (a.status !== 200) return differs(`${describeAnswer(a, 80)} (the spec: an error event)`);
    const c = analyzeCall(a);
    if (c.terminal === "error") return pass(`${describeEvents(c)}`);
    if (c.terminal === "end")
      return differs(
        `answered a result for an unknown task_id (${describeResult(c.value)}): the spec answers event: error`,
      );
    return differs(`${describeEvents(c)} (the spec: an error event)`);
  }

  private async malformedBody(sid: string, env: string): Promise<Verdict> {
    const f = new Findings();
    const bad = '{"name": ';
    f.merge(
      expectStatus(
        await this.send({
          method: "POST",
          path: envPath(env, "call"),
          sid,
          rawBody: bad,
          accept: "text/event-stream",
        }),
        400,
        `POST /${env}/call`,
      ),
    );
    f.merge(
      expectStatus(
        await this.send({ method: "POST", path: "/create", sid: `conformance-${hex(16)}`, rawBody: bad }),
        400,
        "POST /create",
      ),
    );
    f.merge(
      expectStatus(
        await this.send({ method: "POST", path: envPath(env, "tasks"), rawBody: bad }),
        400,
        `POST /${env}/tasks`,
      ),
    );
    return f.verdict();
  }

  private async invalidBody(sid: string, env: string): Promise<Verdict> {
    const f = new Findings();
    const name = this.main?.name ?? "submit";
    f.merge(
      expectStatus(
        await this.send({
          method: "POST",
          path: envPath(env, "call"),
          sid,
          json: { name },
          accept: "text/event-stream",
        }),
        400,
        `/${env}/call without "input"`,
      ),
    );
    f.merge(
      expectStatus(
        await this.post(envPath(env, "task"), { split: this.task?.split ?? "train" }),
        400,
        `/${env}/task without "index"`,
      ),
    );
    return f.verdict();
  }

  private async deletedSession(sid: string, env: string): Promise<Verdict> {
    const f = new Findings();
    const gone = (a: ProbeAnswer, what: string) => {
      if (a.status === 410) f.pass(`${what}: HTTP 410`);
      else if (a.status === 404)
        f.differs(`${what}: HTTP 404 (the spec answers 410 Gone for a deleted session)`);
      else f.merge(expectStatus(a, 410, what));
    };
    gone(await this.get(envPath(env, "prompt"), sid), "prompt");
    gone(await this.get(envPath(env, "task_tools"), sid), "task_tools");
    const call = await this.call(env, sid, {
      name: this.main?.name ?? "submit",
      input: this.main?.input ?? {},
    });
    if (call.status === 200) {
      const c = analyzeCall(call);
      f.differs(`call: HTTP 200 with ${describeEvents(c)} (the spec answers 410 Gone)`);
    } else gone(call, "call");
    return f.verdict();
  }

  private async createDefaultEnv(): Promise<Verdict> {
    const first = this.envs[0];
    if (!first) return notExercised("no environment list");
    const task = await this.firstTask(first);
    if (!task) return notExercised(`${first}, the first environment, has no split with tasks`);
    const sid = await this.newSid();
    const a = await this.create(sid, { split: task.split, index: task.index }, first);
    try {
      const v = this.judgeCreate(
        a,
        sid,
        `no env_name, split ${JSON.stringify(task.split)}, index ${task.index}`,
      );
      if (v.outcome !== "pass") return v;
      const p = await this.get(envPath(first, "prompt"), sid);
      if (p.status >= 500) return failed(`GET /${first}/prompt then: ${describeAnswer(p)}`);
      if (p.status !== 200)
        return breaks(
          `created, but GET /${first}/prompt then answered ${describeAnswer(p, 80)}: the reference client raises`,
        );
      return pass(`${v.observed}; GET /${first}/prompt: HTTP 200`);
    } finally {
      if (this.live.has(sid)) await this.remove(sid).catch(() => {});
    }
  }

  private async createTaskSource(): Promise<Verdict> {
    const none = this.noTask();
    if (none) return none;
    const env = this.env!;
    const f = new Findings();
    const attempt = async (body: Record<string, unknown>, what: string) => {
      const sid = `conformance-${hex(16)}`;
      const a = await this.create(sid, body, env);
      if (this.live.has(sid)) await this.remove(sid).catch(() => {});
      f.merge(expectStatus(a, 400, what));
    };
    await attempt(
      { env_name: env, task_spec: this.taskSpec ?? {}, split: this.task!.split, index: this.task!.index },
      "task_spec and split + index",
    );
    await attempt({ env_name: env }, "neither");
    return f.verdict();
  }

  private async missingSessionId(): Promise<Verdict> {
    const f = new Findings();
    const env = this.env ?? this.envs[0];
    if (env) f.merge(expectStatus(await this.get(envPath(env, "prompt")), 400, `GET /${env}/prompt`));
    f.merge(expectStatus(await this.post("/ping"), 400, "POST /ping"));
    if (env && this.task)
      f.merge(
        expectStatus(
          await this.post("/create", { env_name: env, split: this.task.split, index: this.task.index }),
          400,
          "POST /create",
        ),
      );
    return f.verdict();
  }

  private async unknownSession(): Promise<Verdict> {
    const sid = `conformance-never-created-${hex(16)}`;
    const f = new Findings();
    const env = this.env ?? this.envs[0];
    if (env) f.merge(expectStatus(await this.get(envPath(env, "prompt"), sid), 404, "prompt"));
    f.merge(expectStatus(await this.post("/ping", undefined, sid), 404, "ping"));
    if (env) {
      const a = await this.call(env, sid, {
        name: this.main?.name ?? "submit",
        input: this.main?.input ?? {},
      });
      const c = a.status === 200 ? analyzeCall(a) : null;
      if (c?.terminal === "error")
        f.pass(
          `call: event: error ${JSON.stringify(snippet(c.errorData ?? "", 60))} (ors-sse.txt lists this)`,
        );
      else f.merge(expectStatus(a, 404, "call"));
    }
    return f.verdict();
  }

  private async deleteUnknownSession(): Promise<Verdict> {
    const a = await this.post("/delete", undefined, `conformance-never-created-${hex(16)}`);
    if (a.status === 200)
      return differs(`${describeAnswer(a, 80)}: deleting a session never created succeeds (the spec: 404)`);
    return expectStatus(a, 404, "POST /delete");
  }

  private async unknownPath(): Promise<Verdict> {
    const path = `/conformance-no-such-endpoint-${hex()}`;
    const a = await this.get(path);
    if (isRedirect(a.status)) {
      if (this.singleEnv)
        return pass(
          `GET ${path}: ${describeAnswer(a, 0)}: the spec lets a single-environment server redirect to it`,
        );
      return differs(
        `GET ${path}: ${describeAnswer(a, 0)}: unknown paths are redirected on a server with ${this.envs.length} environments (the spec: 404)`,
      );
    }
    return expectStatus(a, 404, `GET ${path}`);
  }

  // ---- calls: large results, slow tools ----

  /**
   * Looks for a result over 4096 characters: among the calls made so far, else by calling tools
   * that look large or take no input (in throwaway sessions, one per environment, after /prompt).
   */
  private async chunking(): Promise<Verdict> {
    const isBig = (c: ObservedCall) =>
      c.analysis.json !== null && codePoints(c.analysis.json) > SSE_CHUNK_SIZE;
    const big = this.calls.find(isBig);
    if (big) return judgeChunking(big.analysis, big.label);
    const tried = this.calls
      .filter((c) => c.analysis.json !== null)
      .map((c) => `${c.label} (${c.analysis.json!.length} characters)`);
    const called = new Set(this.calls.map((c) => c.label.split(" ")[0]));
    const envs = this.env ? [this.env, ...this.envs.filter((e) => e !== this.env)] : this.envs;
    const candidates: { env: string; tool: ToolSpec; input: Record<string, unknown>; rank: number }[] = [];
    for (const env of envs)
      for (const tool of this.toolsByEnv.get(env) ?? []) {
        if (looksSlow(tool) || called.has(`${env}/${tool.name}`)) continue;
        const large = looksLarge(tool);
        if (!large && !takesNoInput(tool)) continue;
        const input = minimalInput(tool.input_schema);
        if (input.ok) candidates.push({ env, tool, input: input.value, rank: large ? 0 : 1 });
      }
    candidates.sort((a, b) => a.rank - b.rank);
    const sessions = new Map<string, string | null>();
    try {
      for (const { env, tool, input } of candidates.slice(0, MAX_LARGE_TRIES)) {
        if (!sessions.has(env)) {
          const s = await this.sessionOn(env);
          sessions.set(env, s.sid);
          if (!s.sid) tried.push(`${env} (${s.problem})`);
        }
        const sid = sessions.get(env);
        if (!sid) continue;
        const a = await this.call(env, sid, { name: tool.name, input });
        const label = `${env}/${tool.name} ${JSON.stringify(input)}`;
        const analysis = this.observe(label, a);
        if (isBig({ label, analysis })) return judgeChunking(analysis, label);
        tried.push(
          `${env}/${tool.name} (${analysis.json !== null ? `${analysis.json.length} characters` : describeEvents(analysis)})`,
        );
      }
    } finally {
      for (const sid of sessions.values()) if (sid) await this.remove(sid).catch(() => {});
    }
    return notExercised(
      `no result over ${SSE_CHUNK_SIZE} characters${tried.length ? `: tried ${list(tried, 5)}` : ""}. ${LARGE_HINT}`,
    );
  }

  /** Calls a tool that looks slow (with a duration input) so its stream shows keep-alive pings. */
  private async slowCall(): Promise<void> {
    const seconds = this.o.slowToolSeconds ?? 12;
    if (seconds <= 0 || this.stopReason) return;
    const envs = this.env ? [this.env, ...this.envs.filter((e) => e !== this.env)] : this.envs;
    for (const env of envs) {
      for (const tool of this.toolsByEnv.get(env) ?? []) {
        if (!looksSlow(tool)) continue;
        const input = slowInput(tool, seconds);
        if (!input) continue;
        const session = await this.sessionOn(env);
        if (!session.sid) return;
        try {
          const limit = (this.o.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS) + seconds * 1000;
          const a = await this.call(env, session.sid, { name: tool.name, input }, limit);
          this.observe(`${env}/${tool.name} ${JSON.stringify(input)}`, a);
        } finally {
          await this.remove(session.sid).catch(() => {});
        }
        return;
      }
    }
  }

  // ---- limits ----

  private async idleTimeout(): Promise<Verdict> {
    const idle = this.o.idleTimeoutMs;
    if (!idle)
      return notExercised(
        "give the server's idle limit with --idle-timeout <ms> to check it (the spec's default is 15 minutes)",
      );
    const grace = this.o.idleGraceMs ?? DEFAULT_IDLE_GRACE_MS;
    const left = this.overallMs - (now() - this.started);
    if (idle + grace + 5_000 > left)
      return failed(
        `waiting ${formatMs(idle + grace)} does not fit in the ${formatMs(left)} left of the overall time limit`,
      );
    const env = this.env;
    if (!env) return notExercised("no environment");
    const session = await this.sessionOn(env);
    if (!session.sid) return notExercised(`needs a session: ${session.problem}`);
    const t0 = now();
    await sleep(idle + grace, this.signal);
    const a = await this.post("/ping", undefined, session.sid);
    const waited = formatMs(now() - t0);
    if (a.status === 404) {
      this.live.delete(session.sid);
      return pass(`after ${waited} idle, /ping: ${describeAnswer(a, 80)}`);
    }
    if (a.status === 410) {
      this.live.delete(session.sid);
      return differs(`after ${waited} idle, /ping: HTTP 410 (the spec: an expired session is 404)`);
    }
    return differs(
      `after ${waited} idle (limit ${formatMs(idle)}), the session is still there: /ping ${describeAnswer(a, 60)}`,
    );
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

  finish(): ConformanceReport {
    // Out of time is a failure of the check (exit code 1); stopped by the caller is not.
    const reason = (this.signal.reason as Error | undefined)?.message ?? "stopped";
    const unreached = this.stopReason
      ? notExercised(`not reached: ${this.stopReason}`)
      : this.crashed && !this.signal.aborted
        ? failed(`not reached: the check broke off (${this.crashed})`)
        : this.signal.aborted
          ? (this.signal.reason as Error | undefined)?.name === "TimeoutError"
            ? failed(`not reached: ${reason}`)
            : notExercised(`not reached: ${reason}`)
          : notExercised("not reached");
    for (const c of CHECKS) if (!this.results.has(c.id)) this.record(c.id, unreached, 0);
    const results = CHECKS.map((c) => this.results.get(c.id)!);
    const counts = countOutcomes(results);
    const ok = counts["breaks-reference-client"] === 0 && counts.error === 0;
    const finished = new Date();
    return {
      format: "ors-conformance/1",
      baseUrl: this.probe.baseUrl,
      startedAt: this.startedAt.toISOString(),
      finishedAt: finished.toISOString(),
      durationMs: Math.round(now() - this.started),
      target: { environment: this.env, task: this.task, tool: this.main },
      summary: { total: results.length, counts, ok, clean: ok && counts["differs-from-spec"] === 0 },
      results,
    };
  }
}

/**
 * Runs the conformance check against one ORS server and returns the report; `onResult` sees each
 * result as it is decided. Never throws for anything the server does; deletes the sessions it
 * created, even when stopped or out of time.
 *
 * @example
 * const report = await runConformanceCheck({ baseUrl: "http://127.0.0.1:8080" });
 * if (!report.summary.ok) process.exitCode = 1;
 */
export async function runConformanceCheck(options: ConformanceOptions): Promise<ConformanceReport> {
  const maxTimeMs = options.maxTimeMs ?? DEFAULT_MAX_TIME_MS;
  const overall = new AbortController();
  const timer = setTimeout(
    () =>
      overall.abort(
        new DOMException(`the overall time limit of ${formatMs(maxTimeMs)} ran out`, "TimeoutError"),
      ),
    maxTimeMs,
  );
  const signal = options.signal ? AbortSignal.any([options.signal, overall.signal]) : overall.signal;
  const run = new CheckRun(options, signal, maxTimeMs);
  try {
    await run.execute();
  } catch (err) {
    // Checks never throw; this is a stop (or a bug) between them: the rest is reported unreached.
    run.crashed = (err as Error)?.message ?? String(err);
  } finally {
    await Promise.allSettled(run.background);
    clearTimeout(timer);
    await run.cleanup();
  }
  return run.finish();
}
