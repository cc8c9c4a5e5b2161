// The protocol log's side of the relay (lib/trajectory/FORMAT.md "Protocol log"): what one request
// and its answer looked like — method, path, the headers that matter, bodies within a cap, status,
// timing — published as an `exchange` RelayEvent for the recorder. Secrets never leave: the API key
// is masked, `X-Secrets` keeps only the names of the secrets, a `/create` body's `secrets` only their
// names too. An answer is copied only up to the cap as it passes (never read whole to be logged).
import "server-only";
import type { ExchangeSide, NewExchange } from "@/lib/trajectory/schema";
import type { RelayEvents } from "./events";

/** Characters of each body kept in the log (request and answer each); `size` says the whole size. */
export const EXCHANGE_BODY_CHARS = 64 * 1024;

/** The request headers the log shows (values as sent to the server), besides the masked ones. */
const SHOWN_HEADERS = ["x-session-id", "accept", "content-type", "x-deployment"] as const;
export const MASK = "***";

const decoder = new TextDecoder();

/** `X-Secrets` as the log shows it: the names of the secrets, never their values. */
export function maskSecretsHeader(raw: string): string {
  try {
    const v = JSON.parse(Buffer.from(raw.trim(), "base64").toString("utf8")) as unknown;
    if (v && typeof v === "object" && !Array.isArray(v)) {
      const names = Object.keys(v);
      return names.length ? `${MASK} (secrets: ${names.join(", ")})` : `${MASK} (no secrets)`;
    }
  } catch {
    // not base64 JSON: nothing of it is shown
  }
  return `${MASK} (not readable)`;
}

/** The headers of a relayed request as the log keeps them. */
export function shownHeaders(sent: Headers): Record<string, string> {
  const out: Record<string, string> = {};
  for (const h of SHOWN_HEADERS) {
    const v = sent.get(h);
    if (v !== null) out[h] = v;
  }
  if (sent.has("x-api-key")) out["x-api-key"] = MASK;
  const secrets = sent.get("x-secrets");
  if (secrets !== null) out["x-secrets"] = maskSecretsHeader(secrets);
  return out;
}

/** Text as the log keeps it: NUL, which PostgreSQL's text cannot hold, shown as U+FFFD. */
function clean(text: string): string {
  return text.includes("\u0000") ? text.replaceAll("\u0000", "\uFFFD") : text;
}

/** A body cut to the cap, with its whole size (bytes) and whether it was cut. */
function side(text: string, size: number): ExchangeSide {
  return text.length > EXCHANGE_BODY_CHARS
    ? { body: clean(text.slice(0, EXCHANGE_BODY_CHARS)), size, truncated: true }
    : { body: clean(text), size };
}

/**
 * A request body as the log keeps it. A `/create` body's `secrets` keep their names only (the body
 * is written again, compact); a `/create` body that is not JSON is not kept at all (it may hold them).
 */
export function requestBodyOf(endpoint: string, body: Uint8Array | undefined): ExchangeSide {
  if (!body || body.byteLength === 0) return { body: "", size: 0 };
  const size = body.byteLength;
  if (endpoint !== "create") {
    if (size <= EXCHANGE_BODY_CHARS) return side(decoder.decode(body), size);
    const text = decoder.decode(body.subarray(0, EXCHANGE_BODY_CHARS));
    return { body: clean(text.slice(0, EXCHANGE_BODY_CHARS)), size, truncated: true };
  }
  const text = decoder.decode(body);
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    return { body: "[not kept: this /create body is not JSON and may hold secrets]", size, truncated: true };
  }
  if (!v || typeof v !== "object" || Array.isArray(v) || !("secrets" in v)) return side(text, size);
  const s = (v as { secrets: unknown }).secrets;
  const masked =
    s && typeof s === "object" && !Array.isArray(s)
      ? Object.fromEntries(Object.keys(s).map((k) => [k, MASK]))
      : MASK;
  try {
    return side(JSON.stringify({ ...(v as object), secrets: masked }), size);
  } catch {
    // Nested too deep to write again (JSON.stringify recurses): not kept, since it holds secrets.
    return {
      body: "[not kept: this /create body holds secrets and is nested too deep to show without them]",
      size,
      truncated: true,
    };
  }
}

/** An answer's body as it passes: the first characters kept, every byte counted. */
export class AnswerCapture {
  private parts: string[] = [];
  private chars = 0;
  private bytes = 0;
  private keptBytes = 0;
  private decoding = false;
  private readonly decoder = new TextDecoder();

  add(chunk: string | Uint8Array): void {
    const room = EXCHANGE_BODY_CHARS - this.chars;
    if (typeof chunk === "string") {
      const n = Buffer.byteLength(chunk);
      this.bytes += n;
      if (room <= 0) return;
      this.flushDecoder();
      const kept = chunk.length > room ? chunk.slice(0, room) : chunk;
      this.parts.push(kept);
      this.chars += kept.length;
      this.keptBytes += kept === chunk ? n : Buffer.byteLength(kept);
      return;
    }
    this.bytes += chunk.byteLength;
    if (room <= 0) return;
    // At most `room` bytes decode to at most `room` characters; the decoder copies them.
    const shown = chunk.byteLength > room ? chunk.subarray(0, room) : chunk;
    this.keptBytes += shown.byteLength;
    const text = this.decoder.decode(shown, { stream: true });
    this.decoding = true;
    this.parts.push(text);
    this.chars += text.length;
  }

  private flushDecoder(): void {
    if (!this.decoding) return;
    this.decoding = false;
    const rest = this.decoder.decode();
    if (rest) {
      this.parts.push(rest);
      this.chars += rest.length;
    }
  }

  result(): ExchangeSide {
    this.flushDecoder();
    const text = this.parts.length === 1 ? this.parts[0]! : this.parts.join("");
    return this.bytes > this.keptBytes
      ? { body: clean(text.slice(0, EXCHANGE_BODY_CHARS)), size: this.bytes, truncated: true }
      : { body: clean(text), size: this.bytes };
  }
}

/** A JSON (or any whole) answer body as the log keeps it. */
export function answerBodyOf(text: string): ExchangeSide {
  return side(text, Buffer.byteLength(text));
}

/** What the relay knows of one exchange for its log, from the moment its request was read. */
export interface ExchangeLog {
  server: string;
  sid?: string;
  env: string | null;
  endpoint: string;
  /** The relay's id of a `/call` (its step's callId). */
  callId?: string;
  at: number;
  method: string;
  path: string;
  request: NewExchange["request"];
  events: RelayEvents;
  /** Set once published (an exchange is logged once). */
  done?: boolean;
  /** The acknowledgement of its publication (lib/relay/events.ts), once published. */
  ack?: Promise<void>;
}

/** Publishes the exchange, once: its answer's status, type and body, and how long it took. */
export function publishExchange(
  log: ExchangeLog,
  status: number,
  contentType: string,
  response: ExchangeSide,
  sessionCreated?: string,
): void {
  if (log.done) return;
  log.done = true;
  const now = Date.now();
  const exchange: NewExchange = {
    at: log.at,
    ms: now - log.at,
    method: log.method,
    path: log.path,
    status,
    request: log.request,
    response: { contentType, ...response },
  };
  log.ack = log.events.emit({
    type: "exchange",
    server: log.server,
    ...(log.sid ? { sid: log.sid } : {}),
    env: log.env,
    endpoint: log.endpoint,
    ...(log.callId ? { callId: log.callId } : {}),
    ...(sessionCreated ? { sessionCreated } : {}),
    exchange,
    at: now,
  });
}
