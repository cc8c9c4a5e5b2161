// Streamed answers: one piece after another, pulled at the reader's pace (an export never sits in
// memory whole), and the one NDJSON answer (exports, the check's progress), one JSON value a line,
// with the headers that keep proxies and compression from holding lines back.
import "server-only";
import { noStore } from "./route";

export const NDJSON_HEADERS: Readonly<Record<string, string>> = {
  "Content-Type": "application/x-ndjson; charset=utf-8",
  // no-transform: keeps compression from holding the lines back.
  "Cache-Control": "no-store, no-transform",
  "X-Accel-Buffering": "no",
};

/**
 * Streams the pieces `pieces` yields as the body of an answer with `headers`. The first piece is
 * made before the answer starts, so a failure there is an error answer (the route wrapper's), never
 * a connection closed with no answer; a reader that goes away ends the iteration.
 */
export async function streamResponse(pieces: AsyncIterable<string>, headers: HeadersInit): Promise<Response> {
  const it = pieces[Symbol.asyncIterator]();
  const encoder = new TextEncoder();
  let first: IteratorResult<string> | null = await it.next();
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      const next = first ?? (await it.next());
      first = null;
      if (next.done) controller.close();
      else controller.enqueue(encoder.encode(next.value));
    },
    async cancel() {
      await it.return?.(undefined);
    },
  });
  return new Response(body, { headers });
}

async function* linesOf<T>(values: AsyncIterable<T>, line: (value: T) => string): AsyncGenerator<string> {
  for await (const v of values) yield line(v);
}

/** Streams `values` one a line (by default its JSON), never more than one in memory. */
export function ndjsonResponse<T>(
  values: AsyncIterable<T>,
  o: { filename?: string; line?: (value: T) => string } = {},
): Promise<Response> {
  const headers: Record<string, string> = { ...noStore, ...NDJSON_HEADERS };
  if (o.filename) headers["Content-Disposition"] = `attachment; filename="${o.filename}"`;
  return streamResponse(linesOf(values, o.line ?? ((v: T) => `${JSON.stringify(v)}\n`)), headers);
}

/** What a pushed NDJSON stream writes to. */
export interface NdjsonWriter {
  /** Writes one line (nothing once the reader is gone). */
  send(value: unknown): void;
  /** Aborted when the reader goes away. */
  readonly signal: AbortSignal;
}

/**
 * An NDJSON answer that `produce` pushes lines into as they happen (a check reporting each result);
 * the stream ends when `produce` settles, and `produce`'s signal aborts when the reader goes away.
 */
export function ndjsonPush(produce: (w: NdjsonWriter) => Promise<void>, signal?: AbortSignal): Response {
  const encoder = new TextEncoder();
  const stop = new AbortController();
  const onGone = () => stop.abort(new Error("the reader went away"));
  signal?.addEventListener("abort", onGone, { once: true });
  const body = new ReadableStream<Uint8Array>({
    async start(controller) {
      const send = (value: unknown) => {
        if (stop.signal.aborted) return;
        try {
          controller.enqueue(encoder.encode(`${JSON.stringify(value)}\n`));
        } catch {
          // The reader is gone; the abort stops the producer.
        }
      };
      try {
        await produce({ send, signal: stop.signal });
      } finally {
        signal?.removeEventListener("abort", onGone);
        try {
          controller.close();
        } catch {
          // already cancelled
        }
      }
    },
    cancel() {
      onGone();
    },
  });
  return new Response(body, { headers: { ...noStore, ...NDJSON_HEADERS } });
}
