// nginx for `serve --workers`: Debian's binary found (PATH, the sbin folders), started in the
// foreground from the run folder's generated config (no system service, nothing outside that folder),
// reloaded when a worker moves, stopped by its process group.
import "server-only";
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { accessSync, chownSync, constants, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { type FrontOptions, nginxConfig } from "./nginx-config";
import { stopGroup } from "./processes";

const SBIN = ["/usr/sbin", "/usr/local/sbin", "/usr/local/nginx/sbin", "/opt/homebrew/bin"];

/** What to tell someone who has no nginx (exit code 2). */
export const NGINX_MISSING = [
  "serve --workers puts nginx in front of the workers, and nginx was not found (looked on PATH and in",
  `${SBIN.join(", ")}).`,
  "Install Debian's (or Ubuntu's) package, which starts no service of its own here:",
  "  sudo apt-get install -y nginx",
  "or give its path: --nginx /path/to/nginx",
].join("\n");

/** The nginx binary: `given` when it is executable, else the first on PATH or in the sbin folders. */
export function findNginx(
  given: string | undefined,
  { pathVar, dirs = SBIN }: { pathVar: string; dirs?: readonly string[] },
): string | null {
  const executable = (file: string) => {
    try {
      accessSync(file, constants.X_OK);
      return true;
    } catch {
      return false;
    }
  };
  if (given !== undefined) return executable(given) ? path.resolve(given) : null;
  for (const dir of [...pathVar.split(path.delimiter).filter(Boolean), ...dirs]) {
    const file = path.join(dir, "nginx");
    if (executable(file)) return file;
  }
  return null;
}

const isRoot = () => typeof process.getuid === "function" && process.getuid() === 0;

/** As root, nginx's worker processes run as `nobody` (never root); the folders they write are theirs. */
function unprivilegedUser(): { user: string; uid: number; gid: number } | null {
  if (!isRoot()) return null;
  try {
    const id = (flag: string) => execFileSync("id", [flag, "nobody"], { encoding: "utf8" }).trim();
    return { user: `nobody ${id("-gn")}`, uid: Number(id("-u")), gid: Number(id("-g")) };
  } catch {
    return null;
  }
}

export interface RunningNginx {
  readonly pid: number;
  /** nginx's error log so far (its last lines), for messages. */
  errors(): string;
  /** Writes the config for these workers and has nginx load it (old connections finish on the old one). */
  reload(workers: FrontOptions["workers"]): void;
  /** Resolves when nginx exits, with its exit code or signal. */
  readonly exited: Promise<string>;
  /** Graceful stop (open streams get `graceMs` to end), then fast, then SIGKILL of its group. */
  stop(graceMs?: number): Promise<void>;
}

/**
 * Writes the config into `options.runDir` and starts nginx on it. Resolves once it accepts
 * connections on the listen port; rejects with nginx's own error (port in use, bad address ...).
 */
export async function startNginx(bin: string, options: FrontOptions): Promise<RunningNginx> {
  const worker = unprivilegedUser();
  for (const name of ["client_body", "proxy", "fastcgi", "uwsgi", "scgi"]) {
    const dir = path.join(options.runDir, name);
    mkdirSync(dir, { recursive: true });
    if (worker) chownSync(dir, worker.uid, worker.gid);
  }
  let current: FrontOptions = { ...options, user: worker?.user ?? null };
  const conf = path.join(options.runDir, "nginx.conf");
  const errorLog = path.join(options.runDir, "error.log");
  writeFileSync(conf, nginxConfig(current));
  // -e: the log of the start itself goes to the run folder too, not to /var/log/nginx.
  const child: ChildProcess = spawn(bin, ["-p", options.runDir, "-c", conf, "-e", errorLog], {
    stdio: ["ignore", "ignore", "pipe"],
    detached: true,
  });
  let stderr = "";
  child.stderr!.on("data", (d) => {
    stderr = (stderr + d).slice(-4000);
  });
  const errors = () => {
    let log = "";
    try {
      log = readFileSync(errorLog, "utf8");
    } catch {
      // not written yet
    }
    return (log + stderr).trim().split("\n").slice(-15).join("\n");
  };
  const exited = new Promise<string>((resolve) => {
    child.once("exit", (code, signal) => resolve(signal ? `signal ${signal}` : `exit code ${code}`));
    child.once("error", (e) => resolve(e.message));
  });
  let gone = false;
  void exited.then(() => {
    gone = true;
  });
  const pid = child.pid;
  if (!pid || !(await listening(path.join(options.runDir, "nginx.pid"), pid, () => gone))) {
    if (pid && !gone) await stopGroup(pid, child, exited, 0);
    throw new Error(errors() || "nginx exited at once");
  }
  return {
    pid,
    errors,
    exited,
    reload(workers) {
      current = { ...current, workers };
      writeFileSync(conf, nginxConfig(current));
      try {
        if (!gone) process.kill(pid, "SIGHUP");
      } catch {
        // exited meanwhile: the command stops on that
      }
    },
    stop(graceMs = 3000) {
      return stopGroup(pid, child, exited, graceMs);
    },
  };
}

/**
 * True once nginx has bound its port: it writes its pid file only after opening its listening
 * sockets (a port in use makes it exit instead). False when it exits first or 15 s pass.
 */
async function listening(pidFile: string, pid: number, exited: () => boolean): Promise<boolean> {
  const deadline = Date.now() + 15_000;
  while (Date.now() < deadline && !exited()) {
    try {
      if (Number(readFileSync(pidFile, "utf8").trim()) === pid) return true;
    } catch {
      // not written yet
    }
    await new Promise((r) => setTimeout(r, 25));
  }
  return false;
}
