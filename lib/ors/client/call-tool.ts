// POST /{env}/call over SSE (spec: ors-sse.txt "Tool Call SSE Flow", "Reconnection"): reads the
// frames as they arrive, reassembles chunk + end, reports every frame, and re-posts with the saved
// task_id with exponential backoff when the stream drops before `end`, as the reference client does.
import {
  envPath,
  parseRunToolOutput,
  RELAY_FAILURE_HEADER,
  RESUMABLE_BREAK_COMMENT,
  ResultAssembler,
  type ResultOutcome,
  ResultTooLargeError,
  type RunToolOutput,
  readErrorDetail,
  readSseFrames,
  SseLimitError,
  sleep,
  type ToolCall,
} from "@/lib/ors/protocol";
import { describeNetworkError, isUnreachableError } from "@/lib/ors/protocol/network-error";
import { isAbortError, OrsClientError } from "./errors";
import { retryAfterMs } from "./rate-limit";

/** One thing that happened during a tool call, with the time it happened (ms since epoch). */
export interface CallEvent {
  at: number;
  type: "task_id" | "chunk" | "end" | "error" | "ping" | "reconnect" | "give-up";
  /** task_id: the id; chunk/end: the piece; error: the message; ping: the comment text;
   *  reconnect/give-up: why the stream was lost. */
  data?: string;
  /** chunk/end: the piece's length in characters. */
  size?: number;
  /** reconnect: 1 for the first reconnection, 2 for the next ... */
  attempt?: number;
}

export interface CallToolOptions {
  signal?: AbortSignal;
  onEvent?: (event: CallEvent) => void;
  /** Reconnections allowed after the stream drops before `end` (default from the client, 5). */
  maxRetries?: number;
  /** Give up when nothing, not even a ping, arrives for this long (default 30 s). */
  idleTimeoutMs?: number;
  /** Extra request headers of this call (e.g. the playground's own call id for its relay). */
  headers?: Record<string, string>;
}

export interface CallToolContext {
  url: (path: string) => string;
  headers: (sid?: string, extra?: Record<string, string>) => Headers;
  fetch: typeof fetch;
  maxRetries: number;
  idleTimeoutMs: number;
  backoffBaseMs: number;
  backoffMaxMs: number;
  /** The largest result accepted, in characters. */
  maxResultChars: number;
  /** A 429's Retry-After longer than this is not waited for. */
  maxRetryAfterMs: number;
}

class StreamDropped extends Error {
  /** A 429's Retry-After, in ms: the next attempt waits at least this long. */
  retryAfterMs: number | null = null;
}

/** Calls a tool and resolves with its RunToolOutput (`{ok:false}` tool errors included). */
export async function callToolSse(
  ctx: CallToolContext,
  env: string,
  sid: string,
  call: ToolCall,
  opts: CallToolOptions = {},
): Promise<RunToolOutput> {
  const path = envPath(env, "call");
  const maxRetries = opts.maxRetries ?? ctx.maxRetries;
  const idleTimeoutMs = opts.idleTimeoutMs ?? ctx.idleTimeoutMs;
  const emit = (e: Omit<CallEvent, "at">) => opts.onEvent?.({ at: Date.now(), ...e });
  let taskId = call.task_id ?? undefined;
  let reconnects = 0;
  let everConnected = false;
  const drops: string[] = [];

  while (true) {
    if (opts.signal?.aborted) throw opts.signal.reason;
    const attempt = new AbortController();
    let idle = false;
    const onOuterAbort = () => attempt.abort(opts.signal!.reason);
    opts.signal?.addEventListener("abort", onOuterAbort, { once: true });
    let timer: ReturnType<typeof setTimeout> | undefined;
    const armIdle = () => {
      if (timer) clearTimeout(timer);
      timer = setTimeout(() => {
        idle = true;
        attempt.abort(new DOMException("idle", "AbortError"));
      }, idleTimeoutMs);
    };
    const body: Record<string, unknown> = { name: call.name, input: call.input };
    if (taskId) body.task_id = taskId;
    try {
      armIdle();
      let res: Response;
      try {
        res = await ctx.fetch(ctx.url(path), {
          method: "POST",
          headers: ctx.headers(sid, {
            ...opts.headers,
            Accept: "text/event-stream",
            "Content-Type": "application/json",
          }),
          body: JSON.stringify(body),
          signal: attempt.signal,
        });
      } catch (err) {
        if (idle || (opts.signal?.aborted ?? false)) throw err;
        if (isUnreachableError(err)) throw new StreamDropped(describeNetworkError(err));
        throw err;
      }
      // An error answer of the playground's relay (the server was unreachable) is no connection.
      if (!res.headers.get(RELAY_FAILURE_HEADER)) everConnected = true;
      if (!res.ok) {
        const text = await res.text().catch(() => "");
        const detail = readErrorDetail(text) ?? (text.slice(0, 200) || res.statusText);
        // 5xx and 429 are worth another try (as the reference client does); other errors are final.
        // A 429 waits for its Retry-After, unless that is longer than the client waits at all.
        const wait = res.status === 429 ? retryAfterMs(res.headers.get("retry-after")) : null;
        if (wait !== null && wait > ctx.maxRetryAfterMs) throw new OrsClientError("http", 429, detail, path);
        if (res.status >= 500 || res.status === 429) {
          const dropped = new StreamDropped(`HTTP ${res.status}: ${detail}`);
          dropped.retryAfterMs = wait;
          throw dropped;
        }
        throw new OrsClientError("http", res.status, detail, path);
      }
      const type = res.headers.get("content-type") ?? "";
      if (type.includes("json") && res.body) {
        // Not the spec's SSE, but a plain JSON RunToolOutput is unambiguous: accept it.
        const text = await res.text();
        emit({ type: "end", data: text, size: text.length });
        return resultOf(parseRunToolOutput(text), path);
      }
      if (!type.includes("text/event-stream") || !res.body) {
        await res.body?.cancel().catch(() => {});
        throw new OrsClientError(
          "not-ors",
          res.status,
          `expected an SSE stream (text/event-stream), got ${type || "no content type"}`,
          path,
        );
      }
      const pieces = new ResultAssembler(ctx.maxResultChars);
      let resumable = false;
      const limits = { maxLineChars: ctx.maxResultChars, maxEventChars: ctx.maxResultChars };
      for await (const frame of readSseFrames(res.body, attempt.signal, limits)) {
        armIdle();
        if (frame.kind === "comment") {
          if (frame.comment === RESUMABLE_BREAK_COMMENT) resumable = true;
          else emit({ type: "ping", data: frame.comment });
          continue;
        }
        const { event, data } = frame;
        if (event === "task_id") {
          taskId = data.trim();
          emit({ type: "task_id", data: taskId });
        } else if (event === "chunk") {
          emit({ type: "chunk", data, size: data.length });
          pieces.add(data);
        } else if (event === "end") {
          emit({ type: "end", data, size: data.length });
          return resultOf(pieces.end(data), path);
        } else if (event === "error") {
          // A relay's "the server's stream broke": the call is resumed with its task_id.
          if (resumable && taskId) throw new StreamDropped(data);
          emit({ type: "error", data });
          throw new OrsClientError("stream", res.status, data || "unknown SSE error", path);
        }
      }
      if (idle) throw new DOMException("idle", "AbortError");
      if (opts.signal?.aborted) throw opts.signal.reason;
      throw new StreamDropped("stream ended before `end`");
    } catch (err) {
      if (idle) {
        const msg = `no data from the server (not even a ping) for ${Math.round(idleTimeoutMs / 1000)} s`;
        emit({ type: "give-up", data: msg });
        throw new OrsClientError("timeout", 0, msg, path, err);
      }
      if (opts.signal?.aborted) throw opts.signal.reason;
      if (err instanceof ResultTooLargeError || err instanceof SseLimitError)
        throw new OrsClientError("not-ors", 200, `the server sent ${err.message}`, path, err);
      let reason: string;
      if (err instanceof StreamDropped) reason = err.message;
      else if (err instanceof OrsClientError) throw err;
      else if (isAbortError(err)) throw err;
      else reason = `connection lost: ${describeNetworkError(err)}`; // a read failed mid-stream
      drops.push(reason);
      reconnects++;
      if (reconnects > maxRetries) {
        const msg = `gave up after ${maxRetries} reconnection${maxRetries === 1 ? "" : "s"}${
          taskId ? ` (task_id ${taskId})` : ""
        }: ${drops.join("; ")}`;
        emit({ type: "give-up", data: msg });
        throw new OrsClientError(everConnected ? "stream" : "unreachable", 0, msg, path, err);
      }
      const backoff = Math.min(ctx.backoffMaxMs, ctx.backoffBaseMs * 2 ** (reconnects - 1));
      const delay = err instanceof StreamDropped && err.retryAfterMs !== null ? err.retryAfterMs : backoff;
      emit({
        type: "reconnect",
        attempt: reconnects,
        data: `${reason}; reconnecting in ${delay} ms${taskId ? ` with task_id ${taskId}` : ""}`,
      });
      await sleep(delay, opts.signal);
    } finally {
      if (timer) clearTimeout(timer);
      opts.signal?.removeEventListener("abort", onOuterAbort);
    }
  }
}

function resultOf(outcome: ResultOutcome, path: string): RunToolOutput {
  if (outcome.ok) return outcome.result;
  throw new OrsClientError("not-ors", 200, outcome.error, path);
}
