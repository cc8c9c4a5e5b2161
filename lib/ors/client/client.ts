// The typed ORS client (spec: ors-http-api.txt, every endpoint): one method per endpoint, answers
// validated with the protocol's zod schemas, every failure an OrsClientError. Browser and Node.
import type { z } from "zod";
import {
  type Block,
  blocksReadSchema,
  type CreateRequest,
  describeZodError,
  envPath,
  healthResponseSchema,
  type JsonObject,
  type ListToolsOutput,
  listEnvironmentsResponseSchema,
  listToolsOutputReadSchema,
  numTasksResponseSchema,
  RELAY_FAILURE_HEADER,
  type RunToolOutput,
  readErrorDetail,
  readSseFrames,
  type Split,
  sidResponseSchema,
  sleep,
  splitsReadSchema,
  statusResponseSchema,
  type ToolCall,
  taskRangeResponseSchema,
  taskResponseSchema,
  tasksResponseSchema,
} from "@/lib/ors/protocol";
import { describeNetworkError, isUnreachableError } from "@/lib/ors/protocol/network-error";
import { type CallToolOptions, callToolSse } from "./call-tool";
import { OrsClientError } from "./errors";
import { rateLimitDelay } from "./rate-limit";

export interface OrsClientOptions {
  /** The ORS base URL, e.g. `http://127.0.0.1:8080` or `/api/servers/local` (browser). */
  baseUrl: string;
  /** Sent as `X-API-Key` on every request. */
  apiKey?: string;
  /** Extra headers on every request. */
  headers?: Record<string, string>;
  /** A fetch implementation (tests pass one that calls a handler in process). */
  fetch?: typeof fetch;
  /** Time limit of a non-streaming request, in ms (default 75 s: longer than the relay's 60 s, so the
   *  relay's own "timed out" answer arrives first; /prompt waits for a slow setup). */
  timeoutMs?: number;
  /** Tool calls: reconnections after a dropped stream (default 5). */
  maxRetries?: number;
  /** Tool calls: give up when nothing, not even a ping, arrives for this long (default 30 s). */
  idleTimeoutMs?: number;
  /** Tool calls: first reconnection delay (default 500 ms), doubled each time up to backoffMaxMs. */
  backoffBaseMs?: number;
  /** Tool calls: longest reconnection delay (default 10 s). */
  backoffMaxMs?: number;
  /** Tool calls: the largest result accepted, in characters (default 256 Mi). */
  maxResultChars?: number;
  /** Retries of a request answered 429 (the server at capacity), each after its `Retry-After`
   *  (else the backoff above); default 5. 0: a 429 is an error at once. */
  rateLimitRetries?: number;
  /** A `Retry-After` longer than this (default 60 s) is not waited for: the 429 is the error. */
  maxRetryAfterMs?: number;
}

export interface RequestOptions {
  signal?: AbortSignal;
}

export interface OrsClient {
  readonly baseUrl: string;
  health(o?: RequestOptions): Promise<{ status: string }>;
  listEnvironments(o?: RequestOptions): Promise<string[]>;
  tools(env: string, o?: RequestOptions): Promise<ListToolsOutput>;
  splits(env: string, o?: RequestOptions): Promise<Split[]>;
  tasks(env: string, split: string, o?: RequestOptions): Promise<{ tasks: JsonObject[]; env_name: string }>;
  numTasks(env: string, split: string, o?: RequestOptions): Promise<{ num_tasks: number }>;
  task(env: string, split: string, index: number, o?: RequestOptions): Promise<{ task: JsonObject }>;
  taskRange(
    env: string,
    split: string,
    start?: number | null,
    stop?: number | null,
    o?: RequestOptions,
  ): Promise<{ tasks: JsonObject[] }>;
  /** A new session id. Works whether the server answers JSON `{sid}` or SSE `task_id` + `end`. */
  createSession(o?: RequestOptions): Promise<{ sid: string }>;
  /** Starts the episode. Secrets go in `body.secrets` (never in a header). */
  create(sid: string, body: CreateRequest, o?: RequestOptions): Promise<{ sid: string }>;
  ping(sid: string, o?: RequestOptions): Promise<{ status: string }>;
  delete(sid: string, o?: RequestOptions): Promise<{ sid: string }>;
  deleteSession(sid: string, o?: RequestOptions): Promise<{ sid: string }>;
  prompt(env: string, sid: string, o?: RequestOptions): Promise<Block[]>;
  taskTools(env: string, sid: string, o?: RequestOptions): Promise<ListToolsOutput>;
  callTool(env: string, sid: string, call: ToolCall, o?: CallToolOptions): Promise<RunToolOutput>;
}

const DEFAULT_TIMEOUT_MS = 75_000;
const DEFAULT_MAX_RESULT_CHARS = 256 * 1024 * 1024;

type SendInit = { sid?: string; body?: unknown; accept?: string; signal?: AbortSignal };

/** How the client talks to its server: the URL of a path, the headers, and one request at a time. */
interface Transport {
  url(path: string): string;
  headers(sid?: string, extra?: Record<string, string>): Headers;
  fetch: typeof fetch;
  /** A 2xx answer, or an OrsClientError; a 429 is sent again after its Retry-After. */
  send(method: "GET" | "POST", path: string, init: SendInit): Promise<Response>;
  /** A 2xx JSON answer read with `schema`. */
  json<S extends z.ZodType>(
    schema: S,
    method: "GET" | "POST",
    path: string,
    init?: Omit<SendInit, "accept">,
  ): Promise<z.infer<S>>;
}

function createTransport(options: OrsClientOptions, base: string): Transport {
  const doFetch: typeof fetch = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const url = (path: string) => `${base}${path}`;
  const rateLimitRetries = options.rateLimitRetries ?? 5;
  const maxRetryAfterMs = options.maxRetryAfterMs ?? 60_000;
  const backoff = { baseMs: options.backoffBaseMs ?? 500, maxMs: options.backoffMaxMs ?? 10_000 };

  const headers = (sid?: string, extra?: Record<string, string>): Headers => {
    const h = new Headers(options.headers);
    if (options.apiKey) h.set("X-API-Key", options.apiKey);
    if (sid !== undefined) h.set("X-Session-ID", sid);
    for (const [k, v] of Object.entries(extra ?? {})) h.set(k, v);
    return h;
  };

  /**
   * One request with a time limit; returns the 2xx Response or throws an OrsClientError. A 429 (the
   * server at capacity: it did not act on the request) is sent again after its Retry-After, at most
   * `rateLimitRetries` times; the wait ends early when `init.signal` aborts.
   */
  async function send(method: "GET" | "POST", path: string, init: SendInit): Promise<Response> {
    for (let attempt = 1; ; attempt++) {
      const res = await sendOnce(method, path, init);
      if (res.status !== 429 || attempt > rateLimitRetries) return checked(res, path);
      const delay = rateLimitDelay(res.headers.get("retry-after"), attempt, backoff);
      if (delay > maxRetryAfterMs) return checked(res, path);
      await res.body?.cancel().catch(() => {});
      await sleep(delay, init.signal);
    }
  }

  async function checked(res: Response, path: string): Promise<Response> {
    if (!res.ok) throw await httpError(res, path);
    return res;
  }

  async function sendOnce(method: "GET" | "POST", path: string, init: SendInit): Promise<Response> {
    const ctrl = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      ctrl.abort(new DOMException("timeout", "TimeoutError"));
    }, timeoutMs);
    const onAbort = () => ctrl.abort(init.signal!.reason);
    if (init.signal?.aborted) ctrl.abort(init.signal.reason);
    init.signal?.addEventListener("abort", onAbort, { once: true });
    try {
      const extra: Record<string, string> = { Accept: init.accept ?? "application/json" };
      if (init.body !== undefined) extra["Content-Type"] = "application/json";
      try {
        return await doFetch(url(path), {
          method,
          headers: headers(init.sid, extra),
          body: init.body === undefined ? undefined : JSON.stringify(init.body),
          signal: ctrl.signal,
          redirect: "follow",
        });
      } catch (err) {
        if (timedOut)
          throw new OrsClientError("timeout", 0, `no answer within ${timeoutMs / 1000} s`, path, err);
        if (init.signal?.aborted) throw init.signal.reason;
        if (isUnreachableError(err))
          throw new OrsClientError("unreachable", 0, `unreachable: ${describeNetworkError(err)}`, path, err);
        throw err;
      }
    } finally {
      clearTimeout(timer);
      init.signal?.removeEventListener("abort", onAbort);
    }
  }

  return {
    url,
    headers,
    fetch: doFetch,
    send,
    json: async (schema, method, path, init = {}) => parseJson(schema, await send(method, path, init), path),
  };
}

/**
 * The session id of a `/create_session` answer: `{"sid": ...}`, or — as the reference server answers
 * — SSE whose `task_id` event carries it (an `end` with `{"sid"}` wins), then `end`.
 */
async function sessionIdOf(res: Response, path: string, signal?: AbortSignal): Promise<{ sid: string }> {
  if (!(res.headers.get("content-type") ?? "").includes("text/event-stream") || !res.body)
    return parseJson(sidResponseSchema, res, path);
  let sid: string | undefined;
  for await (const frame of readSseFrames(res.body, signal)) {
    if (frame.kind !== "event") continue;
    if (frame.event === "task_id") sid = frame.data.trim();
    else if (frame.event === "error")
      throw new OrsClientError("stream", res.status, frame.data || "unknown SSE error", path);
    else if (frame.event === "end") {
      if (frame.data.trim()) {
        try {
          const v = sidResponseSchema.safeParse(JSON.parse(frame.data));
          if (v.success) sid = v.data.sid;
        } catch {
          // not JSON: keep the task_id
        }
      }
      break;
    }
  }
  res.body.cancel().catch(() => {});
  if (signal?.aborted) throw signal.reason;
  if (!sid) throw new OrsClientError("not-ors", res.status, "the SSE answer carried no session id", path);
  return { sid };
}

/**
 * Creates a client for one ORS server.
 *
 * @example
 * const ors = createOrsClient({ baseUrl: "/api/servers/local" });
 * const { sid } = await ors.createSession();
 * await ors.create(sid, { env_name: "math", split: "train", index: 0 });
 * const out = await ors.callTool("math", sid, { name: "submit", input: { answer: "4" } });
 */
export function createOrsClient(options: OrsClientOptions): OrsClient {
  const base = options.baseUrl.replace(/\/+$/, "");
  const t = createTransport(options, base);
  const json = t.json;
  return {
    baseUrl: base,
    health: (o) => json(healthResponseSchema, "GET", "/health", o),
    listEnvironments: (o) => json(listEnvironmentsResponseSchema, "GET", "/list_environments", o),
    tools: (env, o) => json(listToolsOutputReadSchema, "GET", envPath(env, "tools"), o),
    splits: (env, o) => json(splitsReadSchema, "GET", envPath(env, "splits"), o),
    tasks: (env, split, o) =>
      json(tasksResponseSchema, "POST", envPath(env, "tasks"), { ...o, body: { split } }),
    numTasks: (env, split, o) =>
      json(numTasksResponseSchema, "POST", envPath(env, "num_tasks"), { ...o, body: { split } }),
    task: (env, split, index, o) =>
      json(taskResponseSchema, "POST", envPath(env, "task"), { ...o, body: { split, index } }),
    taskRange: (env, split, start, stop, o) => {
      const body: Record<string, unknown> = { split };
      if (start != null) body.start = start;
      if (stop != null) body.stop = stop;
      return json(taskRangeResponseSchema, "POST", envPath(env, "task_range"), { ...o, body });
    },
    // Asks for JSON; the reference server answers SSE (`task_id` = the sid, then `end`) anyway.
    createSession: async (o) =>
      sessionIdOf(
        await t.send("POST", "/create_session", { ...o, accept: "application/json" }),
        "/create_session",
        o?.signal,
      ),
    create: (sid, body, o) => json(sidResponseSchema, "POST", "/create", { ...o, sid, body }),
    ping: (sid, o) => json(statusResponseSchema, "POST", "/ping", { ...o, sid }),
    delete: (sid, o) => json(sidResponseSchema, "POST", "/delete", { ...o, sid }),
    deleteSession: (sid, o) => json(sidResponseSchema, "POST", "/delete_session", { ...o, sid }),
    prompt: (env, sid, o) => json(blocksReadSchema, "GET", envPath(env, "prompt"), { ...o, sid }),
    taskTools: (env, sid, o) =>
      json(listToolsOutputReadSchema, "GET", envPath(env, "task_tools"), { ...o, sid }),
    callTool: (env, sid, call, o) =>
      callToolSse(
        {
          url: t.url,
          headers: t.headers,
          fetch: t.fetch,
          maxRetries: options.maxRetries ?? 5,
          idleTimeoutMs: options.idleTimeoutMs ?? 30_000,
          backoffBaseMs: options.backoffBaseMs ?? 500,
          backoffMaxMs: options.backoffMaxMs ?? 10_000,
          maxResultChars: options.maxResultChars ?? DEFAULT_MAX_RESULT_CHARS,
          maxRetryAfterMs: options.maxRetryAfterMs ?? 60_000,
        },
        env,
        sid,
        call,
        o,
      ),
  };
}

/** Builds the OrsClientError of a non-2xx answer: the server's `detail`, or what it sent instead. */
async function httpError(res: Response, path: string): Promise<OrsClientError> {
  const text = await res.text().catch(() => "");
  const detail = readErrorDetail(text);
  // The playground's relay marks its own failures: the server was unreachable, too slow, not ORS.
  const failure = res.headers.get(RELAY_FAILURE_HEADER);
  const kind = failure === "unreachable" || failure === "timeout" || failure === "not-ors" ? failure : "http";
  if (detail !== null) return new OrsClientError(kind, res.status, detail, path);
  const type = res.headers.get("content-type") ?? "";
  const location = res.headers.get("location");
  if (res.status >= 300 && res.status < 400)
    return new OrsClientError(
      "http",
      res.status,
      `HTTP ${res.status}: redirected${location ? ` to ${location}` : ""} (not followed)`,
      path,
    );
  const what = type.includes("html") ? "an HTML page" : text.trim() ? JSON.stringify(text.slice(0, 120)) : "";
  return new OrsClientError(
    "http",
    res.status,
    `HTTP ${res.status}${res.statusText ? ` ${res.statusText}` : ""}${what ? ` (${what}, not an ORS error body)` : ""}`,
    path,
  );
}

async function parseJson<S extends z.ZodType>(schema: S, res: Response, path: string): Promise<z.infer<S>> {
  const text = await res.text();
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    const type = res.headers.get("content-type") ?? "unknown";
    const what = type.includes("html") ? "an HTML page" : `${type} ${JSON.stringify(text.slice(0, 80))}`;
    throw new OrsClientError("not-ors", res.status, `not an ORS server: expected JSON, got ${what}`, path);
  }
  const parsed = schema.safeParse(value);
  if (!parsed.success)
    throw new OrsClientError(
      "not-ors",
      res.status,
      `not an ORS answer: ${describeZodError(parsed.error)}`,
      path,
    );
  return parsed.data;
}
