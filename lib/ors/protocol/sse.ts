// SSE framing and parsing for ORS tool calls (spec: ors-sse.txt). One formatter for the host,
// one parser (eventsource-parser) for the client, the relay, the UI and tests. Isomorphic.
import { createParser } from "eventsource-parser";
import { isStrippedByClients } from "./python-whitespace";

/** The size of one `chunk`/`end` piece of a serialized RunToolOutput (spec: 4096). */
export const SSE_CHUNK_SIZE = 4096;
/** How often a host sends a `: ping` comment while a tool runs (spec: every 10 s). */
export const SSE_PING_INTERVAL_MS = 10_000;

/**
 * The headers of every SSE answer (the host's, the relay's, the playground's feeds). no-transform
 * and x-accel-buffering: proxies (nginx), Next's compression and gzip must neither buffer nor
 * re-encode a stream.
 */
export const SSE_RESPONSE_HEADERS: Readonly<Record<string, string>> = {
  "content-type": "text/event-stream; charset=utf-8",
  "cache-control": "no-cache, no-transform",
  "x-accel-buffering": "no",
};

export type OrsSseEventName = "task_id" | "chunk" | "end" | "error";

/** One parsed frame of an SSE stream: an event, or a comment such as `: ping`. */
export type SseFrame =
  | { kind: "event"; event: string; data: string; id?: string }
  | { kind: "comment"; comment: string };

/**
 * Formats one SSE event. Data is split on line breaks into several `data:` lines, so any string
 * survives framing; an event name with a line break is refused (it would inject frames).
 */
export function formatSseEvent(event: string, data: string): string {
  if (/[\r\n]/.test(event)) throw new Error(`SSE event name must not contain a line break: ${event}`);
  const lines = data.split(/\r\n|\r|\n/);
  let out = `event: ${event}\n`;
  for (const line of lines) out += `data: ${line}\n`;
  return `${out}\n`;
}

/** Formats an SSE comment line (e.g. the keep-alive `: ping`). */
export function formatSseComment(comment: string): string {
  return `: ${comment.replace(/[\r\n]+/g, " ")}\n\n`;
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

/**
 * Whether a cut before index `i` of `s` is safe. It must never split a surrogate pair, and the next
 * piece must not begin with whitespace: the reference Python client strips leading whitespace from
 * SSE data (Python's `str.isspace`, U+0085 included; and the spec's JavaScript example trims it),
 * which would silently lose characters. The one table: ./python-whitespace.ts.
 * `strict` also keeps whitespace off the end of the piece before the cut (for trimming clients);
 * it is preferred, but text like "x y x y" has no strict cut at all.
 */
function isSafeCut(s: string, i: number, strict: boolean): boolean {
  const before = s.charCodeAt(i - 1);
  if (isHighSurrogate(before)) return false;
  if (i < s.length && isStrippedByClients(s.charCodeAt(i))) return false;
  return !(strict && isStrippedByClients(before));
}

/** The best cut in (floor, ceiling], searching back from the ceiling: strict first, then loose. */
function findCutBackward(s: string, floor: number, ceiling: number): number {
  for (const strict of [true, false]) {
    for (let cut = ceiling; cut > floor; cut--) if (isSafeCut(s, cut, strict)) return cut;
  }
  return -1;
}

/**
 * Splits a serialized result into pieces of at most `size` characters for `chunk`...`end` events.
 * The cut moves back by as few characters as needed so that no piece begins with whitespace (nor,
 * where possible, ends with it) and no surrogate pair is split; only inside a run of whitespace
 * longer than half a piece does a piece grow past `size`. Concatenating the pieces always gives
 * back `s` exactly.
 */
export function splitIntoChunks(s: string, size: number = SSE_CHUNK_SIZE): string[] {
  if (s.length <= size) return [s];
  const pieces: string[] = [];
  let start = 0;
  while (s.length - start > size) {
    const floor = start + Math.max(1, Math.floor(size / 2));
    let cut = findCutBackward(s, floor, start + size);
    if (cut < 0) {
      // A run of whitespace longer than half a piece: search forward for its end instead.
      cut = start + size + 1;
      while (cut < s.length && !isSafeCut(s, cut, false)) cut++;
    }
    if (cut >= s.length) break;
    pieces.push(s.slice(start, cut));
    start = cut;
  }
  pieces.push(s.slice(start));
  return pieces;
}

/**
 * Frames a serialized RunToolOutput as the ORS `chunk`... `end` events: every piece but the last
 * is a `chunk`, the last is `end`.
 */
export function formatResultEvents(resultJson: string, size: number = SSE_CHUNK_SIZE): string[] {
  const pieces = splitIntoChunks(resultJson, size);
  return pieces.map((piece, i) => formatSseEvent(i === pieces.length - 1 ? "end" : "chunk", piece));
}

/** Thrown (or reported) when an SSE stream breaks a size limit: a line or an event too long. */
export class SseLimitError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "SseLimitError";
  }
}

export interface SseParserLimits {
  /** The longest line (characters) before a line break; beyond it the stream is refused. */
  maxLineChars?: number;
  /** The most characters of one event (all its lines) before it is dispatched. */
  maxEventChars?: number;
}

export interface SseFrameParser {
  /** Feeds decoded text; throws SseLimitError past a limit. */
  feed(text: string): void;
  /** The stream ended: dispatches what is complete. */
  end(): void;
}

/**
 * A push parser of SSE text into frames (eventsource-parser underneath), bounded: a line without a
 * line break, or an event, longer than its limit throws SseLimitError instead of growing forever.
 */
export function createSseFrameParser(
  onFrame: (f: SseFrame) => void,
  limits: SseParserLimits = {},
): SseFrameParser {
  const maxLine = limits.maxLineChars ?? Number.POSITIVE_INFINITY;
  const maxEvent = limits.maxEventChars ?? Number.POSITIVE_INFINITY;
  let sinceLineBreak = 0;
  let sinceEvent = 0;
  const parser = createParser({
    onEvent: (e) => {
      sinceEvent = 0;
      onFrame({ kind: "event", event: e.event ?? "message", data: e.data, id: e.id });
    },
    onComment: (comment) => {
      sinceEvent = 0;
      onFrame({ kind: "comment", comment: comment.trim() });
    },
  });
  return {
    feed(text) {
      if (!text) return;
      const lastBreak = Math.max(text.lastIndexOf("\n"), text.lastIndexOf("\r"));
      sinceLineBreak = lastBreak < 0 ? sinceLineBreak + text.length : text.length - lastBreak - 1;
      if (sinceLineBreak > maxLine)
        throw new SseLimitError(`an SSE line longer than ${maxLine} characters without a line break`);
      sinceEvent += text.length;
      parser.feed(text);
      if (sinceEvent > maxEvent) throw new SseLimitError(`an SSE event longer than ${maxEvent} characters`);
    },
    end() {
      parser.reset({ consume: true });
    },
  };
}

/**
 * Parses an SSE byte stream into frames, as they arrive. Works on any `ReadableStream` of bytes
 * (fetch bodies in the browser and in Node). Stops reading when `signal` aborts; past a limit it
 * throws SseLimitError.
 */
export async function* readSseFrames(
  body: ReadableStream<Uint8Array>,
  signal?: AbortSignal,
  limits?: SseParserLimits,
): AsyncGenerator<SseFrame> {
  const queue: SseFrame[] = [];
  const parser = createSseFrameParser((f) => queue.push(f), limits);
  const reader = body.getReader();
  const decoder = new TextDecoder();
  const onAbort = () => {
    reader.cancel().catch(() => {});
  };
  signal?.addEventListener("abort", onAbort, { once: true });
  try {
    while (true) {
      if (signal?.aborted) return;
      const { done, value } = await reader.read();
      if (done) {
        parser.feed(decoder.decode());
        parser.end();
        while (queue.length) yield queue.shift()!;
        return;
      }
      parser.feed(decoder.decode(value, { stream: true }));
      while (queue.length) yield queue.shift()!;
    }
  } finally {
    signal?.removeEventListener("abort", onAbort);
    reader.releaseLock?.();
  }
}
