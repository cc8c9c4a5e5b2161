// A fetch handler's side of node:http for the test servers that wrap one (tests/relay/helpers.ts,
// tests/replicas/replica-server.ts): a request's headers, and its Response written back streamed.
// No lib/ import: the replica process loads it before its server-only hook is in place.
import type { IncomingMessage, ServerResponse } from "node:http";

/** A node request's single-valued headers, as a fetch Request carries them. */
export function headersOf(req: IncomingMessage): Headers {
  const headers = new Headers();
  for (const [k, v] of Object.entries(req.headers)) if (typeof v === "string") headers.set(k, v);
  return headers;
}

/**
 * Writes `answer` to `res` as it streams. The client going away cancels the answer (as Next
 * does), and writes wait for the socket. `onChunk` sees each piece and may return "drop" to destroy
 * the socket before writing it, or "drop-after" to write it and then destroy the socket.
 */
export async function writeFetchAnswer(
  res: ServerResponse,
  answer: Response,
  onChunk?: (bytes: Uint8Array) => "drop" | "drop-after" | undefined,
): Promise<void> {
  const out: Record<string, string> = {};
  answer.headers.forEach((v, k) => {
    out[k] = v;
  });
  res.writeHead(answer.status, out);
  res.flushHeaders();
  if (!answer.body) return void res.end();
  const reader = answer.body.getReader();
  res.on("close", () => void reader.cancel().catch(() => {}));
  for (;;) {
    const r = await reader.read().catch(() => null);
    if (!r) return void res.destroy();
    if (r.done) break;
    const verdict = onChunk?.(r.value);
    if (verdict === "drop-after") res.write(r.value);
    if (verdict) {
      reader.cancel().catch(() => {});
      // Let the written piece leave before the connection is cut.
      if (verdict === "drop-after") await new Promise((r) => setTimeout(r, 20));
      res.socket?.destroy();
      return;
    }
    if (!res.write(r.value) && !res.destroyed)
      await new Promise((resolve) => res.once("drain", resolve).once("close", resolve));
    if (res.destroyed) return;
  }
  res.end();
}
