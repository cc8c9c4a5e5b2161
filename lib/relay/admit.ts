// The first stage of the relay's pipeline: whether a request may be relayed at all, and where to. ORS
// shapes and methods only (./request-shape.ts), no loop back to this relay (./loop.ts), a known
// server, an address the policy allows (the one connected to: no second DNS lookup), a server added
// at run time only once it answers like an ORS server, a body within its limit. What comes out is the
// request as it will be sent — the forwarded headers only, never the x-playground-* annotations,
// which are decoded here for the recorder — with its upstream and its responder, or the refusal.
import "server-only";
import { RELAY_FAILURE_HEADER } from "@/lib/ors/protocol";
import type { ServerEntry, ServerRegistry } from "@/lib/registry";
import type { PinnedFetch } from "@/lib/security/pinned-fetch";
import {
  AGENT_HEADER,
  CALL_ID_HEADER,
  CLIENT_HEADER,
  decodeAnnotation,
  RUN_HEADER,
  STEP_HEADER,
} from "./annotations";
import { detailAnswer, Responder } from "./answer";
import type { RelayEvents } from "./events";
import { type ExchangeLog, requestBodyOf, shownHeaders } from "./exchange-log";
import type { RelayAnswer, RelayRequest } from "./io";
import { LOOP_HEADER, MAX_MARKS, marksOf } from "./loop";
import { type Exchange, envOf, type RelayLimits, type TaskCalls } from "./observe";
import { describeServer } from "./paths";
import { checkRelayRequest } from "./request-shape";
import { builtinUpstream, remoteUpstream, type Upstream } from "./upstream";

/** What every request of one relay shares. */
export interface RelayContext {
  registry: ServerRegistry;
  events: RelayEvents;
  tasks: TaskCalls;
  limits: RelayLimits;
  /** This relay's mark on the requests it sends (./loop.ts). */
  loopMark: string;
  maxBodyBytes: number;
  remoteFetch: PinnedFetch;
}

/** An admitted request: as it will be sent, to whom, and who answers it. */
export interface Target {
  name: string;
  orsPath: string;
  entry: ServerEntry;
  upstream: Upstream;
  method: string;
  /** The upstream path, rebuilt from the route. */
  path: string;
  headers: Headers;
  body: Uint8Array | undefined;
  responder: Responder;
}

export type Admission = { target: Target } | { answer: RelayAnswer; responder?: Responder };

/** The headers a relayed request carries on (and the server's API key when the client sent none). */
const FORWARDED_HEADERS = [
  "x-session-id",
  "x-api-key",
  "x-secrets",
  "x-deployment",
  "accept",
  "content-type",
];
const CALL_ID = /^[A-Za-z0-9_-]{8,64}$/;

function callIdOf(header: string | null): string {
  return header && CALL_ID.test(header) ? header : crypto.randomUUID();
}

const refused = (status: number, detail: string, more?: Record<string, string>): Admission => ({
  answer: detailAnswer(status, detail, { [RELAY_FAILURE_HEADER]: "refused", ...more }),
});

/** What the relay knows of the request while it passes, for the recorder (./observe.ts). */
function exchangeOf(
  req: RelayRequest,
  name: string,
  orsPath: string,
  route: Exchange["route"],
  c: RelayContext,
) {
  const listening = c.events.hasListeners();
  const x: Exchange = {
    server: name,
    sid: req.header("x-session-id") ?? undefined,
    route,
    orsPath,
    listening,
    events: c.events,
    tasks: c.tasks,
    limits: c.limits,
    callId: callIdOf(req.header(CALL_ID_HEADER)),
    deployment: req.header("x-deployment"),
  };
  const endpoint = route.kind === "unknown" ? "" : route.endpoint;
  if (listening) {
    const run = endpoint === "create" ? decodeAnnotation(req.header(RUN_HEADER)) : undefined;
    const client = endpoint === "create" ? decodeAnnotation(req.header(CLIENT_HEADER)) : undefined;
    const agent = endpoint === "call" ? decodeAnnotation(req.header(AGENT_HEADER)) : undefined;
    const step = endpoint === "call" ? decodeAnnotation(req.header(STEP_HEADER)) : undefined;
    if (run !== undefined || client !== undefined || agent !== undefined || step !== undefined)
      x.annotations = { run, client, agent, step };
  }
  return x;
}

/** The protocol log's record of the request (./exchange-log.ts), when anyone listens. */
function logOf(req: RelayRequest, x: Exchange, headers: Headers): ExchangeLog | null {
  if (!x.listening || x.route.kind === "unknown") return null;
  const endpoint = x.route.endpoint;
  return {
    server: x.server,
    ...(x.sid ? { sid: x.sid } : {}),
    env: envOf(x),
    endpoint,
    ...(endpoint === "call" ? { callId: x.callId } : {}),
    at: Date.now(),
    method: req.method,
    path: x.orsPath,
    request: { headers: shownHeaders(headers), body: "", size: 0 },
    events: x.events,
  };
}

export async function admit(
  req: RelayRequest,
  name: string,
  orsPath: string,
  c: RelayContext,
): Promise<Admission> {
  // Which browsers may use the relay at all (same-origin writes, allowed Hosts, the access token) is
  // the request policy's, applied to every request by the app's server entry (lib/security).
  const shape = checkRelayRequest(req.method, orsPath, req.search);
  if (!shape.ok) return refused(shape.status, shape.detail, shape.allow ? { allow: shape.allow } : undefined);
  const marks = marksOf(req.header(LOOP_HEADER));
  if (marks.includes(c.loopMark))
    return refused(
      508,
      `refused: this request came back to the relay that sent it (server "${name}" leads back to this app: a loop)`,
    );
  const entry = await c.registry.get(name);
  if (!entry) {
    const known = (await c.registry.list()).map((s) => s.name).join(", ");
    return { answer: detailAnswer(404, `unknown server "${name}" (known: ${known})`) };
  }

  const x = exchangeOf(req, name, orsPath, shape.route, c);
  const headers = new Headers({ [LOOP_HEADER]: [...marks.slice(-(MAX_MARKS - 1)), c.loopMark].join(",") });
  for (const h of FORWARDED_HEADERS) {
    const v = req.header(h);
    if (v !== null) headers.set(h, v);
  }
  if (!headers.has("x-api-key") && entry.apiKey) headers.set("x-api-key", entry.apiKey);
  // From here on every answer is logged, once.
  const log = logOf(req, x, headers);
  const responder = new Responder(x, log);

  const upstream = await upstreamOf(entry, c, responder);
  if (!("send" in upstream)) return { answer: upstream, responder };
  let body: Uint8Array | undefined;
  if (req.method !== "GET" && req.method !== "HEAD") {
    const read = await req.readBody(c.maxBodyBytes);
    if (read === null)
      return { answer: responder.detail(413, `request body larger than ${c.maxBodyBytes} bytes`), responder };
    body = read;
    x.requestBody = body;
    if (log) log.request = { headers: log.request.headers, ...requestBodyOf(shape.route.endpoint, body) };
  }
  return {
    target: {
      name,
      orsPath,
      entry,
      upstream,
      method: req.method,
      path: shape.path,
      headers,
      body,
      responder,
    },
  };
}

/** The server's upstream: the built-in host, or a remote one at the addresses the policy allows. */
async function upstreamOf(
  entry: ServerEntry,
  c: RelayContext,
  r: Responder,
): Promise<Upstream | RelayAnswer> {
  if (entry.source === "builtin") return builtinUpstream(entry.name, c.registry.localHandler());
  const described = describeServer(entry);
  const verdict = await c.registry.checkAddress(entry);
  if (!verdict.ok)
    return r.detail(403, `refused: ${described}: ${verdict.reason}`, { [RELAY_FAILURE_HEADER]: "refused" });
  // A server added at run time gets nothing until it answers like an ORS server.
  const ors = await c.registry.checkOrsServer(entry, verdict.addresses);
  if (!ors.ok) return r.fail(ors.status, `${described} ${ors.reason}`, ors.failure);
  return remoteUpstream(entry.name, entry.url, c.remoteFetch, verdict.addresses);
}
