// What the playground says about a server it started itself (`start --spawn`): the process's state
// and its log lines, as the API (`/api/servers/<name>/log`, its SSE feed) and the server page show
// them. Isomorphic: types and words only, shared by lib/spawn and the UI.

/**
 * - `starting`: the process runs, and has not answered `GET /health` yet (the relay refuses it);
 * - `ready`: it answered `/health`: registered as ready, the relay forwards to it;
 * - `restarting`: being stopped to start again (files under `--watch` changed, or asked to);
 * - `exited`: it ended by itself (a crash, or a command that could not start): `exit` says how;
 * - `stopped`: stopped by the playground, which is stopping.
 */
export type ProcessState = "starting" | "ready" | "restarting" | "exited" | "stopped";

/**
 * What happens when it exits by itself: `never` — it stays down until someone presses Restart on its
 * page (or a file under `--watch` changes); `on-failure` (`--restart on-failure`) — the playground
 * starts it again, waiting longer each time it keeps failing.
 */
export type RestartPolicy = "never" | "on-failure";
export const RESTART_POLICIES: readonly RestartPolicy[] = ["never", "on-failure"];

export interface ProcessExit {
  /** The exit code, or null when a signal ended it (or it never started). */
  code: number | null;
  /** The signal that ended it (`SIGKILL`), or null. */
  signal: string | null;
  /** When (ms since the epoch). */
  at: number;
  /** In words: `exited with code 1`, `killed by SIGSEGV`, `command not found: pythn`. */
  description: string;
}

export interface ProcessStatus {
  /** The server's name in the playground. */
  name: string;
  /** The command as given (with `{port}`), and as run. */
  command: string;
  /** Started through `/bin/sh -c`, and why (the command uses a pipe, `&&`, `$VAR` ...); null when not. */
  shell: string | null;
  /** The folder it runs in. */
  cwd: string;
  /** Its port and ORS base URL (loopback). */
  port: number;
  url: string;
  /** Folders watched for changes (it restarts when a file's content changes); empty when none. */
  watch: string[];
  /** Whether it is started again when it exits by itself. */
  restartPolicy: RestartPolicy;
  state: ProcessState;
  /** The PID of the running process (the leader of its process group), or null. */
  pid: number | null;
  /** When the current (or last) process started, and when it answered `/health`. */
  startedAt: number | null;
  readyAt: number | null;
  /** How the last process ended (null while the first one runs). */
  exit: ProcessExit | null;
  /** How many times it was started again (by changes, or by hand). */
  restarts: number;
  /** When a restart waits (backoff after quick restarts), when it will happen. */
  restartAt: number | null;
}

/** What becomes of a server that exited by itself: said in its log, on its page and in the terminal. */
export function exitedNote(status: Pick<ProcessStatus, "restartPolicy" | "watch">): string {
  if (status.restartPolicy === "on-failure") return "The playground starts it again (--restart on-failure).";
  const watched = status.watch.length ? " or a file under the watched folder changes" : "";
  return `It stays down until you press Restart on its page${watched} (start it with --restart on-failure to have it started again by itself).`;
}

export type LogStream = "stdout" | "stderr" | "system";

export interface LogLine {
  /** Increases by one per line of this server's log, across restarts. */
  seq: number;
  /** When it was written (ms since the epoch). */
  at: number;
  /** The process's stdout or stderr, or `system`: what the playground says (started, exited, ...). */
  stream: LogStream;
  /** The line, without its line break and terminal escapes. */
  text: string;
}

/** `GET /api/servers/<name>/log`, and the first event (`snapshot`) of its SSE feed. */
export interface ServerLogSnapshot {
  status: ProcessStatus;
  /** The last lines kept (oldest first). */
  lines: LogLine[];
  /** Lines dropped from the front to keep the log bounded (its `seq` starts after them). */
  dropped: number;
}

/**
 * The events of `GET /api/servers/<name>/log/events`: `snapshot` (a ServerLogSnapshot) first, then
 * `lines` ({lines: LogLine[]}, batched) and `status` (a ProcessStatus) as they happen.
 */
export type ServerLogEvent =
  | { type: "snapshot"; snapshot: ServerLogSnapshot }
  | { type: "lines"; lines: LogLine[] }
  | { type: "status"; status: ProcessStatus };

/** Every recorded error of an episode whose spawned server restarted or crashed starts with this. */
export const SERVER_RESTARTED = "server restarted";
export const SERVER_EXITED = "server exited";

/** The recorded error of an episode whose server was restarted under it. */
export function serverRestartedError(name: string, why: string): string {
  return `${SERVER_RESTARTED}: ${why}, so the playground started server "${name}" again and the sessions on it are gone. Start a new episode (Restart on this task) to use the new process.`;
}

/** The recorded error of an episode whose server ended by itself. */
export function serverExitedError(name: string, how: string): string {
  return `${SERVER_EXITED}: server "${name}" ${how} while this episode ran, and its sessions are gone. Its log is on the server's page.`;
}
