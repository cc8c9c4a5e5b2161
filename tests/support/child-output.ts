// A child process the tests and e2e specs start with piped output: what it printed, collected as it
// comes (to find its URL, or to say why it did not start), and a stop of its process group by PID.
import type { ChildProcess } from "node:child_process";
import { once } from "node:events";

export interface ChildOutput {
  out(): string;
  err(): string;
  /** Both, in the order they came. */
  all(): string;
}

/** Collects `child`'s stdout and stderr from now on; read them with out(), err() and all(). */
export function collectOutput(child: ChildProcess): ChildOutput {
  let out = "";
  let err = "";
  let all = "";
  child.stdout?.on("data", (d) => {
    out += d;
    all += d;
  });
  child.stderr?.on("data", (d) => {
    err += d;
    all += d;
  });
  return { out: () => out, err: () => err, all: () => all };
}

/** Sends SIGTERM to the process group of `child` (started detached) and resolves once it exited. */
export async function stopGroup(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, "exit");
  process.kill(-child.pid!, "SIGTERM");
  await exited;
}
