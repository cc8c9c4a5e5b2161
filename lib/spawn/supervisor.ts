// The servers a start of the playground runs itself (`start --spawn`, the config file's "spawn"):
// checked before anything starts (names, folders, commands, ports), started together, and stopped
// with the playground — by their process groups when it stops, synchronously when its process
// exits, and by a detached orphan guard (./orphan-guard.mjs) when it is killed outright. Says what
// they do on the terminal (`say`); hands the registry their names and readiness; tells the
// composition root when the sessions on one are gone.
import "server-only";
import { type ChildProcess, spawn } from "node:child_process";
import { statSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { CommandLineError, parseCommandLine } from "./command-line";
import {
  createManagedServer,
  freePort,
  type ManagedServer,
  type ManagedServerHooks,
  portIsFree,
  type SpawnSpec,
} from "./managed-server";
import { exitedNote, serverExitedError, serverRestartedError } from "./types";

/** A spawn that cannot be set up (a bad name, folder, command or port): the start stops, saying why. */
export class SpawnSetupError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "SpawnSetupError";
  }
}

export interface SupervisorOptions {
  /** The environment as the user started the playground: each process gets it (without the token). */
  baseEnv: Readonly<Record<string, string | undefined>>;
  /** Lines for the terminal (`[my_env] ready at ...`); default: none. */
  say?: (line: string) => void;
  /** Why a name cannot be a server's (the registry's rule); null when it can. */
  invalidName?: (name: string) => string | null;
  /** Paths never watched (the playground's data folder). */
  ignorePaths?: readonly string[];
  /** Start the orphan guard (default: on POSIX systems). */
  orphanGuard?: boolean;
  stopGraceMs?: number;
  debounceMs?: number;
  freeRestarts?: number;
}

export type SessionsLostListener = (server: string, error: string) => void | Promise<void>;

export interface ServerSupervisor {
  list(): readonly ManagedServer[];
  get(name: string): ManagedServer | undefined;
  /** The registry's view: each server's name and URL, whatever its state. */
  entries(): { name: string; url: string }[];
  /** Why the relay must not forward to `name` now, or null (ready, or not one of these servers). */
  notReady(name: string): string | null;
  /** Starts every process (resolves once they are spawned, not ready). */
  start(): Promise<void>;
  /** Resolves when every server is ready or has exited, or after `timeoutMs`. */
  settled(timeoutMs: number): Promise<void>;
  /** Called when the sessions on a server are gone (restarted, or exited), with the episodes' error. */
  onSessionsLost(listener: SessionsLostListener): () => void;
  /** Stops every process (and the orphan guard). */
  stop(): Promise<void>;
}

const GUARD = path.join(path.dirname(fileURLToPath(import.meta.url)), "orphan-guard.mjs");

function isFolder(p: string): boolean {
  try {
    return statSync(p).isDirectory();
  } catch {
    return false;
  }
}

/** A supervisor of no servers (the playground started without `--spawn`). */
export function emptySupervisor(): ServerSupervisor {
  return {
    list: () => [],
    get: () => undefined,
    entries: () => [],
    notReady: () => null,
    start: async () => {},
    settled: async () => {},
    onSessionsLost: () => () => {},
    stop: async () => {},
  };
}

/**
 * Checks `specs` before anything starts (names, commands, folders, fixed ports); throws
 * SpawnSetupError naming the server and the problem. Answers the ports given to them.
 */
async function checkSpecs(specs: readonly SpawnSpec[], options: SupervisorOptions): Promise<Set<number>> {
  const names = new Set<string>();
  const fixed = new Set<number>();
  for (const spec of specs) {
    const where = `spawned server ${JSON.stringify(spec.name)}`;
    const bad = options.invalidName?.(spec.name);
    if (bad) throw new SpawnSetupError(`${where}: ${bad}`);
    if (names.has(spec.name))
      throw new SpawnSetupError(`two spawned servers are named ${JSON.stringify(spec.name)}`);
    names.add(spec.name);
    if (typeof spec.command === "string") {
      try {
        parseCommandLine(spec.command);
      } catch (e) {
        if (e instanceof CommandLineError) throw new SpawnSetupError(`${where}: ${e.message}`);
        throw e;
      }
    } else if (spec.command.length === 0 || !spec.command[0])
      throw new SpawnSetupError(`${where}: the command is empty`);
    if (!isFolder(spec.cwd))
      throw new SpawnSetupError(`${where}: the folder to run it in, ${spec.cwd}, does not exist`);
    for (const dir of spec.watch ?? [])
      if (!isFolder(dir)) throw new SpawnSetupError(`${where}: --watch ${dir}: no such folder`);
    if (spec.port) {
      if (fixed.has(spec.port))
        throw new SpawnSetupError(`${where}: port ${spec.port} is given to two servers`);
      fixed.add(spec.port);
      if (!(await portIsFree(spec.port)))
        throw new SpawnSetupError(`${where}: port ${spec.port} of 127.0.0.1 is in use by another process`);
    }
  }
  return fixed;
}

/** Checks `specs` and picks their ports; throws SpawnSetupError naming the server and the problem. */
export async function createServerSupervisor(
  specs: readonly SpawnSpec[],
  options: SupervisorOptions,
): Promise<ServerSupervisor> {
  if (specs.length === 0) return emptySupervisor();
  const say = options.say ?? (() => {});
  const fixed = await checkSpecs(specs, options);

  const lostListeners = new Set<SessionsLostListener>();
  const sessionsLost = (server: string, error: string) => {
    for (const listener of lostListeners)
      Promise.resolve()
        .then(() => listener(server, error))
        .catch((e: unknown) => console.error(`[ors-playground] ending the sessions of ${server} failed:`, e));
  };

  let guard: ChildProcess | null = null;
  const tellGuard = (line: string) => {
    if (guard?.stdin?.writable) guard.stdin.write(`${line}\n`);
  };

  const servers = new Map<string, ManagedServer>();
  const taken = new Set<number>(fixed);
  for (const spec of specs) {
    let port = spec.port || 0;
    while (!port || taken.has(port)) port = await freePort();
    taken.add(port);
    const tag = `[${spec.name}]`;
    const hooks: ManagedServerHooks = {
      sessionsLost: (kind, why) =>
        sessionsLost(
          spec.name,
          kind === "restarted" ? serverRestartedError(spec.name, why) : serverExitedError(spec.name, why),
        ),
      exited: (exit, lastErrors) => {
        say(`${tag} ${exit.description}${lastErrors.length ? "; the end of its stderr:" : ""}`);
        for (const line of lastErrors) say(`${tag}   ${line.text}`);
        say(
          `${tag} ${exitedNote({ restartPolicy: spec.restart ?? "never", watch: [...(spec.watch ?? [])] })}`,
        );
      },
      ready: (ms) => say(`${tag} ready at ${servers.get(spec.name)?.url} (${(ms / 1000).toFixed(1)} s)`),
      group: (change, pgid) => tellGuard(`${change}${pgid}`),
    };
    const server = createManagedServer(spec, port, {
      baseEnv: options.baseEnv,
      hooks,
      ignorePaths: options.ignorePaths,
      stopGraceMs: options.stopGraceMs,
      debounceMs: options.debounceMs,
      freeRestarts: options.freeRestarts,
    });
    // Restarts on the terminal too (the log on the server's page has every line).
    server.subscribe((e) => {
      if (e.type === "line" && e.line.stream === "system" && e.line.text.startsWith("restarting"))
        say(`${tag} ${e.line.text}`);
    });
    servers.set(spec.name, server);
  }

  // When this process exits, however (an uncaught error, a second Ctrl-C): each group gets SIGTERM now.
  const onExit = () => {
    for (const s of servers.values()) {
      const pgid = s.runningGroup();
      if (pgid === null) continue;
      try {
        process.kill(process.platform === "win32" ? pgid : -pgid, "SIGTERM");
      } catch {
        // gone
      }
    }
  };
  let started = false;

  return {
    list: () => [...servers.values()],
    get: (name) => servers.get(name),
    entries: () => [...servers.values()].map((s) => ({ name: s.name, url: s.url })),
    notReady: (name) => servers.get(name)?.notReady() ?? null,
    async start() {
      if (started) return;
      started = true;
      process.on("exit", onExit);
      if (options.orphanGuard ?? process.platform !== "win32") {
        try {
          const g = spawn(process.execPath, [GUARD], {
            detached: true,
            stdio: ["pipe", "ignore", "ignore"],
            env: {} as NodeJS.ProcessEnv,
          });
          g.on("error", () => {
            if (guard === g) guard = null;
          });
          g.stdin!.on("error", () => {});
          g.unref();
          (g.stdin as unknown as { unref?: () => void }).unref?.();
          guard = g;
        } catch {
          guard = null;
        }
      }
      await Promise.all([...servers.values()].map((s) => s.start()));
    },
    async settled(timeoutMs) {
      await Promise.all([...servers.values()].map((s) => s.settled(timeoutMs)));
    },
    onSessionsLost(listener) {
      lostListeners.add(listener);
      return () => lostListeners.delete(listener);
    },
    async stop() {
      await Promise.all([...servers.values()].map((s) => s.stop()));
      process.off("exit", onExit);
      guard?.stdin?.end();
      guard = null;
    },
  };
}
