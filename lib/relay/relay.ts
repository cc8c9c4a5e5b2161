// The recording relay (docs/architecture.md "The recording relay", "Security"): plain ORS in at
// /api/servers/<name>/<ORS path>, forwarded to that known server (in process for `local`), the
// answer streamed back unbuffered, and what passes published as RelayEvents (./events) — the
// episode's steps and its protocol log. A pipeline: `admit` (./admit.ts: may it pass, and to which
// upstream), the `Upstream` (./upstream.ts: the built-in host or a remote server), `answer`
// (./answer.ts: JSON, SSE through the tap, errors); two thin ways in (./io.ts): a fetch Request
// (Next's route, in-process clients) and node:http (the server entry's fast path).
import "server-only";
import { randomBytes } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { SETTINGS } from "@/lib/config";
import { describeNetworkError } from "@/lib/ors/protocol/network-error";
import type { ServerRegistry } from "@/lib/registry";
import { createPinnedFetch, type PinnedFetch } from "@/lib/security/pinned-fetch";
import { admit, type RelayContext, type Target } from "./admit";
import { detailAnswer } from "./answer";
import { createRelayEvents, type RelayEvents } from "./events";
import { nodeRequest, type RelayAnswer, type RelayRequest, toResponse, webRequest, writeNode } from "./io";
import { DEFAULT_RELAY_LIMITS, type RelayLimits } from "./observe";
import { mapRedirect } from "./paths";
import { withToolFormat } from "./tool-formats";
import type { UpstreamAnswer } from "./upstream";

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

export { CALL_ID_HEADER } from "./annotations";
export { LOOP_HEADER } from "./loop";
export { mapRedirect, orsPathFromUrl } from "./paths";

/** Sends an admitted request upstream within the time limit for its answer to start, and answers it. */
async function forward(req: RelayRequest, t: Target, timeoutMs: number): Promise<RelayAnswer> {
  const r = t.responder;
  const ctrl = new AbortController();
  const stopListening = req.onGone(() => ctrl.abort(new DOMException("the client went away", "AbortError")));
  let timer: ReturnType<typeof setTimeout> | undefined;
  let timedOut = false;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      timedOut = true;
      reject(new DOMException("timed out", "TimeoutError"));
    }, timeoutMs);
  });
  const started = Date.now();
  try {
    let up: UpstreamAnswer;
    try {
      up = await Promise.race([
        t.upstream.send({
          method: t.method,
          path: t.path,
          headers: t.headers,
          body: t.body,
          signal: ctrl.signal,
        }),
        timeout,
      ]);
    } catch (err) {
      if (timedOut)
        return r.fail(
          504,
          `${t.upstream.described} timed out after ${Math.round(timeoutMs / 1000)} s (no answer to ${t.orsPath})`,
          "timeout",
        );
      if (req.gone) return r.detail(499, "the client went away");
      if (t.upstream.builtin) {
        console.error(`relay: the built-in host failed on ${t.orsPath}:`, (err as Error).message);
        return r.fail(502, `the built-in host failed: ${(err as Error).message}`, "unreachable");
      }
      return r.fail(
        502,
        `${t.upstream.described} is unreachable: ${describeNetworkError(err)}`,
        "unreachable",
      );
    } finally {
      clearTimeout(timer);
    }
    r.x.started = started;
    return await r.answer(up, {
      req,
      described: t.upstream.described,
      orsPath: t.orsPath,
      mapRedirect: (location) => mapRedirect(t.entry, t.name, t.orsPath, location),
      timeoutMs,
    });
  } finally {
    // From here the tap decides what a client going away means (a call's answer is still read).
    stopListening();
  }
}

export function createRelay(options: RelayOptions): Relay {
  const timeoutMs = options.timeoutMs ?? SETTINGS.PLAYGROUND_RELAY_TIMEOUT_MS.fallback;
  const events = options.events ?? createRelayEvents();
  const context: RelayContext = {
    registry: options.registry,
    events,
    tasks: new Map(),
    // A stream that goes silent for as long as an answer may take to start is ended too.
    limits: { ...DEFAULT_RELAY_LIMITS, streamIdleMs: timeoutMs, ...options.limits },
    loopMark: options.loopMark ?? randomBytes(18).toString("base64url"),
    maxBodyBytes: options.maxBodyBytes ?? 16 * 1024 * 1024,
    remoteFetch: options.pinnedFetch ?? createPinnedFetch(),
  };

  const relayOnce = async (req: RelayRequest, name: string, orsPath: string): Promise<RelayAnswer> => {
    const admitted = await admit(req, name, orsPath, context);
    const answer = "target" in admitted ? await forward(req, admitted.target, timeoutMs) : admitted.answer;
    // What a whole answer reports is recorded before it leaves (./events.ts "Acknowledgement");
    // a streamed answer's tap waits for its own.
    await ("target" in admitted ? admitted.target.responder : admitted.responder)?.settled();
    return answer;
  };

  const serve = async (req: RelayRequest, name: string, orsPath: string): Promise<RelayAnswer> => {
    try {
      // GET …/tools?format=openai|anthropic|gemini: the server's answer in that shape (./tool-formats.ts).
      return (
        (await withToolFormat(req, orsPath, (r) => relayOnce(r, name, orsPath))) ??
        (await relayOnce(req, name, orsPath))
      );
    } catch (err) {
      console.error(`relay: internal error relaying to "${name}" ${orsPath}:`, (err as Error).message);
      return detailAnswer(502, `relay error: ${(err as Error).message}`);
    }
  };

  return {
    events,
    handle: async (req, name, orsPath) => toResponse(await serve(webRequest(req), name, orsPath)),
    handleNode: async (req, res, name, orsPath, headers) => {
      const answer = await serve(nodeRequest(req, res), name, orsPath);
      try {
        writeNode(answer, res, headers);
      } catch (err) {
        console.error(`relay: could not write the answer of "${name}" ${orsPath}:`, (err as Error).message);
        res.destroy();
      }
    },
  };
}
