// Capacity answers (docs/architecture.md "Team scale": capacity limits answer 429 with Retry-After,
// and every client here honours it): how long a `Retry-After` header asks to wait. A 429 means the
// server did not act on the request, so sending it again is safe whatever the endpoint.

/** The wait a `Retry-After` value asks for, in ms (delta-seconds or an HTTP date), or null. */
export function retryAfterMs(value: string | null, now: number = Date.now()): number | null {
  const v = value?.trim();
  if (!v) return null;
  if (/^\d+$/.test(v)) return Number(v) * 1000;
  const at = Date.parse(v);
  return Number.isNaN(at) ? null : Math.max(0, at - now);
}

/** How long to wait before retry `attempt` (1, 2 ...): the server's Retry-After, else backoff. */
export function rateLimitDelay(
  header: string | null,
  attempt: number,
  backoff: { baseMs: number; maxMs: number },
): number {
  return retryAfterMs(header) ?? Math.min(backoff.maxMs, backoff.baseMs * 2 ** (attempt - 1));
}
