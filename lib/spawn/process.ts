// The OS side of a server the playground runs: a free loopback port, the process started in a
// process group of its own (without a shell where the command allows), the group signalled, and how
// a process ended or failed to start, in words.
import "server-only";
import { type ChildProcess, spawn } from "node:child_process";
import { createServer } from "node:net";
import type { ParsedCommand } from "./command-line";

const GROUPS = process.platform !== "win32";

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms).unref?.());

/** A free loopback port (the kernel's pick). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.unref();
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const address = s.address();
      s.close(() =>
        typeof address === "object" && address ? resolve(address.port) : reject(new Error("no port")),
      );
    });
  });
}

/** Whether nothing listens on `port` of 127.0.0.1 now. */
export function portIsFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = createServer();
    s.unref();
    s.once("error", () => resolve(false));
    s.listen(port, "127.0.0.1", () => s.close(() => resolve(true)));
  });
}

/** Signals a process group (or the process, where there are no groups); nothing if it is gone. */
export function killGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    if (GROUPS) process.kill(-pid, signal);
    else process.kill(pid, signal);
  } catch {
    // already gone
  }
}

/** Starts `cmd` (with its port in place) in `cwd`, in a process group of its own, output piped. */
export function spawnInGroup(cmd: ParsedCommand, cwd: string, env: NodeJS.ProcessEnv): ChildProcess {
  const options = { cwd, env, stdio: ["ignore", "pipe", "pipe"] as ("ignore" | "pipe")[], detached: GROUPS };
  return cmd.kind === "shell"
    ? spawn(cmd.command, [], { ...options, shell: true })
    : spawn(cmd.argv[0]!, cmd.argv.slice(1), options);
}

export function describeExit(code: number | null, signal: NodeJS.Signals | null, shell: boolean): string {
  if (signal) return `was killed by ${signal}`;
  if (code === 127 && shell) return "exited with code 127 (the shell did not find the command)";
  return `exited with code ${code}`;
}

export function describeSpawnError(err: NodeJS.ErrnoException, program: string, cwd: string): string {
  if (err.code === "ENOENT")
    return `could not start: command not found: ${program} (is it installed, and on PATH? or is the folder ${cwd} missing?)`;
  if (err.code === "EACCES") return `could not start: ${program} is not executable (permission denied)`;
  return `could not start: ${err.message}`;
}
