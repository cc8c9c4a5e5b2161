// The recording relay (docs/architecture.md "The recording relay", "Security"): plain ORS in at
// /api/servers/<name>/<ORS path>, forwarded to that known server (in process for `local`), the
// answer streamed back unbuffered, and what passes published as RelayEvents (./events).
import { AGENT_HEADER, decodeAnnotation, RUN_HEADER } from "@/lib/episodes/annotations";
import { describeNetworkError } from "@/lib/ors/client/errors";
import "server-only";
import { randomBytes } from "node:crypto";
import { RELAY_FAILURE_HEADER, type RelayFailure } from "@/lib/ors/protocol";
import { readWithin } from "@/lib/ors/protocol/body";
import type { ServerEntry, ServerRegistry } from "@/lib/registry";
import { createPinnedFetch, type PinnedFetch } from "@/lib/security/pinned-fetch";
import { createRelayEvents, type RelayEvents } from "./events";
import {
  DEFAULT_RELAY_LIMITS,
  type Exchange,
  observeExchange,
  type RelayLimits,
  type TaskCalls,
} from "./observe";
import { checkRelayRequest } from "./request-shape";

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
  /** What passes through the relay, as RelayEvents (the recorder subscribes here). */
  readonly events: RelayEvents;
}

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

/** `{detail}` JSON answer (the ORS error body). */
export function detailResponse(status: number, detail: string, headers?: HeadersInit): Response {
  const h = new Headers(headers);
  h.set("content-type", "application/json");
  h.set("cache-control", "no-store");
  return new Response(JSON.stringify({ detail }), { status, headers: h });
}

/**
 * The ORS path of a relay URL: `/api/servers/py/math/call?x=1` → `/math/call`. The path keeps its
 * percent-encoding, so environment names with reserved characters survive the hop.
 */
export function orsPathFromUrl(url: string, name: string): string {
  const { pathname } = new URL(url);
  const prefix = `/api/servers/${encodeURIComponent(name)}`;
  if (pathname.startsWith(`${prefix}/`)) return pathname.slice(prefix.length);
  const i = pathname.indexOf("/", "/api/servers/".length);
  return i >= 0 ? pathname.slice(i) : "/";
}

function describeServer(entry: ServerEntry): string {
  return entry.source === "builtin" ? `server "${entry.name}"` : `server "${entry.name}" (${entry.url})`;
}

export function createRelay(options: RelayOptions): Relay {
  const { registry } = options;
  const timeoutMs = options.timeoutMs ?? (Number(process.env.PLAYGROUND_RELAY_TIMEOUT_MS) || 60_000);
  const maxBodyBytes = options.maxBodyBytes ?? 16 * 1024 * 1024;
  const remoteFetch: PinnedFetch = options.pinnedFetch ?? createPinnedFetch();
  const loopMark = options.loopMark ?? randomBytes(18).toString("base64url");
  const events = options.events ?? createRelayEvents();
  const tasks: TaskCalls = new Map();
  // A stream that goes silent for as long as an answer may take to start is ended too.
  const limits: RelayLimits = { ...DEFAULT_RELAY_LIMITS, streamIdleMs: timeoutMs, ...options.limits };

  async function handle(req: Request, name: string, orsPath: string): Promise<Response> {
    // Which browsers may use the relay at all (same-origin writes, allowed Hosts, the access token)
    // is the request policy's, applied to every request by the app's server entry (lib/security).
    // ORS shapes and methods only, checked before anything is contacted.
    const target = checkRelayRequest(req.method, orsPath, new URL(req.url).search);
    if (!target.ok)
      return detailResponse(target.status, target.detail, {
        [RELAY_FAILURE_HEADER]: "refused",
        ...(target.allow ? { allow: target.allow } : {}),
      });
    const { route } = target;
    const endpoint = route.endpoint;
    const marks = marksOf(req.headers.get(LOOP_HEADER));
    if (marks.includes(loopMark))
      return detailResponse(
        508,
        `refused: this request came back to the relay that sent it (server "${name}" leads back to this app: a loop)`,
        { [RELAY_FAILURE_HEADER]: "refused" },
      );

    const entry = await registry.get(name);
    if (!entry) {
      const known = (await registry.list()).map((s) => s.name).join(", ");
      return detailResponse(404, `unknown server "${name}" (known: ${known})`);
    }
    const sid = req.headers.get("x-session-id") ?? undefined;
    const listening = events.hasListeners();
    const exchange: Exchange = {
      server: name,
      sid,
      route,
      orsPath,
      listening,
      events,
      tasks,
      limits,
      callId: callIdOf(req.headers.get(CALL_ID_HEADER)),
      deployment: req.headers.get("x-deployment"),
    };
    // Annotations for the recorder (never forwarded: FORWARDED_HEADERS leaves them out).
    if (listening) {
      const run = endpoint === "create" ? decodeAnnotation(req.headers.get(RUN_HEADER)) : undefined;
      const agent = endpoint === "call" ? decodeAnnotation(req.headers.get(AGENT_HEADER)) : undefined;
      if (run !== undefined || agent !== undefined) exchange.annotations = { run, agent };
    }

    /** An error answer; `failure` marks it as the relay's own (the server could not be used). */
    const fail = (status: number, detail: string, failure?: RelayFailure) => {
      observeExchange.failed(exchange, endpoint, status, detail);
      return detailResponse(status, detail, failure ? { [RELAY_FAILURE_HEADER]: failure } : undefined);
    };

    // The addresses checked here are the only ones connected to (no second DNS lookup).
    let addresses: string[] = [];
    if (entry.source !== "builtin") {
      const verdict = await registry.checkAddress(entry);
      if (!verdict.ok)
        return detailResponse(403, `refused: ${describeServer(entry)}: ${verdict.reason}`, {
          [RELAY_FAILURE_HEADER]: "refused",
        });
      addresses = verdict.addresses;
      // A server added at run time gets nothing until it answers like an ORS server.
      const ors = await registry.checkOrsServer(entry, addresses);
      if (!ors.ok) return fail(ors.status, `${describeServer(entry)} ${ors.reason}`, ors.failure);
    }

    let body: Uint8Array | undefined;
    if (req.method !== "GET" && req.method !== "HEAD") {
      const read = await readWithin(req.body, maxBodyBytes, {
        declaredLength: req.headers.get("content-length"),
      });
      if (read === null) return detailResponse(413, `request body larger than ${maxBodyBytes} bytes`);
      body = read;
      exchange.requestBody = body;
    }

    const headers = new Headers({ [LOOP_HEADER]: [...marks.slice(-(MAX_MARKS - 1)), loopMark].join(",") });
    for (const h of FORWARDED_HEADERS) {
      const v = req.headers.get(h);
      if (v !== null) headers.set(h, v);
    }
    if (!headers.has("x-api-key") && entry.apiKey) headers.set("x-api-key", entry.apiKey);

    const ctrl = new AbortController();
    const onClientGone = () => ctrl.abort(req.signal.reason);
    if (req.signal.aborted) ctrl.abort(req.signal.reason);
    req.signal.addEventListener("abort", onClientGone, { once: true });
    let timedOut = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        timedOut = true;
        ctrl.abort(new DOMException("timed out", "TimeoutError"));
        reject(new DOMException("timed out", "TimeoutError"));
      }, timeoutMs);
    });
    const started = Date.now();
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
      req.signal.removeEventListener("abort", onClientGone);
      if (timedOut)
        return fail(
          504,
          `${describeServer(entry)} timed out after ${Math.round(timeoutMs / 1000)} s (no answer to ${orsPath})`,
          "timeout",
        );
      if (req.signal.aborted) return detailResponse(499, "the client went away");
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
    exchange.started = started;

    // Redirects: follow none. Same server → mapped into the relay; anywhere else → refused.
    if (REDIRECT_STATUSES.has(upstream.status)) {
      await upstream.body?.cancel().catch(() => {});
      req.signal.removeEventListener("abort", onClientGone);
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
      return new Response(null, {
        status: upstream.status,
        headers: { location: mapped, "cache-control": "no-store" },
      });
    }

    const type = upstream.headers.get("content-type") ?? "";
    const isSse = type.includes("text/event-stream");
    const isJson = type.includes("json");
    if (!isSse && !isJson && upstream.body) {
      // Not ORS: an HTML page, or some other body. Errors in plain text keep their status.
      const text = (await observeExchange.readJson(upstream.body, 4096).catch(() => null)) ?? "";
      req.signal.removeEventListener("abort", onClientGone);
      if (type.includes("html") || upstream.ok || !text.trim())
        return fail(
          502,
          `${describeServer(entry)} is not an ORS server: ${orsPath} answered HTTP ${upstream.status} with ${
            type.includes("html") ? "an HTML page" : type ? type : "a body without a content type"
          }, not JSON or SSE`,
          "not-ors",
        );
      observeExchange.failed(exchange, endpoint, upstream.status, text.trim().slice(0, 2000));
      return detailResponse(upstream.status, text.trim().slice(0, 2000), passedOn(upstream));
    }

    const outHeaders = new Headers(passedOn(upstream));
    outHeaders.set("content-type", type || "application/json");
    if (isSse) {
      // no-transform: keeps `next start`'s compression from buffering the stream.
      outHeaders.set("cache-control", "no-cache, no-transform");
      outHeaders.set("x-accel-buffering", "no");
    } else {
      outHeaders.set("cache-control", upstream.headers.get("cache-control") ?? "no-store");
    }
    // A server at capacity says when to come back (429/503): clients honour it.
    const retryAfter = upstream.headers.get("retry-after");
    if (retryAfter && /^[\w ,:+-]{1,64}$/.test(retryAfter)) outHeaders.set("retry-after", retryAfter);

    exchange.status = upstream.status;
    if (!upstream.body) {
      req.signal.removeEventListener("abort", onClientGone);
      if (!isSse) observeExchange.json(exchange, "");
      return new Response(null, { status: upstream.status, headers: outHeaders });
    }
    if (isSse) {
      // The tap decides what a client going away means: a call's answer is still read and recorded.
      // Every SSE answer passes the tap, recorded or not: it ends streams that go silent.
      req.signal.removeEventListener("abort", onClientGone);
      const stream = observeExchange.sse(exchange, upstream.body, () => ctrl.abort());
      return new Response(stream, { status: upstream.status, headers: outHeaders });
    }
    // JSON answers are read whole, within a limit: a huge or endless body costs bounded memory.
    let text: string | null;
    try {
      text = await observeExchange.readJson(upstream.body, limits.maxJsonBytes, timeoutMs);
    } catch (err) {
      req.signal.removeEventListener("abort", onClientGone);
      if (req.signal.aborted) return detailResponse(499, "the client went away");
      const why = err instanceof Error ? err.message : String(err);
      return fail(
        err instanceof Error && err.name === "BodyStalledError" ? 504 : 502,
        `${describeServer(entry)}: ${why} (${orsPath})`,
        err instanceof Error && err.name === "BodyStalledError" ? "timeout" : "unreachable",
      );
    }
    req.signal.removeEventListener("abort", onClientGone);
    if (text === null)
      return fail(
        502,
        `${describeServer(entry)} sent a JSON answer larger than ${limits.maxJsonBytes} bytes to ${orsPath}; refused`,
        "not-ors",
      );
    observeExchange.json(exchange, text);
    return new Response(text, { status: upstream.status, headers: outHeaders });
  }

  return {
    events,
    handle: async (req, name, orsPath) => {
      try {
        return await handle(req, name, orsPath);
      } catch (err) {
        console.error(`relay: internal error relaying to "${name}" ${orsPath}:`, (err as Error).message);
        return detailResponse(502, `relay error: ${(err as Error).message}`);
      }
    },
  };
}

/** Headers of an upstream answer passed on unchanged: `Retry-After` (of a 429 or a 503). */
function passedOn(upstream: Response): Record<string, string> {
  const retryAfter = upstream.headers.get("retry-after");
  return retryAfter ? { "retry-after": retryAfter } : {};
}

/**
 * Maps a redirect Location into the relay when it points at the same server (same origin, under
 * its base path): `http://srv/math/tools` → `/api/servers/<name>/math/tools`. Null otherwise.
 */
export function mapRedirect(
  entry: ServerEntry,
  name: string,
  orsPath: string,
  location: string,
): string | null {
  const base = entry.source === "builtin" ? new URL("http://local.invalid/") : new URL(`${entry.url}/`);
  let target: URL;
  try {
    target = new URL(location, new URL(`.${orsPath}`, base));
  } catch {
    return null;
  }
  if (target.origin !== base.origin) return null;
  const basePath = base.pathname.replace(/\/+$/, "");
  if (basePath && !(target.pathname === basePath || target.pathname.startsWith(`${basePath}/`))) return null;
  const rest = target.pathname.slice(basePath.length) || "/";
  return `/api/servers/${encodeURIComponent(name)}${rest}${target.search}`;
}
