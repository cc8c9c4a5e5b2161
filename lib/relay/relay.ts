// The recording relay (docs/architecture.md "The recording relay", "Security"): plain ORS in at
// /api/servers/<name>/<ORS path>, forwarded to that known server (in process for `local`), the
// answer streamed back unbuffered, and what passes published as RelayEvents (./events) — the
// episode's steps and its protocol log. One core (`serve`) and two thin ways in (./io.ts): a fetch
// Request (Next's route, in-process clients) and node:http (the server entry's fast path).

import { describeNetworkError } from "@/lib/ors/protocol/network-error";
import {
  AGENT_HEADER,
  CLIENT_HEADER,
  decodeAnnotation,
  RUN_HEADER,
  STEP_HEADER,
} from "@/lib/relay/annotations";
import "server-only";
import { randomBytes } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { processEnv, settingOrDefault } from "@/lib/config";
import type { OrsReply } from "@/lib/ors/host";
import { errorBody, RELAY_FAILURE_HEADER, type RelayFailure } from "@/lib/ors/protocol";
import type { ServerRegistry } from "@/lib/registry";
import { createPinnedFetch, type PinnedFetch } from "@/lib/security/pinned-fetch";
import { createRelayEvents, type RelayEvents } from "./events";
import { answerBodyOf, type ExchangeLog, publishExchange, requestBodyOf, shownHeaders } from "./exchange-log";
import { nodeRequest, type RelayAnswer, type RelayRequest, toResponse, webRequest, writeNode } from "./io";
import {
  DEFAULT_RELAY_LIMITS,
  type Exchange,
  envOf,
  observeExchange,
  type RelayLimits,
  type TaskCalls,
} from "./observe";
import { describeServer, mapRedirect } from "./paths";
import { checkRelayRequest } from "./request-shape";
import { tapSse } from "./tap";
import { withToolFormat } from "./tool-formats";
import { dispatchOf, localRequest, replySource, webSource } from "./upstream";

export interface RelayOptions {
  registry: ServerRegistry;
  /** Time limit for a server's answer to start (headers), and for a started answer to send
   *  something more (a JSON body, or an SSE stream: `: ping`s count), in ms. Default 60 s
   *  (`PLAYGROUND_RELAY_TIMEOUT_MS`). A stream that keeps sending runs as long as it streams. */
  timeoutMs?: number;
  /** Largest request body relayed (default 16 MiB). */
  maxBodyBytes?: number;
  /** How remote servers are fetched: connecting only to the addresses the policy checked
   *  (default: a pinned fetch of its own, lib/security/pinned-fetch). */
  pinnedFetch?: PinnedFetch;
  /** This relay's mark on the requests it sends, to recognise them coming back (default: random). */
  loopMark?: string;
  /** Where what passes is published (default: a bus of its own, `relay.events`). */
  events?: RelayEvents;
  /** Size limits on upstream answers (defaults: DEFAULT_RELAY_LIMITS). */
  limits?: Partial<RelayLimits>;
}

export interface Relay {
  /** Relays one request to server `name`; `orsPath` is the ORS path, e.g. `/math/call`. */
  handle(req: Request, name: string, orsPath: string): Promise<Response>;
  /**
   * The same on node:http (the server entry's fast path, after the request policy): the answer is
   * written to `res`, with `headers` added. Resolves once the answer has started.
   */
  handleNode(
    req: IncomingMessage,
    res: ServerResponse,
    name: string,
    orsPath: string,
    headers?: Record<string, string>,
  ): Promise<void>;
  /** What passes through the relay, as RelayEvents (the recorder subscribes here). */
  readonly events: RelayEvents;
}

export { mapRedirect, orsPathFromUrl } from "./paths";

const FORWARDED_HEADERS = [
  "x-session-id",
  "x-api-key",
  "x-secrets",
  "x-deployment",
  "accept",
  "content-type",
];
/** A browser tab names its call's step with this header (not forwarded), to find it in the live feed. */
export const CALL_ID_HEADER = "x-playground-call-id";
const CALL_ID = /^[A-Za-z0-9_-]{8,64}$/;

function callIdOf(header: string | null): string {
  return header && CALL_ID.test(header) ? header : crypto.randomUUID();
}

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);
const JSON_TYPE = "application/json";
const SSE_ANSWER_HEADERS: Readonly<Record<string, string>> = {
  "content-type": "text/event-stream; charset=utf-8",
  // no-transform: keeps `next start`'s compression from buffering the stream.
  "cache-control": "no-cache, no-transform",
  "x-accel-buffering": "no",
};

/**
 * Loop detection: every relay sends the marks of the relays a request went through, its own last.
 * A mark is a random per-process value, so a client cannot forge this relay's mark: a request
 * carrying it came back from a server that leads here (a loop). Marks of other relays are passed
 * on (the last few), so a loop through several apps is caught where it closes.
 */
export const LOOP_HEADER = "x-ors-relay-via";
const MARK = /^[A-Za-z0-9_-]{16,64}$/;
const MAX_MARKS = 8;

function marksOf(header: string | null): string[] {
  if (!header) return [];
  return header
    .split(",")
    .map((m) => m.trim())
    .filter((m) => MARK.test(m))
    .slice(-MAX_MARKS);
}

function detailAnswer(status: number, detail: string, headers?: Record<string, string>): RelayAnswer {
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

export function createRelay(options: RelayOptions): Relay {
  const { registry } = options;
  const timeoutMs = options.timeoutMs ?? settingOrDefault(processEnv(), "PLAYGROUND_RELAY_TIMEOUT_MS");
  const maxBodyBytes = options.maxBodyBytes ?? 16 * 1024 * 1024;
  const remoteFetch: PinnedFetch = options.pinnedFetch ?? createPinnedFetch();
  const loopMark = options.loopMark ?? randomBytes(18).toString("base64url");
  const events = options.events ?? createRelayEvents();
  const tasks: TaskCalls = new Map();
  // A stream that goes silent for as long as an answer may take to start is ended too.
  const limits: RelayLimits = { ...DEFAULT_RELAY_LIMITS, streamIdleMs: timeoutMs, ...options.limits };

  async function serve(req: RelayRequest, name: string, orsPath: string): Promise<RelayAnswer> {
    // Which browsers may use the relay at all (same-origin writes, allowed Hosts, the access token)
    // is the request policy's, applied to every request by the app's server entry (lib/security).
    // ORS shapes and methods only, checked before anything is contacted.
    const target = checkRelayRequest(req.method, orsPath, req.search);
    if (!target.ok)
      return detailAnswer(target.status, target.detail, {
        [RELAY_FAILURE_HEADER]: "refused",
        ...(target.allow ? { allow: target.allow } : {}),
      });
    const { route } = target;
    const endpoint = route.endpoint;
    const marks = marksOf(req.header(LOOP_HEADER));
    if (marks.includes(loopMark))
      return detailAnswer(
        508,
        `refused: this request came back to the relay that sent it (server "${name}" leads back to this app: a loop)`,
        { [RELAY_FAILURE_HEADER]: "refused" },
      );

    const entry = await registry.get(name);
    if (!entry) {
      const known = (await registry.list()).map((s) => s.name).join(", ");
      return detailAnswer(404, `unknown server "${name}" (known: ${known})`);
    }
    const sid = req.header("x-session-id") ?? undefined;
    const listening = events.hasListeners();
    const x: Exchange = {
      server: name,
      sid,
      route,
      orsPath,
      listening,
      events,
      tasks,
      limits,
      callId: callIdOf(req.header(CALL_ID_HEADER)),
      deployment: req.header("x-deployment"),
    };
    // Annotations for the recorder (never forwarded: FORWARDED_HEADERS leaves them out).
    if (listening) {
      const run = endpoint === "create" ? decodeAnnotation(req.header(RUN_HEADER)) : undefined;
      const client = endpoint === "create" ? decodeAnnotation(req.header(CLIENT_HEADER)) : undefined;
      const agent = endpoint === "call" ? decodeAnnotation(req.header(AGENT_HEADER)) : undefined;
      const step = endpoint === "call" ? decodeAnnotation(req.header(STEP_HEADER)) : undefined;
      if (run !== undefined || client !== undefined || agent !== undefined || step !== undefined)
        x.annotations = { run, client, agent, step };
    }

    const headers = new Headers({ [LOOP_HEADER]: [...marks.slice(-(MAX_MARKS - 1)), loopMark].join(",") });
    for (const h of FORWARDED_HEADERS) {
      const v = req.header(h);
      if (v !== null) headers.set(h, v);
    }
    if (!headers.has("x-api-key") && entry.apiKey) headers.set("x-api-key", entry.apiKey);

    // The protocol log (./exchange-log.ts): every answer from here on is logged, once.
    const log: ExchangeLog | null = listening
      ? {
          server: name,
          ...(sid ? { sid } : {}),
          env: envOf(x),
          endpoint,
          ...(endpoint === "call" ? { callId: x.callId } : {}),
          at: Date.now(),
          method: req.method,
          path: orsPath,
          request: { headers: shownHeaders(headers), body: "", size: 0 },
          events,
        }
      : null;
    /**
     * A whole answer (JSON, or a `{detail}` error): logged first, then what it says is published
     * (`json`: a 2xx answer read for the recorder, a session endpoint's failure), so the log has a
     * request before the end of the episode it causes (a `/delete`, a lost session).
     */
    const whole = (status: number, out: Record<string, string>, text: string, json = false): RelayAnswer => {
      if (log)
        publishExchange(
          log,
          status,
          out["content-type"] ?? "",
          answerBodyOf(text),
          endpoint === "create_session" && status < 300 ? sidOf(text) : undefined,
        );
      if (json) observeExchange.json(x, text);
      return { status, headers: out, body: text === "" ? null : text };
    };
    const detail = (status: number, text: string, out?: Record<string, string>) => {
      const a = detailAnswer(status, text, out);
      return whole(status, a.headers, a.body as string);
    };
    /** An error answer; `failure` marks it as the relay's own (the server could not be used). */
    const fail = (status: number, text: string, failure?: RelayFailure) => {
      const a = detail(status, text, failure ? { [RELAY_FAILURE_HEADER]: failure } : undefined);
      observeExchange.failed(x, endpoint, status, text);
      return a;
    };

    // The addresses checked here are the only ones connected to (no second DNS lookup).
    let addresses: string[] = [];
    if (entry.source !== "builtin") {
      const verdict = await registry.checkAddress(entry);
      if (!verdict.ok)
        return detail(403, `refused: ${describeServer(entry)}: ${verdict.reason}`, {
          [RELAY_FAILURE_HEADER]: "refused",
        });
      addresses = verdict.addresses;
      // A server added at run time gets nothing until it answers like an ORS server.
      const ors = await registry.checkOrsServer(entry, addresses);
      if (!ors.ok) return fail(ors.status, `${describeServer(entry)} ${ors.reason}`, ors.failure);
    }

    let body: Uint8Array | undefined;
    if (req.method !== "GET" && req.method !== "HEAD") {
      const read = await req.readBody(maxBodyBytes);
      if (read === null) return detail(413, `request body larger than ${maxBodyBytes} bytes`);
      body = read;
      x.requestBody = body;
      if (log) log.request = { headers: log.request.headers, ...requestBodyOf(endpoint, body) };
    }

    let timedOut = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        timedOut = true;
        reject(new DOMException("timed out", "TimeoutError"));
      }, timeoutMs);
    });
    const timedOutAnswer = () =>
      fail(
        504,
        `${describeServer(entry)} timed out after ${Math.round(timeoutMs / 1000)} s (no answer to ${orsPath})`,
        "timeout",
      );
    const started = Date.now();

    // The built-in host through its own entry point: no fetch Request, no web streams.
    const dispatch = entry.source === "builtin" ? dispatchOf(registry.localHandler()) : null;
    if (dispatch) {
      let reply: OrsReply;
      try {
        reply = await Promise.race([dispatch(localRequest(req.method, target.path, headers, body)), timeout]);
      } catch (err) {
        if (timedOut) return timedOutAnswer();
        console.error(`relay: the built-in host failed on ${orsPath}:`, (err as Error).message);
        return fail(502, `the built-in host failed: ${(err as Error).message}`, "unreachable");
      } finally {
        clearTimeout(timer);
      }
      x.started = started;
      if (reply.kind === "json") {
        x.status = reply.status;
        return whole(
          reply.status,
          {
            "content-type": JSON_TYPE,
            "cache-control": "no-store",
            ...retryAfterOf(reply.headers?.["retry-after"]),
          },
          reply.body,
          true,
        );
      }
      x.status = 200;
      return { status: 200, headers: { ...SSE_ANSWER_HEADERS }, body: tapSse(x, replySource(reply), log) };
    }

    const ctrl = new AbortController();
    const stopListening = req.onGone(() =>
      ctrl.abort(new DOMException("the client went away", "AbortError")),
    );
    let upstream: Response;
    try {
      if (entry.source === "builtin") {
        const local = new Request(`http://local.invalid${target.path}`, {
          method: req.method,
          headers,
          body: body as BodyInit | undefined,
          signal: ctrl.signal,
        });
        upstream = await Promise.race([registry.localHandler()(local), timeout]);
      } else {
        upstream = await Promise.race([
          remoteFetch(
            `${entry.url}${target.path}`,
            {
              method: req.method,
              headers,
              body: body as BodyInit | undefined,
              redirect: "manual",
              signal: ctrl.signal,
            },
            addresses,
          ),
          timeout,
        ]);
      }
    } catch (err) {
      stopListening();
      if (timedOut) return timedOutAnswer();
      if (req.gone) return detail(499, "the client went away");
      if (entry.source === "builtin") {
        console.error(`relay: the built-in host failed on ${orsPath}:`, (err as Error).message);
        return fail(502, `the built-in host failed: ${(err as Error).message}`, "unreachable");
      }
      return fail(
        502,
        `${describeServer(entry)} is unreachable: ${describeNetworkError(err)}`,
        "unreachable",
      );
    } finally {
      clearTimeout(timer);
    }
    x.started = started;

    // Redirects: follow none. Same server → mapped into the relay; anywhere else → refused.
    if (REDIRECT_STATUSES.has(upstream.status)) {
      await upstream.body?.cancel().catch(() => {});
      stopListening();
      const location = upstream.headers.get("location");
      if (!location)
        return fail(502, `${describeServer(entry)} answered a redirect without a Location`, "not-ors");
      const mapped = mapRedirect(entry, name, orsPath, location);
      if (!mapped)
        return fail(
          502,
          `refused: ${describeServer(entry)} redirected ${orsPath} to ${location}, outside that server; the relay follows no redirects to other places`,
          "refused",
        );
      if (log) publishExchange(log, upstream.status, "", answerBodyOf(""));
      return {
        status: upstream.status,
        headers: { location: mapped, "cache-control": "no-store" },
        body: null,
      };
    }

    const type = upstream.headers.get("content-type") ?? "";
    const isSse = type.includes("text/event-stream");
    const isJson = type.includes("json");
    const passedOn = retryAfterOf(upstream.headers.get("retry-after"));
    if (!isSse && !isJson && upstream.body) {
      // Not ORS: an HTML page, or some other body. Errors in plain text keep their status.
      const text = (await observeExchange.readJson(upstream.body, 4096).catch(() => null)) ?? "";
      stopListening();
      if (type.includes("html") || upstream.ok || !text.trim())
        return fail(
          502,
          `${describeServer(entry)} is not an ORS server: ${orsPath} answered HTTP ${upstream.status} with ${
            type.includes("html") ? "an HTML page" : type ? type : "a body without a content type"
          }, not JSON or SSE`,
          "not-ors",
        );
      const a = detail(upstream.status, text.trim().slice(0, 2000), passedOn);
      observeExchange.failed(x, endpoint, upstream.status, text.trim().slice(0, 2000));
      return a;
    }

    x.status = upstream.status;
    if (!upstream.body) {
      stopListening();
      return whole(
        upstream.status,
        {
          ...passedOn,
          "content-type": type || JSON_TYPE,
          "cache-control": isSse
            ? "no-cache, no-transform"
            : (upstream.headers.get("cache-control") ?? "no-store"),
        },
        "",
      );
    }
    if (isSse) {
      // The tap decides what a client going away means: a call's answer is still read and recorded.
      // Every SSE answer passes the tap, recorded or not: it ends streams that go silent.
      stopListening();
      return {
        status: upstream.status,
        headers: { ...passedOn, ...SSE_ANSWER_HEADERS, "content-type": type },
        body: tapSse(x, webSource(upstream.body), log),
      };
    }
    // JSON answers are read whole, within a limit: a huge or endless body costs bounded memory.
    let text: string | null;
    try {
      text = await observeExchange.readJson(upstream.body, limits.maxJsonBytes, timeoutMs);
    } catch (err) {
      stopListening();
      if (req.gone) return detail(499, "the client went away");
      const why = err instanceof Error ? err.message : String(err);
      return fail(
        err instanceof Error && err.name === "BodyStalledError" ? 504 : 502,
        `${describeServer(entry)}: ${why} (${orsPath})`,
        err instanceof Error && err.name === "BodyStalledError" ? "timeout" : "unreachable",
      );
    }
    stopListening();
    if (text === null)
      return fail(
        502,
        `${describeServer(entry)} sent a JSON answer larger than ${limits.maxJsonBytes} bytes to ${orsPath}; refused`,
        "not-ors",
      );
    return whole(
      upstream.status,
      {
        ...passedOn,
        "content-type": type,
        "cache-control": upstream.headers.get("cache-control") ?? "no-store",
      },
      text,
      true,
    );
  }

  const safely = async (req: RelayRequest, name: string, orsPath: string): Promise<RelayAnswer> => {
    try {
      return (
        (await withToolFormat(req, orsPath, (r) => serve(r, name, orsPath))) ??
        (await serve(req, name, orsPath))
      );
    } catch (err) {
      console.error(`relay: internal error relaying to "${name}" ${orsPath}:`, (err as Error).message);
      return detailAnswer(502, `relay error: ${(err as Error).message}`);
    }
  };

  return {
    events,
    handle: async (req, name, orsPath) => toResponse(await safely(webRequest(req), name, orsPath)),
    handleNode: async (req, res, name, orsPath, headers) => {
      const answer = await safely(nodeRequest(req, res), name, orsPath);
      try {
        writeNode(answer, res, headers);
      } catch (err) {
        console.error(`relay: could not write the answer of "${name}" ${orsPath}:`, (err as Error).message);
        res.destroy();
      }
    },
  };
}
