// Real PostgreSQL for tests and scripts: Debian's binaries found (PATH, /usr/lib/postgresql/*/bin)
// or installed when missing and we are root (saying so); a throwaway cluster in a temporary folder on
// a free loopback port, run as the `postgres` user when we are root (initdb refuses root), stopped
// by its PID. The test run starts one cluster at most (tests/support/global-setup.ts, on demand)
// and every test file gets a database of its own: `await postgresDatabase()`.
import { type ChildProcess, spawn } from "node:child_process";
import { chownSync, closeSync, mkdtempSync, openSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { anyFreeLoopbackPort } from "../../scripts/bench-proc";
import {
  type Found,
  findProgram,
  installDebianPackage,
  isRoot,
  missingComponent,
  postgresBinDirs,
  userIds,
} from "./debian";
import { watchedStop } from "./processes";

/** The folder holding initdb and postgres: found, installed, or why neither. */
export function ensurePostgresBinaries(log = console.log): Found {
  const locate = () => {
    for (const dir of [path.dirname(findProgram("initdb") ?? "/nonexistent/x"), ...postgresBinDirs()]) {
      const initdb = findProgram("initdb", [dir]);
      if (initdb && findProgram("postgres", [path.dirname(initdb)])) return path.dirname(initdb);
    }
    return null;
  };
  const dir = locate();
  if (dir) return { ok: true, path: dir };
  return installDebianPackage("postgresql", locate, log);
}

export interface PostgresCluster {
  readonly port: number;
  /** The postmaster's PID. */
  readonly pid: number;
  /** A URL of a database of this cluster (default `postgres`). */
  url(database?: string): string;
  /** Creates a database (a fresh name is made from `label`) and returns its URL. */
  createDatabase(label?: string): Promise<string>;
  stop(): Promise<void>;
}

let databases = 0;

/**
 * Starts a cluster: initdb in a temporary folder (owned by `postgres` when we are root), then the
 * postmaster on 127.0.0.1 only, trust authentication, durability off (it is thrown away).
 * Stopped by `stop()`, or by its watchdog when this process is gone (at most `maxMs`).
 */
export async function startPostgresCluster(
  opts: { binDir?: string; maxMs?: number; log?: (m: string) => void } = {},
): Promise<PostgresCluster> {
  const log = opts.log ?? console.log;
  let binDir = opts.binDir;
  if (!binDir) {
    const found = ensurePostgresBinaries(log);
    if (!found.ok) throw new Error(found.reason);
    binDir = found.path;
  }
  const dir = mkdtempSync(path.join(os.tmpdir(), "ors-pg-"));
  const data = path.join(dir, "data");
  const asPostgres = isRoot();
  const ids = asPostgres ? userIds("postgres") : null;
  if (asPostgres && !ids)
    throw new Error("running as root, but there is no `postgres` user to run PostgreSQL as");
  if (ids) chownSync(dir, ids.uid, ids.gid);
  // initdb and postgres refuse to run as root: run them as the `postgres` user.
  const command = (program: string, args: string[]): [string, string[]] =>
    asPostgres
      ? ["runuser", ["-u", "postgres", "--", path.join(binDir!, program), ...args]]
      : [path.join(binDir!, program), args];
  await run(
    ...command("initdb", [
      "-D",
      data,
      "-A",
      "trust",
      "-U",
      "postgres",
      "-E",
      "UTF8",
      "--no-locale",
      "--no-sync",
    ]),
  );

  for (let attempt = 1; ; attempt++) {
    const port = await anyFreeLoopbackPort();
    const logFile = path.join(dir, `postgres-${port}.log`);
    const out = openSync(logFile, "a");
    if (ids) chownSync(logFile, ids.uid, ids.gid);
    const [cmd, args] = command("postgres", [
      "-D",
      data,
      "-p",
      String(port),
      "-c",
      "listen_addresses=127.0.0.1",
      "-c",
      `unix_socket_directories=${dir}`,
      "-c",
      "fsync=off",
      "-c",
      "synchronous_commit=off",
      "-c",
      "full_page_writes=off",
      "-c",
      "max_connections=300",
    ]);
    const child = spawn(cmd, args, { stdio: ["ignore", out, out] });
    closeSync(out);
    const pid = await waitReady(child, data, port, logFile);
    if (pid === null) {
      if (attempt < 3 && /could not bind|Address already in use/.test(readFileSync(logFile, "utf8")))
        continue;
      rmSync(dir, { recursive: true, force: true });
      throw new Error(`PostgreSQL did not start:\n${readFileSync(logFile, "utf8").slice(-2000)}`);
    }
    // SIGINT: PostgreSQL's fast shutdown (disconnects clients, no waiting on them).
    const stop = watchedStop({ pid, signal: "INT", dir, maxMs: opts.maxMs ?? 60 * 60_000 });
    const url = (database = "postgres") => `postgres://postgres@127.0.0.1:${port}/${database}`;
    return {
      port,
      pid,
      url,
      async createDatabase(label = "test") {
        const name = `${label
          .toLowerCase()
          .replace(/[^a-z0-9_]/g, "_")
          .slice(0, 40)}_${process.pid}_${++databases}`;
        const client = new pg.Client({ connectionString: url() });
        await client.connect();
        try {
          await client.query(`CREATE DATABASE "${name}"`);
        } finally {
          await client.end();
        }
        return url(name);
      },
      stop,
    };
  }
}

function run(cmd: string, args: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    child.stdout!.on("data", (d) => (out += d));
    child.stderr!.on("data", (d) => (out += d));
    child.on("error", reject);
    child.on("exit", (code) =>
      code === 0
        ? resolve()
        : reject(new Error(`${cmd} ${args.join(" ")} exited ${code}:\n${out.slice(-2000)}`)),
    );
  });
}

/** The postmaster's PID once it accepts connections, or null when it exits first. */
async function waitReady(
  child: ChildProcess,
  data: string,
  port: number,
  logFile: string,
): Promise<number | null> {
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null) return null;
    const client = new pg.Client({ connectionString: `postgres://postgres@127.0.0.1:${port}/postgres` });
    try {
      await client.connect();
      await client.end();
      // The postmaster's PID (runuser may stand between us and it).
      return Number(readFileSync(path.join(data, "postmaster.pid"), "utf8").split("\n")[0]);
    } catch {
      await client.end().catch(() => {});
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  child.kill("SIGKILL");
  throw new Error(
    `PostgreSQL did not accept connections within 30 s:\n${readFileSync(logFile, "utf8").slice(-2000)}`,
  );
}

/** What the broker answers: a database's URL, or why PostgreSQL cannot be had here. */
type DatabaseAnswer = { ok: true; url: string } | { ok: false; reason: string };

declare module "vitest" {
  export interface ProvidedContext {
    /** The test-support broker of this run (tests/support/global-setup.ts). */
    supportBroker: string;
  }
}

/**
 * A fresh database of the test run's cluster (started on first use). When PostgreSQL cannot be
 * found or installed here (not root, no package) this throws, saying why.
 */
export async function postgresDatabase(label: string): Promise<{ url: string }> {
  // Imported here: the run's globalSetup imports this module too, outside any test.
  const { inject } = await import("vitest");
  const broker = inject("supportBroker");
  if (!broker)
    throw new Error("no test-support broker: run the tests with vitest.config.ts (its globalSetup)");
  const res = await fetch(`${broker}/postgres/database?label=${encodeURIComponent(label)}`, {
    method: "POST",
  });
  const body = (await res.json()) as DatabaseAnswer | { error: string };
  if ("error" in body) throw new Error(`PostgreSQL for the tests: ${body.error}`);
  if (!body.ok) missingComponent("PostgreSQL", label, body.reason);
  return { url: body.url };
}
