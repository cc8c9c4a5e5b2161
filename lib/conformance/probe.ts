// The conformance check's HTTP layer (isomorphic, any `fetch`): one request at a time with a time
// limit, no redirect followed, bounded reading, and SSE bodies kept both raw (for the reference
// client's reading) and parsed by the protocol's SSE reader (lib/ors/protocol), each frame timed.
import { readSseFrames, type SseFrame, untilAborted } from "@/lib/ors/protocol";
import { formatMs } from "./labels";

export interface ProbeOptions {
  /** The server's base URL, without a trailing slash. */
  baseUrl: string;
  fetch: typeof fetch;
  apiKey?: string;
  /** Time limit of one request, from sending it to the end of its body. */
  requestTimeoutMs: number;
  /** Aborts every request (the overall time limit, or the caller giving up). */
  signal: AbortSignal;
  /** Bytes read of one body at most; the rest is not read. */
  maxBodyBytes: number;
}

export interface ProbeRequest {
  method: "GET" | "POST";
  /** ORS path relative to the base URL, e.g. `/math/call`. */
  path: string;
  sid?: string;
  /** Sent as JSON. */
  json?: unknown;
  /** Sent as is, with `Content-Type: application/json` (for malformed bodies). */
  rawBody?: string;
  accept?: string;
  /** More headers, e.g. `X-Deployment` (the OpenReward client's). */
  headers?: Readonly<Record<string, string>>;
  /** Overrides the probe's request time limit. */
  timeoutMs?: number;
  /** Stops reading at the first SSE event this returns true for (the rest is cancelled). */
  stopAt?: (frame: SseFrame) => boolean;
  /**
   * Runs to its answer even when the probe's signal aborts (only its own time limit applies): for
   * /create, so a stop never leaves a session the server made after the check stopped looking.
   */
  detached?: boolean;
}

export type TimedFrame = SseFrame & {
  /** ms since the request was sent when the bytes holding this frame arrived. */
  at: number;
};

export interface ProbeAnswer {
  /** `POST /math/call`. */
  request: string;
  status: number;
  contentType: string;
  location: string | null;
  /** The body as text (up to the byte limit). */
  text: string;
  bytes: number;
  /** The body went past the byte limit and was cut. */
  truncated: boolean;
  /** The server ended the body (false when reading stopped at `stopAt`). */
  ended: boolean;
  /** SSE frames of the body as the protocol's reader parses them (empty for a non-SSE body). */
  frames: TimedFrame[];
  /** ms from sending to the headers. */
  headersMs: number;
  /** ms from sending to the end of reading. */
  ms: number;
}

export type ProbeFailureKind = "unreachable" | "timeout" | "aborted";

/** A request that got no answer (or whose body did not finish) within the limits. */
export class ProbeError extends Error {
  constructor(
    readonly kind: ProbeFailureKind,
    message: string,
  ) {
    super(message);
    this.name = "ProbeError";
  }
}

const now = () => performance.now();

function isTimeout(signal: AbortSignal): boolean {
  const reason = signal.reason as { name?: string } | undefined;
  return reason?.name === "TimeoutError";
}

/** Low-level fetch failure text: undici hides the cause (ECONNREFUSED...) on `cause`. */
function networkFailure(err: unknown): string {
  let e: unknown = err;
  for (let i = 0; i < 4 && e && typeof e === "object"; i++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === "string") {
      const msg = (e as { message?: unknown }).message;
      return typeof msg === "string" && msg ? `${code}: ${msg}` : code;
    }
    e = (e as { cause?: unknown }).cause;
  }
  return err instanceof Error ? err.message : String(err);
}

export class Probe {
  readonly baseUrl: string;
  private readonly options: ProbeOptions;

  constructor(options: ProbeOptions) {
    this.options = options;
    this.baseUrl = options.baseUrl.replace(/\/+$/, "");
  }

  get signal(): AbortSignal {
    return this.options.signal;
  }

  url(path: string): string {
    return `${this.baseUrl}${path}`;
  }

  /** Sends one request and reads its answer (SSE bodies frame by frame). Throws ProbeError. */
  async send(req: ProbeRequest): Promise<ProbeAnswer> {
    return this.sendTo(this.url(req.path), req);
  }

  /** Like `send`, to an absolute URL (the base URL's origin, for the `base-url` check). */
  async sendTo(url: string, req: ProbeRequest): Promise<ProbeAnswer> {
    const overall = this.options.signal;
    if (overall.aborted) throw new ProbeError("aborted", abortText(overall));
    const limit = req.timeoutMs ?? this.options.requestTimeoutMs;
    const timer = AbortSignal.timeout(limit);
    const signal = req.detached ? timer : AbortSignal.any([overall, timer]);
    const headers = new Headers(req.headers);
    if (this.options.apiKey) headers.set("x-api-key", this.options.apiKey);
    if (req.sid !== undefined) headers.set("x-session-id", req.sid);
    if (req.accept) headers.set("accept", req.accept);
    let body: string | undefined;
    if (req.rawBody !== undefined) body = req.rawBody;
    else if (req.json !== undefined) body = JSON.stringify(req.json);
    if (body !== undefined) headers.set("content-type", "application/json");
    const label = `${req.method} ${url.startsWith(this.baseUrl) ? url.slice(this.baseUrl.length) || "/" : url}`;
    const t0 = now();
    let res: Response;
    try {
      // Raced with the signal: an in-process handler may not watch the request's signal.
      res = await raceAbort(
        this.options.fetch(url, { method: req.method, headers, body, redirect: "manual", signal }),
        signal,
      );
    } catch (err) {
      throw failure(err, label, overall, timer, limit);
    }
    const headersMs = now() - t0;
    try {
      return await readAnswer(res, req, label, signal, this.options.maxBodyBytes, t0, headersMs);
    } catch (err) {
      throw failure(err, label, overall, timer, limit);
    }
  }
}

function raceAbort(promise: Promise<Response>, signal: AbortSignal): Promise<Response> {
  // An answer that comes after all must not keep its connection open.
  return untilAborted(promise, signal, (late) => late.body?.cancel().catch(() => {}));
}

function abortText(signal: AbortSignal): string {
  const reason = signal.reason as { message?: unknown } | undefined;
  return typeof reason?.message === "string" && reason.message ? reason.message : "the check was stopped";
}

function failure(
  err: unknown,
  label: string,
  overall: AbortSignal,
  timer: AbortSignal,
  limit: number,
): ProbeError {
  if (err instanceof ProbeError) return err;
  if (overall.aborted) return new ProbeError(isTimeout(overall) ? "timeout" : "aborted", abortText(overall));
  if (timer.aborted || isTimeout(timer))
    return new ProbeError("timeout", `${label}: no complete answer within ${formatMs(limit)}`);
  return new ProbeError("unreachable", `${label}: ${networkFailure(err)}`);
}

async function readAnswer(
  res: Response,
  req: ProbeRequest,
  label: string,
  signal: AbortSignal,
  maxBytes: number,
  t0: number,
  headersMs: number,
): Promise<ProbeAnswer> {
  const answer: ProbeAnswer = {
    request: label,
    status: res.status,
    contentType: res.headers.get("content-type") ?? "",
    location: res.headers.get("location"),
    text: "",
    bytes: 0,
    truncated: false,
    ended: true,
    frames: [],
    headersMs,
    ms: headersMs,
  };
  if (!res.body) {
    answer.ms = now() - t0;
    return answer;
  }
  const reader = res.body.getReader();
  const decoder = new TextDecoder();
  const parts: string[] = [];
  let lastAt = headersMs;
  let ended = false;
  // A pull-only view of the body: each read of the SSE reader pulls exactly one network chunk, so
  // the frames it yields carry the arrival time of the bytes that completed them.
  const source = new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        const { done, value } = await reader.read();
        if (done) {
          ended = true;
          controller.close();
          return;
        }
        lastAt = now() - t0;
        const room = maxBytes - answer.bytes;
        if (value.byteLength > room) {
          answer.truncated = true;
          const head = value.subarray(0, Math.max(0, room));
          answer.bytes += head.byteLength;
          parts.push(decoder.decode(head, { stream: true }));
          controller.enqueue(head);
          controller.close();
          return;
        }
        answer.bytes += value.byteLength;
        parts.push(decoder.decode(value, { stream: true }));
        controller.enqueue(value);
      },
      cancel(reason) {
        return reader.cancel(reason);
      },
    },
    { highWaterMark: 0 },
  );
  let stopped = false;
  try {
    for await (const frame of readSseFrames(source, signal)) {
      answer.frames.push({ ...frame, at: lastAt });
      if (frame.kind === "event" && req.stopAt?.(frame)) {
        stopped = true;
        break;
      }
    }
    if (signal.aborted) throw signal.reason;
  } finally {
    if (!ended) await reader.cancel().catch(() => {});
  }
  parts.push(decoder.decode());
  answer.text = parts.join("");
  answer.ended = ended && !stopped && !answer.truncated;
  answer.ms = now() - t0;
  return answer;
}

/** The answer's body parsed as JSON, or why it is not JSON. */
export function parseJson(answer: ProbeAnswer): { ok: true; value: unknown } | { ok: false; error: string } {
  if (answer.truncated) return { ok: false, error: `the body is larger than the ${answer.bytes}-byte limit` };
  try {
    return { ok: true, value: JSON.parse(answer.text) };
  } catch (e) {
    return { ok: false, error: (e as Error).message };
  }
}

/** One line of text, at most `max` characters, control characters escaped. */
export function snippet(text: string, max = 140): string {
  const flat = text.replace(/\r\n|\r|\n/g, "⏎").replace(/\t/g, "\\t");
  return flat.length > max ? `${flat.slice(0, max)}…` : flat;
}

/** `HTTP 422 (application/json, 183 bytes): {"detail": ...}` */
export function describeAnswer(answer: ProbeAnswer, bodyChars = 120): string {
  const type = answer.contentType ? answer.contentType.split(";")[0]!.trim() : "no content type";
  let out = `HTTP ${answer.status} (${type}, ${answer.bytes} bytes`;
  if (answer.location) out += `, Location: ${answer.location}`;
  out += ")";
  if (answer.text.trim() && bodyChars > 0) out += `: ${snippet(answer.text.trim(), bodyChars)}`;
  return out;
}

export function isSse(answer: ProbeAnswer): boolean {
  return answer.contentType.toLowerCase().includes("text/event-stream");
}

export function isRedirect(status: number): boolean {
  return status >= 300 && status < 400;
}
