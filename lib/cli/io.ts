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

/** What the headless commands (`check`, `test`) get: the same, where tests may pass their own fetch. */
export interface HeadlessIo extends Omit<CommandIo, "env"> {
  /** Environment variables: `ORS_API_KEY` (the API key's default, as for the reference client), secrets. */
  env?: Record<string, string | undefined>;
  /** The fetch to use (tests may pass an in-process handler). */
  fetch?: typeof fetch;
}

/** Resolves when `signal` aborts (never without one). */
export function untilAborted(signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    if (!signal) return;
    if (signal.aborted) resolve();
    else signal.addEventListener("abort", () => resolve(), { once: true });
  });
}

/**
 * Runs a command of the CLI in this process (the npm scripts' entries): the terminal's streams and
 * environment, Ctrl-C asks it to stop, and the exit code is set — 130 when interrupted.
 */
export async function runInTerminal(
  command: (argv: string[], io: CommandIo) => Promise<number>,
  argv: string[] = process.argv.slice(2),
): Promise<void> {
  const stop = new AbortController();
  process.once("SIGINT", () => stop.abort(new Error("interrupted (Ctrl-C)")));
  const code = await command(argv, {
    stdout: (s) => process.stdout.write(s),
    stderr: (s) => process.stderr.write(s),
    color: !!process.stdout.isTTY && !process.env.NO_COLOR,
    progress: !!process.stderr.isTTY,
    env: process.env,
    signal: stop.signal,
  });
  process.exitCode = stop.signal.aborted ? 130 : code;
}
