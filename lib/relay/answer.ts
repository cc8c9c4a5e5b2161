// The last stage of the relay's pipeline: what the client is answered. A server's answer is sorted
// — a redirect (mapped into the relay when it stays on that server, else refused), a body that is not
// ORS, an SSE stream (tapped: ./tap.ts), a JSON answer (read whole within limits) — and every answer
// of an admitted request, the relay's own errors included, is logged once (./exchange-log.ts) before
// what it says is published (./observe.ts), so the protocol log has a request before the end of the
// episode it causes. The client's answer waits for the recorder's acknowledgement (./events.ts).
import "server-only";
import { errorBody, RELAY_FAILURE_HEADER, type RelayFailure } from "@/lib/ors/protocol";
import { answerBodyOf, type ExchangeLog, publishExchange } from "./exchange-log";
import type { RelayAnswer, RelayRequest } from "./io";
import { type Exchange, observeExchange } from "./observe";
import { tapSse } from "./tap";
import { type SseSource, type UpstreamAnswer, webSource } from "./upstream";

const JSON_TYPE = "application/json";
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);
export const SSE_ANSWER_HEADERS: Readonly<Record<string, string>> = {
  "content-type": "text/event-stream; charset=utf-8",
  // no-transform: keeps `next start`'s compression from buffering the stream.
  "cache-control": "no-cache, no-transform",
  "x-accel-buffering": "no",
};

/** A `{detail}` answer of the relay's own. */
export function detailAnswer(status: number, detail: string, headers?: Record<string, string>): RelayAnswer {
  return {
    status,
    headers: { ...headers, "content-type": JSON_TYPE, "cache-control": "no-store" },
    body: errorBody(detail),
  };
}

/** The session id of a JSON `/create_session` answer, for the log. */
function sidOf(text: string): string | undefined {
  try {
    const sid = (JSON.parse(text) as { sid?: unknown }).sid;
    return typeof sid === "string" ? sid : undefined;
  } catch {
    return undefined;
  }
}

/** A header worth passing on from a server's answer: `Retry-After` (a 429 or 503 says when to come back). */
function retryAfterOf(value: string | null | undefined): Record<string, string> {
  return value && /^[\w ,:+-]{1,64}$/.test(value) ? { "retry-after": value } : {};
}

/** Where a sorted answer came from and what it may become. */
export interface AnswerContext {
  req: RelayRequest;
  /** How messages name the server. */
  described: string;
  orsPath: string;
  /** A redirect's Location mapped into the relay, or null when it leads off the server. */
  mapRedirect(location: string): string | null;
  /** How long a JSON body may stall. */
  timeoutMs: number;
}

/** Answers one admitted request: each answer logged once, then what it says published. */
export class Responder {
  constructor(
    readonly x: Exchange,
    readonly log: ExchangeLog | null,
  ) {}

  private get endpoint(): string {
    return this.x.route.kind === "unknown" ? "" : this.x.route.endpoint;
  }

  /** The acknowledgements of what this request published, to wait for before its answer leaves. */
  async settled(): Promise<void> {
    if (this.log?.ack) await this.log.ack;
    if (this.x.ack) await this.x.ack;
  }

  /** A whole answer (JSON, or a `{detail}` error); `json`: a 2xx answer read for the recorder. */
  whole(status: number, out: Record<string, string>, text: string, json = false): RelayAnswer {
    if (this.log)
      publishExchange(
        this.log,
        status,
        out["content-type"] ?? "",
        answerBodyOf(text),
        this.endpoint === "create_session" && status < 300 ? sidOf(text) : undefined,
      );
    if (json) observeExchange.json(this.x, text);
    return { status, headers: out, body: text === "" ? null : text };
  }

  detail(status: number, text: string, out?: Record<string, string>): RelayAnswer {
    const a = detailAnswer(status, text, out);
    return this.whole(status, a.headers, a.body as string);
  }

  /** An error answer; `failure` marks it as the relay's own (the server could not be used). */
  fail(status: number, text: string, failure?: RelayFailure): RelayAnswer {
    const a = this.detail(status, text, failure ? { [RELAY_FAILURE_HEADER]: failure } : undefined);
    observeExchange.failed(this.x, this.endpoint, status, text);
    return a;
  }

  /** The server's answer, sorted (see the top of this file). */
  async answer(up: UpstreamAnswer, c: AnswerContext): Promise<RelayAnswer> {
    if (REDIRECT_STATUSES.has(up.status)) return this.redirect(up, c);
    const type = up.header("content-type") ?? "";
    const isSse = type.includes("text/event-stream");
    const passedOn = retryAfterOf(up.header("retry-after"));
    if (!isSse && !type.includes("json") && up.body) return this.notOrs(up, type, passedOn, c);
    this.x.status = up.status;
    const body = up.body;
    if (!body)
      return this.whole(
        up.status,
        {
          ...passedOn,
          "content-type": type || JSON_TYPE,
          "cache-control": isSse ? "no-cache, no-transform" : (up.header("cache-control") ?? "no-store"),
        },
        "",
      );
    if (isSse) {
      // Every SSE answer passes the tap, recorded or not: it ends streams that go silent, and decides
      // what a client going away means (a call's answer is still read and recorded).
      const source: SseSource =
        "sse" in body ? body.sse : webSource("stream" in body ? body.stream : text(body.text));
      return {
        status: up.status,
        headers: { ...passedOn, ...SSE_ANSWER_HEADERS, "content-type": type },
        body: tapSse(this.x, source, this.log),
      };
    }
    const json = "text" in body ? body.text : await this.readJson(body, c);
    if (typeof json !== "string") return json;
    return this.whole(
      up.status,
      { ...passedOn, "content-type": type, "cache-control": up.header("cache-control") ?? "no-store" },
      json,
      true,
    );
  }

  /** Redirects: follow none. Same server → mapped into the relay; anywhere else → refused. */
  private async redirect(up: UpstreamAnswer, c: AnswerContext): Promise<RelayAnswer> {
    if (up.body && "stream" in up.body) await up.body.stream.cancel().catch(() => {});
    const location = up.header("location");
    if (!location) return this.fail(502, `${c.described} answered a redirect without a Location`, "not-ors");
    const mapped = c.mapRedirect(location);
    if (!mapped)
      return this.fail(
        502,
        `refused: ${c.described} redirected ${c.orsPath} to ${location}, outside that server; the relay follows no redirects to other places`,
        "refused",
      );
    if (this.log) publishExchange(this.log, up.status, "", answerBodyOf(""));
    return { status: up.status, headers: { location: mapped, "cache-control": "no-store" }, body: null };
  }

  /** Not ORS: an HTML page, or some other body. Errors in plain text keep their status. */
  private async notOrs(
    up: UpstreamAnswer,
    type: string,
    passedOn: Record<string, string>,
    c: AnswerContext,
  ): Promise<RelayAnswer> {
    const body = up.body!;
    if ("sse" in body) body.sse.cancel();
    const read =
      "text" in body
        ? body.text
        : "stream" in body
          ? ((await observeExchange.readJson(body.stream, 4096).catch(() => null)) ?? "")
          : "";
    const shown = read.trim().slice(0, 2000);
    if (type.includes("html") || (up.status >= 200 && up.status < 300) || !shown)
      return this.fail(
        502,
        `${c.described} is not an ORS server: ${c.orsPath} answered HTTP ${up.status} with ${
          type.includes("html") ? "an HTML page" : type ? type : "a body without a content type"
        }, not JSON or SSE`,
        "not-ors",
      );
    const a = this.detail(up.status, shown, passedOn);
    observeExchange.failed(this.x, this.endpoint, up.status, shown);
    return a;
  }

  /** A JSON body read whole, within a limit: a huge or endless body costs bounded memory. */
  private async readJson(
    body: { stream: ReadableStream<Uint8Array> } | { sse: SseSource },
    c: AnswerContext,
  ): Promise<string | RelayAnswer> {
    if ("sse" in body) {
      body.sse.cancel();
      return this.fail(502, `${c.described} sent an answer the relay cannot read (${c.orsPath})`, "not-ors");
    }
    const { limits } = this.x;
    let text: string | null;
    let deadline: ReturnType<typeof setTimeout> | undefined;
    try {
      // A body that keeps trickling is not read forever: the answer has a total deadline.
      const late = new Promise<never>((_, reject) => {
        deadline = setTimeout(() => {
          body.stream.cancel().catch(() => {});
          reject(new LateAnswerError(limits.answerMaxMs));
        }, limits.answerMaxMs);
      });
      text = await Promise.race([
        observeExchange.readJson(body.stream, limits.maxJsonBytes, c.timeoutMs),
        late,
      ]);
    } catch (err) {
      if (c.req.gone) return this.detail(499, "the client went away");
      const slow =
        err instanceof Error && (err.name === "BodyStalledError" || err instanceof LateAnswerError);
      const why = err instanceof Error ? err.message : String(err);
      return this.fail(
        slow ? 504 : 502,
        `${c.described}: ${why} (${c.orsPath})`,
        slow ? "timeout" : "unreachable",
      );
    } finally {
      clearTimeout(deadline);
    }
    if (text === null)
      return this.fail(
        502,
        `${c.described} sent a JSON answer larger than ${limits.maxJsonBytes} bytes to ${c.orsPath}; refused`,
        "not-ors",
      );
    return text;
  }
}

/** An answer that kept coming past the relay's total deadline for one. */
class LateAnswerError extends Error {
  constructor(ms: number) {
    super(`the answer did not end within ${Math.round(ms / 1000)} s`);
    this.name = "LateAnswerError";
  }
}

/** A whole text as a stream (an SSE answer that arrived whole). */
function text(t: string): ReadableStream<Uint8Array> {
  return new Response(t).body!;
}
