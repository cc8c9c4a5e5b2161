// The benchmark's process side: CPU time (utime + stime) and RSS of a server's whole process tree
// read from /proc (docs/architecture.md "Measuring performance"), and starting/stopping a server to measure.
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";

let clockTicks = 0;
function ticksPerSecond(): number {
  if (!clockTicks) {
    try {
      clockTicks = Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).trim()) || 100;
    } catch {
      clockTicks = 100;
    }
  }
  return clockTicks;
}

interface ProcStat {
  pid: number;
  ppid: number;
  /** utime + stime + cutime + cstime, in clock ticks. */
  ticks: number;
}

function readStat(pid: number): ProcStat | null {
  let s: string;
  try {
    s = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
  } catch {
    return null;
  }
  // The command name (field 2) may hold spaces and parentheses: split after the last ')'.
  const rest = s.slice(s.lastIndexOf(")") + 2).split(" ");
  const num = (field: number) => Number(rest[field - 3]);
  return { pid, ppid: num(4), ticks: num(14) + num(15) + num(16) + num(17) };
}

/** The pid and every live descendant of it. */
export function processTree(root: number): number[] {
  const children = new Map<number, number[]>();
  for (const name of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    const st = readStat(Number(name));
    if (!st) continue;
    const list = children.get(st.ppid);
    if (list) list.push(st.pid);
    else children.set(st.ppid, [st.pid]);
  }
  const out: number[] = [];
  const stack = [root];
  while (stack.length) {
    const pid = stack.pop()!;
    out.push(pid);
    for (const c of children.get(pid) ?? []) stack.push(c);
  }
  return out;
}

/**
 * CPU seconds used so far by a process and its children: own utime + stime of every live process
 * of the tree, plus cutime + cstime (children already exited and waited for).
 */
export function treeCpuSeconds(root: number): number {
  let ticks = 0;
  for (const pid of processTree(root)) ticks += readStat(pid)?.ticks ?? 0;
  return ticks / ticksPerSecond();
}

/**
 * CPU seconds of each live process of the tree (own utime + stime + waited-for children), with its
 * command name (`/proc/<pid>/comm`: "node", "nginx", "postgres" ...), for a breakdown by part.
 */
export function treeCpuByProcess(root: number): Array<{ pid: number; command: string; seconds: number }> {
  const out: Array<{ pid: number; command: string; seconds: number }> = [];
  for (const pid of processTree(root)) {
    const st = readStat(pid);
    if (!st) continue;
    let command = "";
    try {
      command = fs.readFileSync(`/proc/${pid}/comm`, "utf8").trim();
    } catch {
      // exited meanwhile
    }
    out.push({ pid, command, seconds: st.ticks / ticksPerSecond() });
  }
  return out;
}

/** Resident memory of the whole tree, in bytes (VmRSS from /proc/<pid>/status). */
export function treeRssBytes(root: number): number {
  let kb = 0;
  for (const pid of processTree(root)) {
    try {
      const m = fs.readFileSync(`/proc/${pid}/status`, "utf8").match(/^VmRSS:\s+(\d+) kB/m);
      if (m) kb += Number(m[1]);
    } catch {
      // exited meanwhile
    }
  }
  return kb * 1024;
}

/**
 * Waits until the process tree has been quiet for a second (under `busyMs` of CPU in it), at most
 * `timeoutMs`: a server that answers its health check may still be busy with its start (Next loads
 * every route's code in the background for several seconds), which must not count in a measurement.
 * Resolves with the seconds waited.
 */
export async function settle(pid: number, { busyMs = 20, timeoutMs = 60_000 } = {}): Promise<number> {
  const t0 = performance.now();
  let cpu = treeCpuSeconds(pid);
  while (performance.now() - t0 < timeoutMs) {
    await new Promise((r) => setTimeout(r, 1000));
    const now = treeCpuSeconds(pid);
    if ((now - cpu) * 1000 < busyMs) break;
    cpu = now;
  }
  return (performance.now() - t0) / 1000;
}

export function processExists(pid: number): boolean {
  return fs.existsSync(`/proc/${pid}/stat`);
}

/** A free TCP port on 127.0.0.1, as the OS hands one out. */
export function anyFreeLoopbackPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const port = (srv.address() as net.AddressInfo).port;
      srv.close(() => resolve(port));
    });
  });
}

/** A free TCP port on 127.0.0.1 within [from, to] (the benchmark's assigned range). */
export async function freeLoopbackPort(from: number, to: number): Promise<number> {
  for (let port = from; port <= to; port++) {
    const free = await new Promise<boolean>((resolve) => {
      const srv = net.createServer();
      srv.once("error", () => resolve(false));
      srv.listen(port, "127.0.0.1", () => srv.close(() => resolve(true)));
    });
    if (free) return port;
  }
  throw new Error(`no free loopback port in ${from}-${to}`);
}

export interface SpawnedServer {
  pid: number;
  baseUrl: string;
  logFile: string;
  stop(): Promise<void>;
}

/**
 * Starts a server in its own process group, waits until `healthUrl` answers 200 (at most
 * `timeoutMs`), and returns it with a `stop()` that ends exactly that group by its id.
 */
export async function spawnServer(opts: {
  command: string;
  args: string[];
  env?: Record<string, string>;
  cwd: string;
  baseUrl: string;
  healthUrl: string;
  timeoutMs?: number;
  label: string;
}): Promise<SpawnedServer> {
  const logFile = path.join(os.tmpdir(), `ors-bench-${opts.label}-${process.pid}.log`);
  const log = fs.openSync(logFile, "w");
  const child: ChildProcess = spawn(opts.command, opts.args, {
    cwd: opts.cwd,
    env: { ...process.env, ...opts.env },
    stdio: ["ignore", log, log],
    detached: true,
  });
  fs.closeSync(log);
  const pid = child.pid;
  if (!pid) throw new Error(`could not start ${opts.label}`);
  let exited = false;
  const exitPromise = new Promise<void>((resolve) =>
    child.once("exit", () => {
      exited = true;
      resolve();
    }),
  );
  const stop = async () => {
    if (exited) return;
    try {
      process.kill(-pid, "SIGTERM");
    } catch {
      return;
    }
    const timer = setTimeout(() => {
      try {
        process.kill(-pid, "SIGKILL");
      } catch {}
    }, 5000);
    await exitPromise;
    clearTimeout(timer);
  };
  const deadline = Date.now() + (opts.timeoutMs ?? 60_000);
  while (Date.now() < deadline) {
    if (exited) throw new Error(`${opts.label} exited during startup; see ${logFile}:\n${tail(logFile)}`);
    try {
      const res = await fetch(opts.healthUrl, { signal: AbortSignal.timeout(2000) });
      if (res.status === 200) return { pid, baseUrl: opts.baseUrl, logFile, stop };
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  await stop();
  throw new Error(
    `${opts.label} did not answer ${opts.healthUrl} in time; see ${logFile}:\n${tail(logFile)}`,
  );
}

/** Starts the standalone ORS server (scripts/serve.ts, under `root`) on a free loopback port. */
export async function spawnStandaloneServe(root: string, label: string): Promise<SpawnedServer> {
  const port = await anyFreeLoopbackPort();
  const base = `http://127.0.0.1:${port}`;
  return spawnServer({
    command: process.execPath,
    args: ["--import", "tsx", "scripts/serve.ts", "--port", String(port), "--host", "127.0.0.1"],
    cwd: root,
    baseUrl: base,
    healthUrl: `${base}/health`,
    label,
  });
}

function tail(file: string): string {
  try {
    return fs.readFileSync(file, "utf8").split("\n").slice(-20).join("\n");
  } catch {
    return "";
  }
}
