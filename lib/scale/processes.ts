// The processes `serve --workers` starts (workers, nginx) are each the leader of a process group of
// their own, stopped by that group's id; and a small detached watchdog stops them all, and removes
// the run folder, when the supervisor dies without doing so (kill -9, a crash).
import "server-only";
import { type ChildProcess, spawn } from "node:child_process";

function signalGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    try {
      process.kill(pid, signal);
    } catch {
      // gone
    }
  }
}

/**
 * Stops the group led by `pid`: SIGQUIT/SIGTERM now (`first`), SIGTERM after `graceMs`, SIGKILL
 * 5 s later; resolves when the leader has exited.
 */
export async function stopGroup(
  pid: number,
  child: ChildProcess,
  exited: Promise<unknown>,
  graceMs: number,
  first: NodeJS.Signals = "SIGQUIT",
): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) {
    // The leader is gone already (killed on its own): what it left in its group goes (nginx's
    // workers outlive a killed master).
    killLeftInGroup(pid);
    return;
  }
  signalGroup(pid, graceMs > 0 ? first : "SIGTERM");
  const timers = [
    setTimeout(() => signalGroup(pid, "SIGTERM"), graceMs),
    setTimeout(() => signalGroup(pid, "SIGKILL"), graceMs + 5000),
  ];
  await exited;
  for (const t of timers) clearTimeout(t);
  // What the leader left behind in its group (an environment's child process) goes too.
  killLeftInGroup(pid);
}

/**
 * SIGKILL to what is left in the group of a leader that has exited: the group only, never the
 * leader's pid alone (it may belong to another process by now).
 */
function killLeftInGroup(pid: number): void {
  try {
    process.kill(-pid, "SIGKILL");
  } catch {
    // an empty group: nothing left
  }
}

export interface RunWatchdog {
  /** Ends the watchdog: the supervisor stops everything itself. */
  cancel(): void;
}

/**
 * Watches this process from a detached shell: once it is gone, sends SIGTERM to every process group
 * listed in `pidsFile` (one id a line, rewritten as workers restart), SIGKILL 5 s later, and removes
 * `runDir`. Polls once a second.
 */
export function startRunWatchdog(pidsFile: string, runDir: string): RunWatchdog {
  const q = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
  const script = [
    `while kill -0 ${process.pid} 2>/dev/null; do sleep 1; done`,
    `pids=$(cat ${q(pidsFile)} 2>/dev/null)`,
    'for p in $pids; do kill -TERM -"$p" 2>/dev/null || kill -TERM "$p" 2>/dev/null; done',
    "i=0",
    'while [ $i -lt 10 ]; do alive=""; for p in $pids; do kill -0 "$p" 2>/dev/null && alive=1; done; [ -z "$alive" ] && break; sleep 0.5; i=$((i+1)); done',
    'for p in $pids; do kill -KILL -"$p" 2>/dev/null; done',
    `rm -rf ${q(runDir)}`,
  ].join("\n");
  const child = spawn("sh", ["-c", script], { detached: true, stdio: "ignore" });
  child.unref();
  return {
    cancel() {
      if (child.exitCode === null && child.pid) signalGroup(child.pid, "SIGKILL");
    },
  };
}
