// A fetch that honours an ORS server at capacity (docs/runs.md "Capacity"): a 429 (or a 503 with
// `Retry-After`) is tried again after the server's `Retry-After` (seconds or an HTTP date; without
// one, backing off from 1 s), a bounded number of times, abortable. The runs' clients send every
// request through it; a 429 means the server did not act, so any request may be re-sent.
import { sleep } from "@/lib/ors/protocol";

export interface RetryOptions {
  /** Attempts after the first (default 8). */
  maxRetries?: number;
  /** The longest wait honoured (default 60 s; a longer Retry-After waits this long). */
  maxWaitMs?: number;
  /** The first wait without Retry-After (default 1 s), doubled each time. */
  baseMs?: number;
  /** Hears each wait (tests, logs). */
  onRetry?: (waitMs: number, status: number, attempt: number) => void;
}

/** Milliseconds a `Retry-After` value asks for (null when absent or unreadable). */
export function retryAfterMs(value: string | null, now = Date.now()): number | null {
  if (!value) return null;
  const v = value.trim();
  if (/^\d+(\.\d+)?$/.test(v)) return Math.round(Number(v) * 1000);
  const at = Date.parse(v);
  return Number.isFinite(at) ? Math.max(0, at - now) : null;
}

export function retryingFetch(inner: typeof fetch, o: RetryOptions = {}): typeof fetch {
  const maxRetries = o.maxRetries ?? 8;
  const maxWaitMs = o.maxWaitMs ?? 60_000;
  const baseMs = o.baseMs ?? 1_000;
  return async (input, init) => {
    for (let attempt = 0; ; attempt++) {
      const res = await inner(input, init);
      const asked = retryAfterMs(res.headers.get("retry-after"));
      const busy = res.status === 429 || (res.status === 503 && asked !== null);
      if (!busy || attempt >= maxRetries) return res;
      await res.body?.cancel().catch(() => {});
      const wait = Math.min(maxWaitMs, asked ?? baseMs * 2 ** attempt);
      o.onRetry?.(wait, res.status, attempt + 1);
      await sleep(wait, init?.signal ?? undefined);
    }
  };
}
