// Servers the tests start (PostgreSQL, nginx) are stopped by their PID, and stop themselves when
// the test run goes away without stopping them (Ctrl-C, a crash): a small detached watchdog ends
// the server once the process that started it is gone, or after a time limit, and removes its folder.
import { spawn } from "node:child_process";
import { rmSync } from "node:fs";

/** Whether a process with this PID exists (and we may signal it). */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** Sends `signal` to `pid`, then SIGKILL after `graceMs`; resolves once it is gone. */
export async function stopPid(pid: number, signal: NodeJS.Signals, graceMs = 10_000): Promise<void> {
  if (!alive(pid)) return;
  try {
    process.kill(pid, signal);
  } catch {
    return;
  }
  const deadline = Date.now() + graceMs;
  while (alive(pid)) {
    if (Date.now() > deadline) {
      try {
        process.kill(pid, "SIGKILL");
      } catch {
        // gone meanwhile
      }
      await new Promise((r) => setTimeout(r, 100));
      if (!alive(pid)) break;
    }
    await new Promise((r) => setTimeout(r, 50));
  }
}

export interface Watchdog {
  /** Ends the watchdog (the caller stops the server itself). */
  cancel(): void;
}

/**
 * Watches `owner` (default: this process): when it is gone, or after `maxMs`, sends `signal` to
 * `pid`, SIGKILL 10 s later if needed, and removes `dir`. Detached, so it outlives a killed owner.
 */
export function startWatchdog(opts: {
  pid: number;
  signal: "INT" | "TERM" | "QUIT";
  dir: string;
  maxMs: number;
  owner?: number;
}): Watchdog {
  const script = [
    `end=$(( $(date +%s) + ${Math.ceil(opts.maxMs / 1000)} ))`,
    `while kill -0 ${opts.owner ?? process.pid} 2>/dev/null && [ "$(date +%s)" -lt "$end" ]; do sleep 1; done`,
    `kill -${opts.signal} ${opts.pid} 2>/dev/null`,
    "i=0",
    `while kill -0 ${opts.pid} 2>/dev/null && [ $i -lt 20 ]; do sleep 0.5; i=$((i+1)); done`,
    `kill -KILL ${opts.pid} 2>/dev/null`,
    `rm -rf '${opts.dir.replace(/'/g, "")}'`,
  ].join("\n");
  const child = spawn("sh", ["-c", script], { detached: true, stdio: "ignore" });
  child.unref();
  return {
    cancel() {
      if (child.pid && alive(child.pid)) {
        try {
          process.kill(child.pid, "SIGTERM");
        } catch {
          // already gone
        }
      }
    },
  };
}

/**
 * Starts the watchdog of a server the tests started (`startWatchdog`) and returns its stop: `signal`
 * to `pid`, its folder removed, then the watchdog ended. Called again, it answers the same promise.
 */
export function watchedStop(opts: {
  pid: number;
  signal: "INT" | "TERM";
  dir: string;
  maxMs: number;
}): () => Promise<void> {
  const watchdog = startWatchdog(opts);
  let stopped: Promise<void> | null = null;
  return () => {
    stopped ??= (async () => {
      await stopPid(opts.pid, `SIG${opts.signal}`);
      rmSync(opts.dir, { recursive: true, force: true });
      // Only now: a process that dies while stopping leaves the rest to its watchdog.
      watchdog.cancel();
    })();
    return stopped;
  };
}
