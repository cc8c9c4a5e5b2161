// Real nginx for tests and scripts: Debian's binary found (PATH, /usr/sbin) or its `nginx` package
// installed when missing and we are root (saying so; no system service is started), then run in
// the foreground from a throwaway prefix and config in a temporary folder, on a free loopback port,
// and stopped by its PID. Test files ask for the binary through the run's broker (one install at
// most): `await nginxBinary()`; then `startNginx(bin, { http })`.
import { type ChildProcess, spawn } from "node:child_process";
import { chownSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { anyFreeLoopbackPort } from "../../scripts/bench-proc";
import { type Found, findProgram, installDebianPackage, isRoot, missingComponent, userIds } from "./debian";
import { watchedStop } from "./processes";

const SBIN = ["/usr/sbin", "/usr/local/sbin", "/usr/local/nginx/sbin"];

/** The nginx binary: found, installed, or why neither. */
export function ensureNginxBinary(log = console.log): Found {
  const locate = () => findProgram("nginx", SBIN);
  const found = locate();
  if (found) return { ok: true, path: found };
  return installDebianPackage("nginx", locate, log);
}

/** The nginx binary through the test run's broker (tests/support/global-setup.ts). */
export async function nginxBinary(label: string): Promise<{ path: string }> {
  // Imported here: the run's globalSetup imports this module too, outside any test.
  const { inject } = await import("vitest");
  const broker = inject("supportBroker");
  if (!broker)
    throw new Error("no test-support broker: run the tests with vitest.config.ts (its globalSetup)");
  const body = (await (await fetch(`${broker}/nginx`, { method: "POST" })).json()) as
    | Found
    | { error: string };
  if ("error" in body) throw new Error(`nginx for the tests: ${body.error}`);
  if (!body.ok) missingComponent("nginx", label, body.reason);
  return { path: body.path };
}

export interface Nginx {
  readonly port: number;
  readonly url: string;
  /** The master process's PID. */
  readonly pid: number;
  /** nginx's error log so far (for failure messages). */
  errors(): string;
  stop(): Promise<void>;
}

/**
 * Starts nginx with `http` inside its `http {}` block; `{{PORT}}` in it is the free loopback port
 * chosen for it (`listen 127.0.0.1:{{PORT}};`). Everything it writes stays in a temporary folder.
 */
export async function startNginx(bin: string, opts: { http: string; maxMs?: number }): Promise<Nginx> {
  const dir = mkdtempSync(path.join(os.tmpdir(), "ors-nginx-"));
  // As root, nginx's workers run as `nobody`: the folders they write must be theirs.
  const worker = isRoot() ? userIds("nobody") : null;
  const temp = ["client_body", "proxy", "fastcgi", "uwsgi", "scgi"].map((name) => {
    const p = path.join(dir, name);
    mkdirSync(p);
    if (worker) chownSync(p, worker.uid, worker.gid);
    return `${name}_temp_path ${p};`;
  });
  for (let attempt = 1; ; attempt++) {
    const port = await anyFreeLoopbackPort();
    const conf = path.join(dir, "nginx.conf");
    const errorLog = path.join(dir, "error.log");
    writeFileSync(
      conf,
      [
        "daemon off;",
        "master_process on;",
        "worker_processes 1;",
        worker ? "user nobody nogroup;" : "",
        `pid ${path.join(dir, "nginx.pid")};`,
        `error_log ${errorLog} warn;`,
        "events { worker_connections 1024; }",
        "http {",
        "  access_log off;",
        ...temp.map((t) => `  ${t}`),
        opts.http.replaceAll("{{PORT}}", String(port)),
        "}",
        "",
      ].join("\n"),
    );
    // -e: the error log before the config is read is ours too (not /var/log/nginx).
    const child = spawn(bin, ["-p", dir, "-c", conf, "-e", errorLog], {
      stdio: ["ignore", "ignore", "pipe"],
    });
    let stderr = "";
    child.stderr!.on("data", (d) => (stderr += d));
    const errors = () => {
      try {
        return readFileSync(errorLog, "utf8") + stderr;
      } catch {
        return stderr;
      }
    };
    if (!(await listening(child, port))) {
      if (attempt < 3 && /Address already in use/.test(errors())) continue;
      rmSync(dir, { recursive: true, force: true });
      throw new Error(`nginx did not start:\n${errors().slice(-2000)}`);
    }
    const pid = child.pid!;
    const stop = watchedStop({ pid, signal: "TERM", dir, maxMs: opts.maxMs ?? 30 * 60_000 });
    return {
      port,
      url: `http://127.0.0.1:${port}`,
      pid,
      errors,
      stop,
    };
  }
}

/** True once `port` accepts connections; false when nginx exits first (or 15 s pass). */
async function listening(child: ChildProcess, port: number): Promise<boolean> {
  const deadline = Date.now() + 15_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null) return false;
    const ok = await new Promise<boolean>((resolve) => {
      const s = net.connect(port, "127.0.0.1");
      s.once("connect", () => {
        s.destroy();
        resolve(true);
      });
      s.once("error", () => resolve(false));
    });
    if (ok) return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  child.kill("SIGKILL");
  return false;
}
