// Waiting for a condition in tests instead of sleeping a fixed time: `waitUntil` polls a check
// (sync or async) every few ms and resolves with its first truthy value, or fails after a bounded
// time saying what it waited for and what it saw last. A fixed sleep is either too short on a busy
// machine (a flaky test) or longer than needed everywhere else.

export interface WaitOptions {
  /** Give up after this long (default 10 s). */
  timeoutMs?: number;
  /** Poll this often (default 10 ms). */
  everyMs?: number;
}

/**
 * The first truthy value of `check`, polled until `timeoutMs` (the options, or just that number). A
 * check that throws counts as not yet (its last error is in the failure's message).
 *
 * @example
 * await waitUntil("one subscriber", () => live.subscribers() === 1);
 */
export async function waitUntil<T>(
  what: string,
  check: () => T | Promise<T>,
  options: WaitOptions | number = {},
): Promise<Exclude<T, false | 0 | "" | null | undefined>> {
  const { timeoutMs = 10_000, everyMs = 10 } = typeof options === "number" ? { timeoutMs: options } : options;
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await check();
      if (value) return value as Exclude<T, false | 0 | "" | null | undefined>;
      last = value;
    } catch (err) {
      last = err;
    }
    if (Date.now() >= deadline) {
      const seen = last instanceof Error ? last.message : JSON.stringify(last);
      throw new Error(`waited ${timeoutMs} ms for ${what}; last saw ${seen}`);
    }
    await new Promise((r) => setTimeout(r, everyMs));
  }
}
