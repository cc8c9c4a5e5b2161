// The ORS host as a fetch handler (spec: ors-http-api.txt, every endpoint; ors-sse.txt for /call;
// ors-sessions-episodes.txt for the session lifecycle). No framework imports: the Next.js route and
// the node:http adapter both forward to it, and tests call it with plain `Request`s.
import { readWithin } from "../protocol/body";
import { OrsError } from "../protocol/errors";
import { ENDPOINT_METHODS, type EnvEndpoint, parseOrsPath, type RootEndpoint } from "../protocol/paths";
import {
  createRequestSchema,
  describeZodError,
  getTaskRangeRequestSchema,
  getTaskRequestSchema,
  type JsonObject,
  listTasksRequestSchema,
  numTasksRequestSchema,
  toolCallSchema,
} from "../protocol/schemas";
import { formatSseEvent } from "../protocol/sse";
import type { AnyEnvironment, AnyTool } from "../sdk/define";
import { frameResult } from "./frames";
import { type OrsHostOptions, resolveHostOptions } from "./options";
import {
  errorMessage,
  normalizeBlocks,
  OutputError,
  serializeToolError,
  serializeToolResult,
} from "./output";
import { CallStream, jsonReply, type OrsReply, replyToResponse } from "./reply";
import {
  type CloseReason,
  FAILED,
  HookContext,
  type HostedEnvironment,
  READY,
  RunContext,
  SETTING_UP,
  Session,
  UNBOUND,
} from "./session";
import { RunRegistry, type ToolRun } from "./tool-runs";

/** The request as the host needs it; built from a fetch `Request` or by the node:http adapter. */
export interface IncomingOrsRequest {
  readonly method: string;
  /** The URL path, without query string. */
  readonly path: string;
  /** A header by lower-case name, or null. */
  header(name: string): string | null;
  /** The body as text; throws OrsError 413 beyond `limit` bytes. */
  readBody(limit: number): Promise<string>;
}

/** Counters for monitoring and benchmarks. */
export interface OrsHostStats {
  sessions: number;
  settingUp: number;
  tombstones: number;
  runsRunning: number;
  resultsKept: number;
  resultBytesKept: number;
}

export interface OrsHost {
  readonly options: OrsHostOptions;
  /** Sessions held now (setting up, ready or failed). */
  readonly sessionCount: number;
  stats(): OrsHostStats;
  /** Answers one request, adapter-neutral (the node:http adapter uses this directly). */
  dispatch(req: IncomingOrsRequest): Promise<OrsReply>;
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

const SID_MAX = 256;
const MAX_TOMBSTONES = 100_000;
const TOMBSTONE_TTL_MS = 60 * 60_000;
const ROOT_LIST =
  "/health, /list_environments, /create_session, /create, /ping, /delete, /delete_session, /{env}/tools, /{env}/splits, /{env}/tasks, /{env}/num_tasks, /{env}/task, /{env}/task_range, /{env}/prompt, /{env}/task_tools, /{env}/call";

const OK_STATUS = '{"status":"ok"}';

function json(status: number, value: unknown): OrsReply {
  return jsonReply(status, JSON.stringify(value));
}

function sidReply(sid: string): OrsReply {
  return jsonReply(200, JSON.stringify({ sid }));
}

function quote(s: string): string {
  return JSON.stringify(s.length > 80 ? `${s.slice(0, 80)}…` : s);
}

function seconds(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`;
}

/** Parses a JSON body that must be an object; a 400 naming the problem otherwise. */
function parseJsonObject(text: string): unknown {
  if (text.trim() === "") throw new OrsError(400, "body: expected a JSON object, got an empty body");
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    throw new OrsError(400, `body: malformed JSON (${errorMessage(e)})`);
  }
  if (typeof value !== "object" || value === null || Array.isArray(value))
    throw new OrsError(400, "body: expected a JSON object");
  return value;
}

interface Parser<T> {
  safeParse(v: unknown): { success: true; data: T } | { success: false; error: import("zod").ZodError };
}

function validate<T>(schema: Parser<T>, value: unknown): T {
  const r = schema.safeParse(value);
  if (!r.success) throw new OrsError(400, describeZodError(r.error));
  return r.data;
}

/** `X-Secrets`: base64 of JSON `{"NAME": {"value": "..."}}` (the reference client's form) or `{"NAME": "..."}`. */
function parseSecretsHeader(raw: string): Record<string, string> {
  let decoded: unknown;
  try {
    decoded = JSON.parse(Buffer.from(raw.trim(), "base64").toString("utf8"));
  } catch {
    throw new OrsError(400, "X-Secrets header: expected base64 of a JSON object");
  }
  if (typeof decoded !== "object" || decoded === null || Array.isArray(decoded))
    throw new OrsError(400, "X-Secrets header: expected base64 of a JSON object");
  const out: Record<string, string> = {};
  for (const [name, v] of Object.entries(decoded)) {
    if (typeof v === "string") out[name] = v;
    else if (typeof v === "object" && v !== null && typeof (v as { value?: unknown }).value === "string")
      out[name] = (v as { value: string }).value;
    else throw new OrsError(400, `X-Secrets header: ${name}: expected {"value": "<string>"}`);
  }
  return out;
}

function hostEnvironment(env: AnyEnvironment): HostedEnvironment {
  const toolSpecs = [...env.tools].map(([name, tool]) => ({
    name,
    description: tool.description,
    input_schema: tool.inputSchema,
  }));
  return {
    env,
    name: env.name,
    toolsJson: JSON.stringify({ tools: toolSpecs }),
    splitsJson: JSON.stringify(env.splits),
    toolSpecs,
  };
}

interface EnvironmentIndex {
  envs: Map<string, HostedEnvironment>;
  envsLower: Map<string, HostedEnvironment>;
  defaultEnv: HostedEnvironment;
}

/** Checks and indexes environments; `reuse` keeps the hosted form (and sessions) of known objects. */
function indexEnvironments(
  environments: AnyEnvironment[],
  reuse: ReadonlyMap<AnyEnvironment, HostedEnvironment>,
): EnvironmentIndex {
  if (!Array.isArray(environments) || environments.length === 0)
    throw new Error("createOrsHandler: give at least one environment");
  const envs = new Map<string, HostedEnvironment>();
  const envsLower = new Map<string, HostedEnvironment>();
  for (const env of environments) {
    if (env?.kind !== "ors-environment")
      throw new Error("createOrsHandler: every environment must be made with defineEnvironment");
    if (envs.has(env.name) || envsLower.has(env.name.toLowerCase()))
      throw new Error(`createOrsHandler: two environments named ${JSON.stringify(env.name)}`);
    const hosted = reuse.get(env) ?? hostEnvironment(env);
    envs.set(env.name, hosted);
    envsLower.set(env.name.toLowerCase(), hosted);
  }
  return { envs, envsLower, defaultEnv: envs.get(environments[0]!.name)! };
}

class Host implements OrsHost {
  readonly options: OrsHostOptions;
  // Replaced as a whole by replaceEnvironments (a reload); never mutated in place.
  private envs: Map<string, HostedEnvironment>;
  private envsLower: Map<string, HostedEnvironment>;
  private defaultEnv: HostedEnvironment;
  private envListJson: string;
  private readonly sessions = new Map<string, Session>();
  private readonly tombstones = new Map<string, { reason: CloseReason; at: number }>();
  private readonly runs: RunRegistry;
  private readonly sweepTimer: ReturnType<typeof setInterval>;
  private readonly apiKeys: Set<string> | null;
  private closing = false;

  constructor(environments: AnyEnvironment[], options: Partial<OrsHostOptions>) {
    const index = indexEnvironments(environments, new Map());
    this.envs = index.envs;
    this.envsLower = index.envsLower;
    this.defaultEnv = index.defaultEnv;
    this.envListJson = JSON.stringify([...this.envs.keys()]);
    this.options = resolveHostOptions(options);
    this.apiKeys = this.options.apiKeys.length ? new Set(this.options.apiKeys) : null;
    this.runs = new RunRegistry(this.options.resultLingerMs, this.options.resultCacheBytes);
    this.sweepTimer = setInterval(() => this.sweep(), this.options.sweepIntervalMs);
    this.sweepTimer.unref?.();
  }

  get sessionCount(): number {
    return this.sessions.size;
  }

  stats(): OrsHostStats {
    let settingUp = 0;
    for (const s of this.sessions.values()) if (s.status === SETTING_UP) settingUp++;
    const r = this.runs.stats;
    return {
      sessions: this.sessions.size,
      settingUp,
      tombstones: this.tombstones.size,
      runsRunning: r.running,
      resultsKept: r.kept,
      resultBytesKept: r.keptBytes,
    };
  }

  async dispatch(req: IncomingOrsRequest): Promise<OrsReply> {
    try {
      return await this.route(req);
    } catch (e) {
      if (e instanceof OrsError) return jsonReply(e.status, JSON.stringify({ detail: e.detail }));
      this.options.log(`internal error on ${req.method} ${req.path.slice(0, 200)}`, e);
      return jsonReply(500, '{"detail":"Internal server error"}');
    }
  }

  private route(req: IncomingOrsRequest): Promise<OrsReply> | OrsReply {
    let path = req.path;
    const base = this.options.basePath;
    if (base && path.startsWith(base) && (path.length === base.length || path[base.length] === "/"))
      path = path.slice(base.length);
    const route = parseOrsPath(path);
    if (route.kind === "unknown")
      throw new OrsError(404, `Not found: ${quote(path || "/")} is not an ORS endpoint (${ROOT_LIST})`);
    const expected = ENDPOINT_METHODS[route.endpoint];
    if (req.method !== expected && !(req.method === "HEAD" && expected === "GET")) {
      return jsonReply(
        405,
        JSON.stringify({ detail: `Method ${req.method} not allowed on /${route.endpoint}: use ${expected}` }),
        { allow: expected },
      );
    }
    if (route.kind === "root" && route.endpoint === "health") return jsonReply(200, OK_STATUS);
    if (this.apiKeys) {
      const key = req.header("x-api-key");
      if (!key) throw new OrsError(401, "Missing X-API-Key header: this server requires an API key");
      if (!this.apiKeys.has(key.trim())) throw new OrsError(401, "Invalid API key (X-API-Key)");
    }
    const sidHeader = req.header("x-session-id");
    let sid: string | null = null;
    if (sidHeader !== null) {
      sid = sidHeader.trim();
      if (sid.length > SID_MAX)
        throw new OrsError(400, `X-Session-ID header: longer than ${SID_MAX} characters`);
      const s = this.sessions.get(sid);
      if (s) s.lastSeen = performance.now();
    }
    if (route.kind === "root") return this.root(route.endpoint, req, sid);
    const hosted = this.envs.get(route.env) ?? this.envsLower.get(route.env.toLowerCase());
    if (!hosted)
      throw new OrsError(
        404,
        `Unknown environment ${quote(route.env)}; this server hosts: ${[...this.envs.keys()].join(", ")}`,
      );
    return this.envEndpoint(route.endpoint, hosted, req, sid);
  }

  private root(
    endpoint: RootEndpoint,
    req: IncomingOrsRequest,
    sid: string | null,
  ): Promise<OrsReply> | OrsReply {
    switch (endpoint) {
      case "list_environments":
        return jsonReply(200, this.envListJson);
      case "create_session": {
        const newSid = crypto.randomUUID();
        if ((req.header("accept") ?? "").includes("text/event-stream"))
          return { kind: "sse", body: `event: task_id\ndata: ${newSid}\n\nevent: end\ndata: \n\n` };
        return sidReply(newSid);
      }
      case "create":
        return this.create(req, requireSid(sid));
      case "ping": {
        const s = this.requireSession(requireSid(sid));
        if (s.status === FAILED) throw setupFailed(s);
        return jsonReply(200, OK_STATUS);
      }
      case "delete":
        return this.delete(requireSid(sid));
      case "delete_session":
        return this.deleteSession(requireSid(sid));
      default:
        throw new OrsError(404, `Not found: /${endpoint}`);
    }
  }

  private async envEndpoint(
    endpoint: EnvEndpoint,
    hosted: HostedEnvironment,
    req: IncomingOrsRequest,
    sid: string | null,
  ): Promise<OrsReply> {
    const env = hosted.env;
    switch (endpoint) {
      case "tools":
        return jsonReply(200, hosted.toolsJson);
      case "splits":
        return jsonReply(200, hosted.splitsJson);
      case "tasks": {
        const { split } = validate(listTasksRequestSchema, await this.body(req));
        this.requireSplit(env, split);
        const tasks = await env.listTasks(split);
        return json(200, { tasks, env_name: hosted.name });
      }
      case "num_tasks": {
        const { split } = validate(numTasksRequestSchema, await this.body(req));
        this.requireSplit(env, split);
        return json(200, { num_tasks: await env.numTasks(split) });
      }
      case "task": {
        const { split, index } = validate(getTaskRequestSchema, await this.body(req));
        this.requireSplit(env, split);
        return json(200, { task: await this.taskAt(env, split, index) });
      }
      case "task_range": {
        const { split, start, stop } = validate(getTaskRangeRequestSchema, await this.body(req));
        this.requireSplit(env, split);
        const n = await env.numTasks(split);
        const from = sliceIndex(start ?? 0, n);
        const to = sliceIndex(stop ?? n, n);
        return json(200, { tasks: from < to ? await env.getTaskRange(split, from, to) : [] });
      }
      case "prompt": {
        const s = await this.readySession(requireSid(sid), hosted);
        let blocks: unknown;
        try {
          blocks = await s.hosted.env.definition.getPrompt(s.ctx);
        } catch (e) {
          this.options.log(`getPrompt of ${s.hosted.name} failed`, e);
          throw new OrsError(500, `Environment ${s.hosted.name}: getPrompt failed: ${errorMessage(e)}`);
        }
        try {
          return jsonReply(200, JSON.stringify(normalizeBlocks(blocks, "prompt")));
        } catch (e) {
          throw new OrsError(
            500,
            `Environment ${s.hosted.name} returned an invalid prompt: ${errorMessage(e)}`,
          );
        }
      }
      case "task_tools": {
        const s = await this.readySession(requireSid(sid), hosted);
        this.sessionTools(s);
        return jsonReply(200, s.taskToolsJson!);
      }
      case "call":
        return this.call(hosted, req, requireSid(sid));
    }
  }

  // ---- sessions ----

  private async create(req: IncomingOrsRequest, sid: string): Promise<OrsReply> {
    if (sid === "") throw new OrsError(400, "X-Session-ID header is empty");
    const body = validate(createRequestSchema, await this.body(req));
    this.assertNewSession(sid);
    let hosted: HostedEnvironment | null = null;
    if (body.env_name != null) {
      const named = this.envs.get(body.env_name) ?? this.envsLower.get(body.env_name.toLowerCase());
      if (!named)
        throw new OrsError(
          404,
          `Unknown environment ${quote(body.env_name)}; this server hosts: ${[...this.envs.keys()].join(", ")}`,
        );
      hosted = named;
    } else if (this.envs.size === 1) hosted = this.defaultEnv;
    const header = req.header("x-secrets");
    const secrets: Record<string, string> = header ? parseSecretsHeader(header) : {};
    if (body.secrets) Object.assign(secrets, body.secrets);
    this.assertCapacity();
    if (!hosted) {
      // No env_name on a multi-environment host (the reference client's split+index sessions):
      // the session's first /{env}/... request names its environment.
      if (body.task_spec == null) await this.assertSomeEnvHasTask(body.split!, body.index!);
      this.assertNewSession(sid);
      this.assertCapacity();
      const session = new Session(sid, performance.now());
      session.status = UNBOUND;
      session.pending = {
        taskSpec: body.task_spec ?? null,
        split: body.split ?? null,
        index: body.index ?? null,
        secrets,
      };
      this.sessions.set(sid, session);
      return sidReply(sid);
    }
    const task = body.task_spec ?? (await this.resolveTask(hosted, body.split!, body.index!));
    this.assertNewSession(sid);
    this.assertCapacity();
    const session = new Session(sid, performance.now());
    this.sessions.set(sid, session);
    this.start(session, hosted, task, secrets);
    return sidReply(sid);
  }

  private async resolveTask(hosted: HostedEnvironment, split: string, index: number): Promise<JsonObject> {
    this.requireSplit(hosted.env, split);
    return this.taskAt(hosted.env, split, index);
  }

  private async assertSomeEnvHasTask(split: string, index: number): Promise<void> {
    if (index < 0) throw new OrsError(400, `index: must be 0 or more, got ${index}`);
    for (const hosted of this.envs.values()) {
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
        const task = p.taskSpec ?? (await this.resolveTask(hosted, p.split!, p.index!));
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

  private assertNewSession(sid: string): void {
    if (this.sessions.has(sid)) throw new OrsError(400, `Session already exists: ${quote(sid)}`);
    if (this.tombstones.has(sid))
      throw new OrsError(
        400,
        `Session ${quote(sid)} was already used and has ended; get a new id from /create_session`,
      );
  }

  private assertCapacity(): void {
    if (this.closing) throw new OrsError(503, "The server is shutting down");
    const max = this.options.maxSessions;
    if (this.sessions.size >= max)
      throw new OrsError(
        503,
        `Too many sessions: this server holds at most ${max} at once (ORS_MAX_SESSIONS). Delete finished sessions with /delete, or retry later`,
      );
  }

  /** The live session, or the right error for an ended (410/404) or never-seen (404) one. */
  private requireSession(sid: string): Session {
    const s = this.sessions.get(sid);
    if (s) return s;
    const t = this.tombstones.get(sid);
    if (t) throw endedError(sid, t.reason, this.options);
    throw new OrsError(404, `Session not found: ${quote(sid)} (create it with /create first)`);
  }

  /** The session once its setup has finished: waits for it, reports a failed one. */
  private async readySession(sid: string, hosted: HostedEnvironment): Promise<Session> {
    const s = this.requireSession(sid);
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
    if (s.status === FAILED) throw setupFailed(s);
    return s;
  }

  private sessionTools(s: Session): ReadonlyMap<string, AnyTool> {
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

  private async delete(sid: string): Promise<OrsReply> {
    const s = this.requireSession(sid);
    await this.closeSession(s, "deleted");
    return sidReply(sid);
  }

  /** Optional cleanup after /delete (spec): tears down a session still held, always 200. */
  private async deleteSession(sid: string): Promise<OrsReply> {
    const s = this.sessions.get(sid);
    if (s) await this.closeSession(s, "deleted");
    return sidReply(sid);
  }

  /** Ends a session: tombstone, abort its runs' signal, end running calls, teardown. */
  private async closeSession(s: Session, reason: CloseReason): Promise<void> {
    if (s.closed) return;
    s.closed = reason;
    this.sessions.delete(s.id);
    if (this.tombstones.size >= MAX_TOMBSTONES) {
      const oldest = this.tombstones.keys().next().value;
      if (oldest !== undefined) this.tombstones.delete(oldest);
    }
    this.tombstones.set(s.id, { reason, at: performance.now() });
    const message = endedMessage(s.id, reason, this.options);
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
    if (s.status === READY) await this.teardown(s);
  }

  private async teardown(s: Session): Promise<void> {
    const teardown = s.hosted.env.definition.teardown;
    if (!teardown) return;
    try {
      await teardown(s.ctx);
    } catch (e) {
      this.options.log(`teardown of ${s.hosted.name} failed`, e);
    }
  }

  private sweep(): void {
    const now = performance.now();
    const { idleTimeoutMs, maxSessionMs } = this.options;
    for (const s of this.sessions.values()) {
      if (maxSessionMs > 0 && now - s.createdAt >= maxSessionMs) void this.closeSession(s, "max-duration");
      else if (s.busy === 0 && now - s.lastSeen >= idleTimeoutMs) void this.closeSession(s, "idle");
    }
    for (const [sid, t] of this.tombstones) {
      if (now - t.at < TOMBSTONE_TTL_MS) break;
      this.tombstones.delete(sid);
    }
    this.runs.sweep(now);
  }

  // ---- tool calls ----

  private async call(hosted: HostedEnvironment, req: IncomingOrsRequest, sid: string): Promise<OrsReply> {
    const body = validate(toolCallSchema, await this.body(req));
    const pingMs = this.options.pingIntervalMs;
    if (body.task_id != null) {
      const s0 = this.requireSession(sid);
      if (s0.status !== UNBOUND) assertSameEnv(s0, hosted);
      const run = this.runs.get(body.task_id, sid);
      const head = formatSseEvent("task_id", body.task_id);
      if (!run)
        return {
          kind: "sse",
          body:
            head +
            formatSseEvent(
              "error",
              `unknown task_id ${quote(body.task_id)} (results are kept ${seconds(this.options.resultLingerMs)} after completion)`,
            ),
        };
      if (run.done) return sseReply(head, run.frames);
      return { kind: "stream", stream: new CallStream(run, head, pingMs) };
    }
    const s = await this.readySession(sid, hosted);
    assertSameEnv(s, hosted);
    const run = this.runs.start(sid);
    const head = `event: task_id\ndata: ${run.id}\n\n`;
    const tool = this.sessionTools(s).get(body.name);
    if (!tool) {
      const names = [...this.sessionTools(s).keys()].join(", ");
      this.finishRun(run, serializeToolError(`Unknown tool ${quote(body.name)}; available: ${names}`));
      return sseReply(head, run.frames);
    }
    const parsed = tool.parse(body.input);
    if (!parsed.ok) {
      this.finishRun(run, serializeToolError(parsed.error));
      return sseReply(head, run.frames);
    }
    const done = this.execute(s, run, tool, body.name, parsed.value);
    if (!run.done) await Promise.race([done, nextMacrotask()]);
    if (run.done) return sseReply(head, run.frames);
    return { kind: "stream", stream: new CallStream(run, head, pingMs) };
  }

  private finishRun(run: ToolRun, resultJson: string): void {
    this.runs.complete(run, frameResult(resultJson), performance.now());
  }

  private execute(s: Session, run: ToolRun, tool: AnyTool, name: string, input: unknown): Promise<void> {
    let signal: AbortSignal | null = null;
    const limit = this.options.callTimeoutMs;
    if (limit > 0) {
      const ac = new AbortController();
      run.abort = ac;
      const sessionSignal = s.signal;
      if (sessionSignal.aborted) ac.abort(sessionSignal.reason);
      else sessionSignal.addEventListener("abort", () => ac.abort(sessionSignal.reason), { once: true });
      signal = ac.signal;
      run.timer = setTimeout(() => {
        const message = `Tool call ${quote(name)} exceeded the time limit of ${seconds(limit)} (ORS_CALL_TIMEOUT_MS)`;
        this.runs.complete(run, formatSseEvent("error", message), performance.now());
        ac.abort(new Error(message));
      }, limit);
      run.timer.unref?.();
    }
    s.busy++;
    if (!s.running) s.running = new Set();
    s.running.add(run);
    // Without a time limit the signal is the session's, created only if the tool reads it.
    const ctx = new RunContext(s.ctx, signal ?? s);
    let promise: Promise<unknown>;
    try {
      promise = tool.run(input, ctx);
    } catch (e) {
      promise = Promise.reject(e);
    }
    return promise.then(
      (result) => {
        this.afterRun(s, run);
        if (run.done) return;
        let jsonText: string;
        try {
          jsonText = serializeToolResult(result as never);
        } catch (e) {
          const why = e instanceof OutputError ? e.message : errorMessage(e);
          jsonText = serializeToolError(`Tool ${quote(name)} returned an invalid result: ${why}`);
        }
        this.finishRun(run, jsonText);
      },
      (e) => {
        this.afterRun(s, run);
        if (run.done) return;
        this.finishRun(run, serializeToolError(errorMessage(e)));
      },
    );
  }

  private afterRun(s: Session, run: ToolRun): void {
    s.busy--;
    s.running?.delete(run);
    s.lastSeen = performance.now();
  }

  // ---- helpers ----

  private async body(req: IncomingOrsRequest): Promise<unknown> {
    return parseJsonObject(await req.readBody(this.options.maxBodyBytes));
  }

  private requireSplit(env: AnyEnvironment, split: string): void {
    if (!env.hasSplit(split))
      throw new OrsError(
        400,
        `Invalid split ${quote(split)}; ${env.name} has: ${env.splits.map((s) => s.name).join(", ")}`,
      );
  }

  private async taskAt(env: AnyEnvironment, split: string, index: number): Promise<JsonObject> {
    if (index < 0) throw new OrsError(400, `index: must be 0 or more, got ${index}`);
    const n = await env.numTasks(split);
    if (index >= n) throw new OrsError(400, `Invalid index ${index}: split ${quote(split)} has ${n} tasks`);
    try {
      return await env.getTask(split, index);
    } catch (e) {
      if (e instanceof RangeError)
        throw new OrsError(400, `Invalid index ${index} for split ${quote(split)}`);
      throw e;
    }
  }

  async replaceEnvironments(environments: AnyEnvironment[]): Promise<string[]> {
    const current = new Map([...this.envs.values()].map((h) => [h.env, h] as const));
    // Validates first: an invalid list changes nothing.
    const index = indexEnvironments(environments, current);
    this.envs = index.envs;
    this.envsLower = index.envsLower;
    this.defaultEnv = index.defaultEnv;
    this.envListJson = JSON.stringify([...this.envs.keys()]);
    const kept = new Set(index.envs.values());
    // Unbound sessions have no environment yet: their first /{env}/... request binds one of the new.
    const ended = [...this.sessions.values()].filter((s) => s.status !== UNBOUND && !kept.has(s.hosted));
    await Promise.all(ended.map((s) => this.closeSession(s, "reloaded")));
    return ended.map((s) => s.id);
  }

  async close(): Promise<void> {
    this.closing = true;
    clearInterval(this.sweepTimer);
    await Promise.all([...this.sessions.values()].map((s) => this.closeSession(s, "shutdown")));
    this.runs.clear();
  }
}

function sseReply(head: string, frames: string | Buffer): OrsReply {
  return typeof frames === "string"
    ? { kind: "sse", body: head + frames }
    : { kind: "sse", body: head, tail: frames };
}

function requireSid(sid: string | null): string {
  if (sid === null || sid === "") throw new OrsError(400, "X-Session-ID header is required");
  return sid;
}

function assertSameEnv(s: Session, hosted: HostedEnvironment): void {
  if (s.hosted !== hosted)
    throw new OrsError(
      404,
      `Session ${quote(s.id)} runs environment ${quote(s.hosted.name)}, not ${quote(hosted.name)}`,
    );
}

function setupFailed(s: Session): OrsError {
  return new OrsError(500, `Setup of environment ${s.hosted.name} failed: ${s.setupError}`);
}

function endedMessage(sid: string, reason: CloseReason, o: OrsHostOptions): string {
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
function endedError(sid: string, reason: CloseReason, o: OrsHostOptions): OrsError {
  return new OrsError(reason === "deleted" ? 410 : 404, endedMessage(sid, reason, o));
}

/** Python slice index resolution: negative counts from the end, clamped to [0, n]. */
function sliceIndex(i: number, n: number): number {
  if (i < 0) return Math.max(0, n + i);
  return Math.min(i, n);
}

function nextMacrotask(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/** Reads a fetch Request body as text, refusing more than `limit` bytes with a 413. */
async function readRequestBody(req: Request, limit: number): Promise<string> {
  const bytes = await readWithin(req.body, limit, { declaredLength: req.headers.get("content-length") });
  if (bytes === null) throw tooLarge(limit);
  return new TextDecoder().decode(bytes);
}

export function tooLarge(limit: number): OrsError {
  return new OrsError(413, `Request body too large: the limit is ${limit} bytes (ORS_MAX_BODY_BYTES)`);
}

/** Path of a request URL without the query string, without building a URL object. */
export function pathOf(url: string): string {
  let start = 0;
  const scheme = url.indexOf("://");
  if (scheme >= 0) {
    start = url.indexOf("/", scheme + 3);
    if (start < 0) return "/";
  }
  let end = url.length;
  const q = url.indexOf("?", start);
  if (q >= 0) end = q;
  const h = url.indexOf("#", start);
  if (h >= 0 && h < end) end = h;
  return url.slice(start, end);
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
