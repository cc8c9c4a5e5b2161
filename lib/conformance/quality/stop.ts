// When the quality checks and the reward probes stop (isomorphic): on the caller's signal or when
// out of time; and the times their reports open with.

/**
 * A controller aborted by `signal` (with its reason) or after `maxTimeMs` ("out of time");
 * `dispose()` lets go of both once the checks are over.
 */
export function stopWhen(signal: AbortSignal | undefined, maxTimeMs: number) {
  const stop = new AbortController();
  const onAbort = () => stop.abort(signal?.reason);
  signal?.addEventListener("abort", onAbort, { once: true });
  if (signal?.aborted) onAbort();
  const timer = setTimeout(() => stop.abort(new Error("out of time")), maxTimeMs);
  return {
    stop,
    dispose() {
      clearTimeout(timer);
      signal?.removeEventListener("abort", onAbort);
    },
  };
}

/** When a report's checks started and finished (ISO), and how long they took. */
export function reportTimes(started: number): { startedAt: string; finishedAt: string; durationMs: number } {
  const finished = Date.now();
  return {
    startedAt: new Date(started).toISOString(),
    finishedAt: new Date(finished).toISOString(),
    durationMs: finished - started,
  };
}
