// Session keep-alive (spec: ors-sessions-episodes.txt "Keeping Sessions Alive"): POST /ping every
// 10 s while an episode is open, as the reference client does; a failed ping is reported at once.
import type { OrsClient } from "./client";
import type { OrsClientError } from "./errors";

export interface KeepAliveOptions {
  /** Time between pings (default 10 s). */
  intervalMs?: number;
  /** Called once, at the first failed ping (the session is gone, or the server is); pinging stops. */
  onError?: (error: OrsClientError | Error) => void;
  /** Called after each successful ping. */
  onPing?: (at: number) => void;
}

/** Pings `sid` until `stop()` is called or a ping fails. Returns `stop`. */
export function startKeepAlive(client: OrsClient, sid: string, options: KeepAliveOptions = {}): () => void {
  const intervalMs = options.intervalMs ?? 10_000;
  const ctrl = new AbortController();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const schedule = () => {
    if (!ctrl.signal.aborted) timer = setTimeout(tick, intervalMs);
  };
  const tick = async () => {
    try {
      await client.ping(sid, { signal: ctrl.signal });
      if (ctrl.signal.aborted) return;
      options.onPing?.(Date.now());
      schedule();
    } catch (err) {
      if (ctrl.signal.aborted) return;
      ctrl.abort();
      options.onError?.(err instanceof Error ? err : new Error(String(err)));
    }
  };
  schedule();
  return () => {
    if (timer) clearTimeout(timer);
    ctrl.abort();
  };
}
