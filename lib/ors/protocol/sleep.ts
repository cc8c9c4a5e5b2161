// Abortable waits (browser + Node): a sleep between reconnections or out an idle limit, and a
// promise given up when a signal aborts.

/** Resolves after `ms`, or rejects with the signal's reason as soon as it aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/**
 * `p`, given up when `signal` aborts (for work that may not listen to it): rejects with the
 * signal's reason; `onLate` receives what `p` still brings after that, to release it.
 */
export function untilAborted<T>(p: Promise<T>, signal: AbortSignal, onLate?: (late: T) => void): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => {
      reject(signal.reason);
      if (onLate) p.then(onLate).catch(() => {});
    };
    signal.addEventListener("abort", onAbort, { once: true });
    p.then(
      (v) => {
        signal.removeEventListener("abort", onAbort);
        resolve(v);
      },
      (e) => {
        signal.removeEventListener("abort", onAbort);
        reject(e);
      },
    );
  });
}
