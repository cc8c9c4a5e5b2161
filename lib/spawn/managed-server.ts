// One server the playground runs itself (`start --spawn`): its process started without a shell
// where possible, in a process group of its own, on a loopback port; its stdout and stderr in a
// bounded log; ready once it answers `GET /health`; a crash recorded with its exit code or signal;
// restarted (with backoff when restarts come fast) when files under `--watch` change or when asked,
// and stopped by its process group. The supervisor (./supervisor.ts) holds the servers of a start.
import "server-only";
import { type ChildProcess, spawn } from "node:child_process";
import { createServer } from "node:net";
import path from "node:path";
import { healthResponseSchema } from "@/lib/ors/protocol";
import { mentionsPort, type ParsedCommand, parseCommandLine, showCommand, withPort } from "./command-line";
import { createLogBuffer, type LogBuffer } from "./log-buffer";
import type { LogLine, ProcessExit, ProcessState, ProcessStatus } from "./types";
import { type ContentWatcher, watchContent } from "./watch";

export interface SpawnSpec {
  /** The server's name in the playground. */
  name: string;
  /** A command line (split as a shell would, `{port}` replaced) or the arguments themselves. */
  command: string | readonly string[];
  /** The folder it runs in (absolute). */
  cwd: string;
  /** Folders (absolute) whose changes of content restart it. */
  watch?: readonly string[];
  /** More names or globs to ignore under `watch`. */
  ignore?: readonly string[];
  /** Variables for the process, beside the playground's own environment. */
  env?: Readonly<Record<string, string>>;
  /** The port to give it; unset or 0: a free one, picked once and kept across restarts. */
  port?: number;
  /** How long it may take to answer `/health` before the log says it has not (default 30 s). */
  readyTimeoutMs?: number;
}

export type ManagedServerEvent = { type: "line"; line: LogLine } | { type: "status"; status: ProcessStatus };

export interface ManagedServerHooks {
  /** The sessions on it are gone (a restart, or it exited while ready): `why` in words. */
  sessionsLost(kind: "restarted" | "exited", why: string): void;
  /** It exited by itself: what happened, and the last lines of its stderr. */
  exited(exit: ProcessExit, lastErrors: LogLine[]): void;
  /** It answered /health. */
  ready(afterMs: number): void;
  /** The process group of a process started (`+`) or ended (`-`): for the orphan guard. */
  group(change: "+" | "-", pgid: number): void;
}

export interface ManagedServerOptions {
  /** The playground's environment as the user started it: the process gets it, minus the token. */
  baseEnv: Readonly<Record<string, string | undefined>>;
  hooks: ManagedServerHooks;
  /** Paths never watched (the playground's data folder). */
  ignorePaths?: readonly string[];
  /** Time between SIGTERM and SIGKILL when stopping (default 5 s). */
  stopGraceMs?: number;
  /** Quiet time of the file watch (default 300 ms). */
  debounceMs?: number;
  /** Restarts within a minute that go at once; later ones wait 1 s, 2 s, 4 s ... up to 15 s. */
  freeRestarts?: number;
  now?: () => number;
}

export interface ManagedServer {
  readonly name: string;
  readonly url: string;
  readonly port: number;
  readonly log: LogBuffer;
  status(): ProcessStatus;
  /** Why the relay must not forward to it now (starting, exited ...), or null when it is ready. */
  notReady(): string | null;
  /** Starts the process (resolves once it is spawned, not when ready). */
  start(): Promise<void>;
  /** Resolves when it is ready or has exited (or after `timeoutMs`). */
  settled(timeoutMs: number): Promise<ProcessState>;
  /** Stops it and starts it again, saying why (after a backoff when restarts come fast). */
  restart(why: string): Promise<void>;
  /** Stops it for good (its process group: SIGTERM, then SIGKILL). */
  stop(): Promise<void>;
  /** The pgid of the running process, for the synchronous kill when the playground exits. */
  runningGroup(): number | null;
  subscribe(listener: (e: ManagedServerEvent) => void): () => void;
}

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

const GROUPS = process.platform !== "win32";
const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms).unref?.());

function killGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    if (GROUPS) process.kill(-pid, signal);
    else process.kill(pid, signal);
  } catch {
    // already gone
  }
}

function describeExit(code: number | null, signal: NodeJS.Signals | null, shell: boolean): string {
  if (signal) return `was killed by ${signal}`;
  if (code === 127 && shell) return "exited with code 127 (the shell did not find the command)";
  return `exited with code ${code}`;
}

function describeSpawnError(err: NodeJS.ErrnoException, program: string, cwd: string): string {
  if (err.code === "ENOENT")
    return `could not start: command not found: ${program} (is it installed, and on PATH? or is the folder ${cwd} missing?)`;
  if (err.code === "EACCES") return `could not start: ${program} is not executable (permission denied)`;
  return `could not start: ${err.message}`;
}

export function createManagedServer(spec: SpawnSpec, port: number, o: ManagedServerOptions): ManagedServer {
  const now = o.now ?? Date.now;
  const parsed: ParsedCommand =
    typeof spec.command === "string"
      ? parseCommandLine(spec.command)
      : { kind: "argv", argv: [...spec.command], env: {} };
  const shown = typeof spec.command === "string" ? spec.command.trim() : showCommand(parsed);
  const url = `http://127.0.0.1:${port}`;
  const readyTimeoutMs = spec.readyTimeoutMs ?? 30_000;
  const stopGraceMs = o.stopGraceMs ?? 5_000;
  const freeRestarts = o.freeRestarts ?? 2;
  const log = createLogBuffer();
  const listeners = new Set<(e: ManagedServerEvent) => void>();
  log.subscribe((line) => emit({ type: "line", line }));

  let state: ProcessState = "stopped";
  let pid: number | null = null;
  let startedAt: number | null = null;
  let readyAt: number | null = null;
  let exit: ProcessExit | null = null;
  let restarts = 0;
  let restartAt: number | null = null;
  /** Each process started gets a number; events of an older one are ignored. */
  let generation = 0;
  /** The generation whose exit the playground asked for (a stop or a restart). */
  let expected = 0;
  let exitOf: { gen: number; done: Promise<void>; resolve: () => void } | null = null;
  let stopped = false;
  let watcher: ContentWatcher | null = null;
  const recentRestarts: number[] = [];
  let restartChain: Promise<void> = Promise.resolve();
  let queued: string[] | null = null;
  let queuedRun: Promise<void> = Promise.resolve();
  const settleWaiters = new Set<() => void>();

  const status = (): ProcessStatus => ({
    name: spec.name,
    command: shown,
    shell: parsed.kind === "shell" ? parsed.reason : null,
    cwd: spec.cwd,
    port,
    url,
    watch: [...(spec.watch ?? [])],
    state,
    pid,
    startedAt,
    readyAt,
    exit,
    restarts,
    restartAt,
  });

  function emit(e: ManagedServerEvent) {
    for (const listener of listeners) {
      try {
        listener(e);
      } catch {
        listeners.delete(listener);
      }
    }
  }
  const setState = (next: ProcessState) => {
    state = next;
    emit({ type: "status", status: status() });
    if (next !== "starting" && next !== "restarting") for (const w of [...settleWaiters]) w();
  };

  const childEnv = (cmd: ParsedCommand): NodeJS.ProcessEnv => {
    const env: Record<string, string | undefined> = { ...o.baseEnv };
    // The playground's own access token is not the server's business.
    delete env.PLAYGROUND_TOKEN;
    return {
      ...env,
      ...spec.env,
      ...(cmd.kind === "argv" ? cmd.env : {}),
      PORT: String(port),
    } as unknown as NodeJS.ProcessEnv;
  };

  const onExit = (
    gen: number,
    code: number | null,
    signal: NodeJS.Signals | null,
    error?: NodeJS.ErrnoException,
  ) => {
    if (gen !== generation || exitOf?.gen !== gen) return;
    const done = exitOf;
    exitOf = null;
    const wasReady = state === "ready";
    if (pid !== null) o.hooks.group("-", pid);
    const program = parsed.kind === "argv" ? withPort(parsed, port) : parsed;
    const description = error
      ? describeSpawnError(error, program.kind === "argv" ? program.argv[0]! : "/bin/sh", spec.cwd)
      : describeExit(code, signal, parsed.kind === "shell");
    exit = { code, signal, at: now(), description };
    pid = null;
    done.resolve();
    if (expected === gen) {
      log.system(`stopped (${description})`);
      emit({ type: "status", status: status() });
      return;
    }
    log.system(description);
    setState("exited");
    o.hooks.exited(exit, log.tail("stderr", 12));
    if (wasReady) o.hooks.sessionsLost("exited", description);
  };

  const waitReady = async (gen: number) => {
    const started = now();
    let warned = false;
    while (gen === generation && state === "starting") {
      try {
        const res = await fetch(`${url}/health`, {
          signal: AbortSignal.timeout(2_000),
          redirect: "manual",
          headers: { accept: "application/json" },
        });
        const text = await res.text();
        if (res.ok && healthResponseSchema.safeParse(JSON.parse(text)).success) {
          if (gen !== generation || state !== "starting") return;
          readyAt = now();
          log.system(`ready: answers GET /health at ${url} (${((readyAt - started) / 1000).toFixed(1)} s)`);
          setState("ready");
          o.hooks.ready(readyAt - started);
          return;
        }
      } catch {
        // not listening yet, or not JSON yet
      }
      const elapsed = now() - started;
      if (!warned && elapsed > readyTimeoutMs) {
        warned = true;
        log.system(
          `has not answered GET /health at ${url} after ${Math.round(elapsed / 1000)} s (still waiting): does it listen on 127.0.0.1 and the port it is given (${mentionsPort(parsed) ? "{port} in the command" : "$PORT; the command has no {port}"})?`,
        );
      }
      await sleep(elapsed < 5_000 ? 100 : 1_000);
    }
  };

  const startProcess = async () => {
    if (stopped) return;
    const gen = ++generation;
    startedAt = now();
    readyAt = null;
    setState("starting");
    const cmd = withPort(parsed, port);
    if (!(await portIsFree(port))) {
      // A process of the last run may still be closing its socket.
      await sleep(1_000);
      if (gen !== generation) return;
      if (!(await portIsFree(port))) {
        const description = `could not start: port ${port} of 127.0.0.1 is in use by another process`;
        exit = { code: null, signal: null, at: now(), description };
        log.system(description);
        setState("exited");
        o.hooks.exited(exit, []);
        return;
      }
    }
    if (gen !== generation || stopped) return;
    log.system(
      `starting: ${showCommand(cmd)}  (in ${spec.cwd}; PORT=${port}${cmd.kind === "shell" ? `; through /bin/sh -c, as the command uses ${cmd.reason}` : ""})`,
    );
    let resolveExit!: () => void;
    exitOf = { gen, done: new Promise<void>((r) => (resolveExit = r)), resolve: () => resolveExit() };
    let proc: ChildProcess;
    try {
      proc =
        cmd.kind === "shell"
          ? spawn(cmd.command, [], {
              cwd: spec.cwd,
              env: childEnv(cmd),
              stdio: ["ignore", "pipe", "pipe"],
              detached: GROUPS,
              shell: true,
            })
          : spawn(cmd.argv[0]!, cmd.argv.slice(1), {
              cwd: spec.cwd,
              env: childEnv(cmd),
              stdio: ["ignore", "pipe", "pipe"],
              detached: GROUPS,
            });
    } catch (err) {
      onExit(gen, null, null, err as NodeJS.ErrnoException);
      return;
    }
    proc.once("error", (err: NodeJS.ErrnoException) => {
      if (pid === null || err.code === "ENOENT") onExit(gen, null, null, err);
    });
    proc.once("exit", (code, signal) => {
      // What it left behind in its group (a shell's children, workers) goes with it; then its last
      // output (still in the pipes) is read before the exit is told.
      if (proc.pid !== undefined) killGroup(proc.pid, "SIGKILL");
      const closed = new Promise<void>((r) => proc.once("close", () => r()));
      void Promise.race([closed, sleep(1_000)]).then(() => onExit(gen, code, signal));
    });
    const out = log.writer("stdout");
    const err = log.writer("stderr");
    proc.stdout!.on("data", (d: Buffer) => out.write(d));
    proc.stdout!.once("end", () => out.end());
    proc.stderr!.on("data", (d: Buffer) => err.write(d));
    proc.stderr!.once("end", () => err.end());
    if (proc.pid !== undefined) {
      pid = proc.pid;
      o.hooks.group("+", pid);
      emit({ type: "status", status: status() });
      void waitReady(gen);
    }
  };

  /** Stops the running process, if any: SIGTERM to its group, SIGKILL after the grace time. */
  const stopProcess = async () => {
    const running = exitOf;
    if (!running || pid === null) return;
    expected = running.gen;
    const group = pid;
    killGroup(group, "SIGTERM");
    const timer = sleep(stopGraceMs).then(() => "late" as const);
    if ((await Promise.race([running.done.then(() => "done" as const), timer])) === "late") {
      log.system(`did not stop within ${stopGraceMs / 1000} s of SIGTERM: SIGKILL`);
      killGroup(group, "SIGKILL");
      await Promise.race([running.done, sleep(2_000)]);
    }
  };

  const backoffMs = (): number => {
    const t = now();
    while (recentRestarts.length && t - recentRestarts[0]! > 60_000) recentRestarts.shift();
    const k = recentRestarts.length - freeRestarts;
    if (k < 0) return 0;
    const gap = Math.min(1_000 * 2 ** k, 15_000);
    return Math.max(0, recentRestarts[recentRestarts.length - 1]! + gap - t);
  };

  const doRestart = async (reasons: string[]) => {
    if (stopped) return;
    const wait = backoffMs();
    if (wait > 0) {
      restartAt = now() + wait;
      log.system(
        `restarting in ${(wait / 1000).toFixed(1)} s (${reasons[0]}): it restarted ${recentRestarts.length} times in the last minute`,
      );
      emit({ type: "status", status: status() });
      await sleep(wait);
      restartAt = null;
    }
    // From here on, a change starts another restart after this one.
    queued = null;
    if (stopped) return;
    const why = reasons.length === 1 ? reasons[0]! : `${reasons[0]} (and ${reasons.length - 1} more)`;
    recentRestarts.push(now());
    const wasReady = state === "ready";
    log.system(`restarting: ${why}`);
    setState("restarting");
    await stopProcess();
    if (stopped) return;
    if (wasReady) o.hooks.sessionsLost("restarted", why);
    restarts++;
    await startProcess();
  };

  const restart = (why: string): Promise<void> => {
    if (stopped) return Promise.resolve();
    // Reasons given while a restart waits for its turn (or its backoff) are folded into it.
    if (queued) {
      queued.push(why);
      return queuedRun;
    }
    const reasons = [why];
    queued = reasons;
    queuedRun = restartChain = restartChain.then(() => doRestart(reasons));
    return queuedRun;
  };

  return {
    name: spec.name,
    url,
    port,
    log,
    status,
    notReady() {
      switch (state) {
        case "ready":
          return null;
        case "starting":
          return `is starting: it has not answered GET /health yet (its log is on the server's page)`;
        case "restarting":
          return "is restarting";
        case "exited":
          return `is not running: it ${exit?.description ?? "exited"} (its log is on the server's page)`;
        default:
          return "is stopped";
      }
    },
    async start() {
      if (spec.watch?.length && !watcher)
        watcher = watchContent({
          dirs: spec.watch,
          ignore: spec.ignore,
          ignorePaths: o.ignorePaths,
          debounceMs: o.debounceMs,
          onChange: (files) => {
            const rel = files.map((f) => {
              const r = path.relative(spec.cwd, f);
              return r && !r.startsWith("..") ? r : f;
            });
            const what = rel.slice(0, 3).join(", ") + (rel.length > 3 ? ` and ${rel.length - 3} more` : "");
            void restart(`${what} changed`);
          },
          warn: (m) => log.system(`watch: ${m}`),
        });
      await startProcess();
    },
    settled(timeoutMs) {
      if (state !== "starting" && state !== "restarting") return Promise.resolve(state);
      return new Promise((resolve) => {
        const done = () => {
          settleWaiters.delete(done);
          clearTimeout(timer);
          resolve(state);
        };
        const timer = setTimeout(done, timeoutMs);
        settleWaiters.add(done);
      });
    },
    restart,
    async stop() {
      if (stopped) return;
      stopped = true;
      watcher?.close();
      await stopProcess();
      state = "stopped";
      emit({ type: "status", status: status() });
      for (const w of [...settleWaiters]) w();
    },
    runningGroup: () => pid,
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}
