// What a command of the CLI gets from the process that runs it: output streams, the environment,
// and a signal that asks it to stop (Ctrl-C). Commands return their exit code; they never exit.

export interface CommandIo {
  stdout(text: string): void;
  stderr(text: string): void;
  /** Environment variables (read, and for the commands that start servers, written). */
  env: Record<string, string | undefined>;
  /** Aborted on Ctrl-C / SIGTERM: a server command stops cleanly, a check ends early. */
  signal?: AbortSignal;
  /** ANSI colours (a terminal). */
  color?: boolean;
  /** Progress lines on stderr (a terminal). */
  progress?: boolean;
  /** The current folder paths are resolved against (default process.cwd()). */
  cwd?: string;
}

/** Resolves when `signal` aborts (never without one). */
export function untilAborted(signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    if (!signal) return;
    if (signal.aborted) resolve();
    else signal.addEventListener("abort", () => resolve(), { once: true });
  });
}
