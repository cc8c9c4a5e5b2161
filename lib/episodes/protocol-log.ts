// The recorder's side of the protocol log (FORMAT.md "Protocol log"): which episode each relayed
// request belongs to, its place in that episode's log (the store numbers it, within the caps), and
// the `exchange` event on the episode's live feed. A request names its episode by its session
// (X-Session-ID); `/create_session` by the session it answered, held until that session's `/create`
// starts the episode; an environment's `/tools` without a session by the episode last started on
// that server and environment, within a minute (the playground's own fallback when a server lacks
// `/task_tools`). Any other request without a session is in no episode's log.
import "server-only";
import { type Env, settingsOrDefault } from "@/lib/config";
import type { RelayEvent } from "@/lib/relay/events";
import type { ExchangeLimit } from "../store/types";
import type { RecordingStore } from "./record-writes";

type ExchangeEvent = Extract<RelayEvent, { type: "exchange" }>;

/** Exchanges kept per episode by default, and characters (bodies and headers together). */
const EXCHANGE_SETTINGS = {
  count: "PLAYGROUND_MAX_EXCHANGES",
  chars: "PLAYGROUND_MAX_EXCHANGE_CHARS",
} as const;

export const DEFAULT_EXCHANGE_LIMIT: ExchangeLimit = settingsOrDefault({}, EXCHANGE_SETTINGS);

/** The caps from PLAYGROUND_MAX_EXCHANGES and PLAYGROUND_MAX_EXCHANGE_CHARS (0 keeps no log). */
export function exchangeLimitFrom(env: Env): ExchangeLimit {
  return settingsOrDefault(env, EXCHANGE_SETTINGS);
}

/** How long a `/create_session`'s exchange waits for its episode, and a sessionless `/tools` looks back. */
const WAIT_MS = 60_000;
/** Sessions whose exchanges wait for their episode, at most; and characters held for all of them. */
const MAX_WAITING = 256;
const MAX_WAITING_CHARS = 4 * 1024 * 1024;
/** Exchanges one session may hold before its episode starts. */
const MAX_WAITING_EACH = 8;
/** Episodes remembered as the last started on a server and environment. */
const MAX_RECENT = 256;

export interface ProtocolLog {
  /** Takes one `exchange` event (the recorder applies them in order). */
  add(e: ExchangeEvent): Promise<void>;
  /** An episode started (its `/create`): the exchanges its session made before are logged first. */
  started(id: string, server: string, sid: string, env: string | null, at: number): Promise<void>;
}

const charsOf = (e: ExchangeEvent) => e.exchange.request.body.length + e.exchange.response.body.length + 256;

export function createProtocolLog(
  store: Pick<RecordingStore, "findRunning" | "findBySession" | "logExchange">,
  limit: ExchangeLimit,
): ProtocolLog {
  const waiting = new Map<string, { since: number; items: ExchangeEvent[] }>();
  let waitingChars = 0;
  const recent = new Map<string, { id: string; at: number }>();
  const key = (server: string, part: string) => `${server}\n${part}`;

  const forget = (k: string) => {
    const w = waiting.get(k);
    if (!w) return;
    waiting.delete(k);
    for (const e of w.items) waitingChars -= charsOf(e);
  };
  const hold = (k: string, e: ExchangeEvent) => {
    const now = e.at;
    // The oldest go first: expired, then beyond the counts.
    for (const [old, w] of waiting) {
      if (now - w.since <= WAIT_MS && waiting.size < MAX_WAITING && waitingChars < MAX_WAITING_CHARS) break;
      forget(old);
    }
    let w = waiting.get(k);
    if (!w) {
      w = { since: now, items: [] };
      waiting.set(k, w);
    }
    if (w.items.length >= MAX_WAITING_EACH) return;
    w.items.push(e);
    waitingChars += charsOf(e);
  };

  const log = (id: string, e: ExchangeEvent) => {
    if (limit.count === 0) return;
    const x = e.exchange;
    store.logExchange(id, x, limit, (seq) => ({
      type: "exchange",
      id,
      seq,
      at: x.at,
      method: x.method,
      path: x.path,
      status: x.status,
      ms: x.ms,
    }));
  };

  return {
    async add(e) {
      if (e.sid) {
        const t = (await store.findRunning(e.server, e.sid)) ?? (await store.findBySession(e.server, e.sid));
        if (t) return log(t.id, e);
        // A request of a session whose episode has not started (yet): it waits for its /create.
        return hold(key(e.server, e.sid), e);
      }
      if (e.sessionCreated) return hold(key(e.server, e.sessionCreated), e);
      if (e.endpoint === "tools" && e.env !== null) {
        const r = recent.get(key(e.server, e.env));
        if (r && e.exchange.at - r.at <= WAIT_MS) return log(r.id, e);
      }
    },
    async started(id, server, sid, env, at) {
      recent.delete(key(server, env ?? ""));
      recent.set(key(server, env ?? ""), { id, at });
      if (recent.size > MAX_RECENT) recent.delete(recent.keys().next().value!);
      const k = key(server, sid);
      const w = waiting.get(k);
      if (!w) return;
      forget(k);
      for (const e of w.items) log(id, e);
    },
  };
}
