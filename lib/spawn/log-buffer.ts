// The log of a spawned server: its stdout and stderr cut into lines (UTF-8 decoded across chunks,
// terminal escapes removed, over-long lines cut), plus what the playground says about it, kept in a
// ring bounded in lines and characters whatever the process writes, and passed on to subscribers.
import "server-only";
import { StringDecoder } from "node:string_decoder";
import type { LogLine, LogStream } from "./types";

export interface LogBufferOptions {
  /** Lines kept (default 2,000). */
  maxLines?: number;
  /** Characters kept, all lines together (default 1 Mi). */
  maxChars?: number;
  /** Longest line kept; longer ones are cut, saying so (default 8 Ki characters). */
  maxLineChars?: number;
  now?: () => number;
}

export interface LogWriter {
  write(chunk: Buffer | string): void;
  /** Flushes a last line without a line break (the process ended). */
  end(): void;
}

export interface LogBuffer {
  /** A writer for one stream of one process. */
  writer(stream: Exclude<LogStream, "system">): LogWriter;
  /** A line of the playground's own (`started`, `exited with code 1`, ...). */
  system(text: string): LogLine;
  /** The lines kept (oldest first) and how many were dropped before them. */
  snapshot(): { lines: LogLine[]; dropped: number };
  /** The last `n` lines of `stream`, oldest first. */
  tail(stream: LogStream, n: number): LogLine[];
  /** Calls `listener` with each new line; returns the unsubscribe. A listener that throws is dropped. */
  subscribe(listener: (line: LogLine) => void): () => void;
}

/** CSI and OSC sequences (colours, cursor moves, titles) and stray control characters but tab. */
const ESCAPES =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: terminal escapes are control characters
  /\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[@-_]|[\x00-\x08\x0b-\x1f\x7f]/g;

/** What a line shows: after the last carriage return (a progress bar redrawn), without escapes. */
export function cleanLine(raw: string): string {
  const line = raw.endsWith("\r") ? raw.slice(0, -1) : raw;
  const cr = line.lastIndexOf("\r");
  return (cr >= 0 ? line.slice(cr + 1) : line).replace(ESCAPES, "");
}

export function createLogBuffer(options: LogBufferOptions = {}): LogBuffer {
  const maxLines = options.maxLines ?? 2000;
  const maxChars = options.maxChars ?? 1024 * 1024;
  const maxLineChars = options.maxLineChars ?? 8 * 1024;
  const now = options.now ?? Date.now;
  const ring: (LogLine | undefined)[] = new Array(maxLines);
  let start = 0;
  let count = 0;
  let chars = 0;
  let dropped = 0;
  let seq = 0;
  const listeners = new Set<(line: LogLine) => void>();

  const push = (stream: LogStream, text: string): LogLine => {
    const line: LogLine = { seq: ++seq, at: now(), stream, text };
    while (count > 0 && (count >= maxLines || chars + text.length > maxChars)) {
      chars -= ring[start]!.text.length;
      ring[start] = undefined;
      start = (start + 1) % maxLines;
      count--;
      dropped++;
    }
    ring[(start + count) % maxLines] = line;
    count++;
    chars += text.length;
    for (const listener of listeners) {
      try {
        listener(line);
      } catch {
        listeners.delete(listener);
      }
    }
    return line;
  };

  const cut = (text: string) =>
    text.length <= maxLineChars
      ? text
      : `${text.slice(0, maxLineChars)} … [line cut: ${text.length - maxLineChars} more characters]`;

  return {
    writer(stream) {
      const decoder = new StringDecoder("utf8");
      let pending = "";
      // A line already cut and shown: the rest of it, up to its line break, is skipped.
      let skipping = false;
      const take = (text: string) => {
        let from = 0;
        for (let nl = text.indexOf("\n"); nl >= 0; nl = text.indexOf("\n", from)) {
          const piece = text.slice(from, nl);
          from = nl + 1;
          if (skipping) {
            skipping = false;
            pending = "";
            continue;
          }
          push(stream, cut(cleanLine(pending + piece)));
          pending = "";
        }
        if (skipping) return;
        pending += text.slice(from);
        // Bounded even without a line break: cut what came so far, skip the rest of the line.
        if (pending.length > maxLineChars * 4) {
          push(
            stream,
            `${cleanLine(pending).slice(0, maxLineChars)} … [line cut: over ${maxLineChars * 4} characters without a line break]`,
          );
          pending = "";
          skipping = true;
        }
      };
      return {
        write(chunk) {
          take(typeof chunk === "string" ? chunk : decoder.write(chunk));
        },
        end() {
          take(decoder.end());
          if (pending && !skipping) push(stream, cut(cleanLine(pending)));
          pending = "";
          skipping = false;
        },
      };
    },
    system: (text) => push("system", cut(text)),
    snapshot() {
      const lines: LogLine[] = [];
      for (let i = 0; i < count; i++) lines.push(ring[(start + i) % maxLines]!);
      return { lines, dropped };
    },
    tail(stream, n) {
      const out: LogLine[] = [];
      for (let i = count - 1; i >= 0 && out.length < n; i--) {
        const line = ring[(start + i) % maxLines]!;
        if (line.stream === stream) out.push(line);
      }
      return out.reverse();
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}
