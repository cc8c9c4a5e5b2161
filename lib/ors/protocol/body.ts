// Reading a body whole within a size limit (and, optionally, a stall limit) without ever holding
// more than the limit: request bodies (the host, the relay, the app's APIs) and the answers the
// relay reads whole. Isomorphic (web streams only).

/** Thrown by readWithin when the sender stops sending in the middle of a body. */
export class BodyStalledError extends Error {
  constructor(readonly ms: number) {
    super(`the sender stopped sending for ${Math.round(ms / 1000)} s`);
    this.name = "BodyStalledError";
  }
}

export interface ReadWithinOptions {
  /** A declared `Content-Length`: beyond the limit, nothing is read. */
  declaredLength?: string | null;
  /** Gives up (BodyStalledError) when nothing arrives for this long. */
  idleMs?: number;
}

/** The whole body, or null when it is larger than `limit` bytes (what was read is dropped, the rest cancelled). */
export async function readWithin(
  body: ReadableStream<Uint8Array> | null,
  limit: number,
  o: ReadWithinOptions = {},
): Promise<Uint8Array | null> {
  if (o.declaredLength != null && Number(o.declaredLength) > limit) {
    body?.cancel().catch(() => {});
    return null;
  }
  if (!body) return new Uint8Array(0);
  const reader = body.getReader();
  const parts: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const next = o.idleMs
      ? await Promise.race([
          reader.read(),
          new Promise<"stalled">((resolve) => {
            timer = setTimeout(() => resolve("stalled"), o.idleMs);
          }),
        ]).finally(() => clearTimeout(timer))
      : await reader.read();
    if (next === "stalled") {
      reader.cancel().catch(() => {});
      throw new BodyStalledError(o.idleMs!);
    }
    if (next.done) break;
    total += next.value.byteLength;
    if (total > limit) {
      reader.cancel().catch(() => {});
      return null;
    }
    parts.push(next.value);
  }
  if (parts.length === 1) return parts[0]!;
  const out = new Uint8Array(total);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.byteLength;
  }
  return out;
}
