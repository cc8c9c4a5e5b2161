// One server the playground runs itself (`start --spawn`): its process started without a shell
// where possible, in a process group of its own, on a loopback port; its stdout and stderr in a
// bounded log; ready once it answers `GET /health`; a crash recorded with its exit code or signal;
// restarted (with backoff when restarts come fast) when files under `--watch` change, when asked, or
// (`--restart on-failure`) when it exits by itself, and stopped by its process group. The supervisor
// (./supervisor.ts) holds the servers of a start.
import "server-only";
import type { ChildProcess } from "node:child_process";
import path from "node:path";
import { healthResponseSchema } from "@/lib/ors/protocol";
import { mentionsPort, type ParsedCommand, parseCommandLine, showCommand, withPort } from "./command-line";
import { createLogBuffer, type LogBuffer } from "./log-buffer";
import {
  describeExit,
  describeSpawnError,
  freePort,
  killGroup,
  portIsFree,
  sleep,
  spawnInGroup,
} from "./process";
import { RestartQueue } from "./restarts";
import {
  exitedNote,
  type LogLine,
  type ProcessExit,
  type ProcessState,
  type ProcessStatus,
  type RestartPolicy,
} from "./types";
import { type ContentWatcher, watchContent } from "./watch";

export { freePort, portIsFree };

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
  /** `on-failure`: started again (with backoff) when it exits by itself; default `never`. */
  restart?: RestartPolicy;
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

/** The process now running, by its start's number: events of an older one are ignored. */
interface Running {
  gen: number;
  done: Promise<void>;
  resolve: () => void;
}

/** One spawned server: its state, its process, its restarts; each step a method. */
class ManagedProcess implements ManagedServer {
  readonly url: string;
  readonly log: LogBuffer = createLogBuffer();
  private readonly parsed: ParsedCommand;
  private readonly shown: string;
  private readonly now: () => number;
  private readonly restarts: RestartQueue;
  private readonly listeners = new Set<(e: ManagedServerEvent) => void>();
  private readonly settleWaiters = new Set<() => void>();
  private state: ProcessState = "stopped";
  private pid: number | null = null;
  private startedAt: number | null = null;
  private readyAt: number | null = null;
  private exit: ProcessExit | null = null;
  private restartCount = 0;
  private restartAt: number | null = null;
  /** Each process started gets a number (its generation). */
  private generation = 0;
  /** The generation whose exit the playground asked for (a stop or a restart). */
  private expected = 0;
  private running: Running | null = null;
  private stopped = false;
  private watcher: ContentWatcher | null = null;

  constructor(
    private readonly spec: SpawnSpec,
    readonly port: number,
    private readonly o: ManagedServerOptions,
  ) {
    this.now = o.now ?? Date.now;
    this.parsed =
      typeof spec.command === "string"
        ? parseCommandLine(spec.command)
        : { kind: "argv", argv: [...spec.command], env: {} };
    this.shown = typeof spec.command === "string" ? spec.command.trim() : showCommand(this.parsed);
    this.url = `http://127.0.0.1:${port}`;
    this.log.subscribe((line) => this.emit({ type: "line", line }));
    this.restarts = new RestartQueue({
      freeRestarts: o.freeRestarts,
      now: this.now,
      stopped: () => this.stopped,
      waiting: (wait, reasons, recent) => {
        this.restartAt = this.now() + wait;
        this.log.system(
          `restarting in ${(wait / 1000).toFixed(1)} s (${reasons[0]}): it restarted ${recent} times in the last minute`,
        );
        this.emitStatus();
      },
      waited: () => {
        this.restartAt = null;
      },
      run: (why) => this.restartNow(why),
    });
  }

  get name(): string {
    return this.spec.name;
  }

  status(): ProcessStatus {
    return {
      name: this.spec.name,
      command: this.shown,
      shell: this.parsed.kind === "shell" ? this.parsed.reason : null,
      cwd: this.spec.cwd,
      port: this.port,
      url: this.url,
      watch: [...(this.spec.watch ?? [])],
      restartPolicy: this.spec.restart ?? "never",
      state: this.state,
      pid: this.pid,
      startedAt: this.startedAt,
      readyAt: this.readyAt,
      exit: this.exit,
      restarts: this.restartCount,
      restartAt: this.restartAt,
    };
  }

  notReady(): string | null {
    switch (this.state) {
      case "ready":
        return null;
      case "starting":
        return `is starting: it has not answered GET /health yet (its log is on the server's page)`;
      case "restarting":
        return "is restarting";
      case "exited":
        return `is not running: it ${this.exit?.description ?? "exited"} (its log is on the server's page). ${exitedNote(this.status())}`;
      default:
        return "is stopped";
    }
  }

  async start(): Promise<void> {
    if (this.spec.watch?.length && !this.watcher) this.watcher = this.watchFiles(this.spec.watch);
    await this.startProcess();
  }

  settled(timeoutMs: number): Promise<ProcessState> {
    if (this.state !== "starting" && this.state !== "restarting") return Promise.resolve(this.state);
    return new Promise((resolve) => {
      const done = () => {
        this.settleWaiters.delete(done);
        clearTimeout(timer);
        resolve(this.state);
      };
      const timer = setTimeout(done, timeoutMs);
      this.settleWaiters.add(done);
    });
  }

  restart(why: string): Promise<void> {
    return this.restarts.request(why);
  }

  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    this.watcher?.close();
    await this.stopProcess();
    this.state = "stopped";
    this.emitStatus();
    for (const w of [...this.settleWaiters]) w();
  }

  runningGroup(): number | null {
    return this.pid;
  }

  subscribe(listener: (e: ManagedServerEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private emit(e: ManagedServerEvent): void {
    for (const listener of this.listeners) {
      try {
        listener(e);
      } catch {
        this.listeners.delete(listener);
      }
    }
  }

  private emitStatus(): void {
    this.emit({ type: "status", status: this.status() });
  }

  private setState(next: ProcessState): void {
    this.state = next;
    this.emitStatus();
    if (next !== "starting" && next !== "restarting") for (const w of [...this.settleWaiters]) w();
  }

  /** Restarts it when the content of a file under `dirs` changes. */
  private watchFiles(dirs: readonly string[]): ContentWatcher {
    return watchContent({
      dirs,
      ignore: this.spec.ignore,
      ignorePaths: this.o.ignorePaths,
      debounceMs: this.o.debounceMs,
      onChange: (files) => {
        const rel = files.map((f) => {
          const r = path.relative(this.spec.cwd, f);
          return r && !r.startsWith("..") ? r : f;
        });
        const what = rel.slice(0, 3).join(", ") + (rel.length > 3 ? ` and ${rel.length - 3} more` : "");
        void this.restart(`${what} changed`);
      },
      warn: (m) => this.log.system(`watch: ${m}`),
    });
  }

  /** The process's environment: the playground's as the user started it, without its token. */
  private childEnv(cmd: ParsedCommand): NodeJS.ProcessEnv {
    const env: Record<string, string | undefined> = { ...this.o.baseEnv };
    // The playground's own access token is not the server's business.
    delete env.PLAYGROUND_TOKEN;
    return {
      ...env,
      ...this.spec.env,
      ...(cmd.kind === "argv" ? cmd.env : {}),
      PORT: String(this.port),
    } as unknown as NodeJS.ProcessEnv;
  }

  /** Says it could not start (`description`) without a process to wait for. */
  private failedToStart(description: string): void {
    this.exit = { code: null, signal: null, at: this.now(), description };
    this.log.system(description);
    this.setState("exited");
    this.o.hooks.exited(this.exit, []);
  }

  /** Whether the port is free for start `gen` (a process of the last run may still be closing it). */
  private async portReady(gen: number): Promise<boolean> {
    if (await portIsFree(this.port)) return true;
    await sleep(1_000);
    if (gen !== this.generation) return false;
    if (await portIsFree(this.port)) return true;
    this.failedToStart(`could not start: port ${this.port} of 127.0.0.1 is in use by another process`);
    return false;
  }

  private async startProcess(): Promise<void> {
    if (this.stopped) return;
    const gen = ++this.generation;
    this.startedAt = this.now();
    this.readyAt = null;
    this.setState("starting");
    const cmd = withPort(this.parsed, this.port);
    if (!(await this.portReady(gen)) || gen !== this.generation || this.stopped) return;
    this.log.system(
      `starting: ${showCommand(cmd)}  (in ${this.spec.cwd}; PORT=${this.port}${cmd.kind === "shell" ? `; through /bin/sh -c, as the command uses ${cmd.reason}` : ""})`,
    );
    let resolveExit!: () => void;
    this.running = { gen, done: new Promise<void>((r) => (resolveExit = r)), resolve: () => resolveExit() };
    let proc: ChildProcess;
    try {
      proc = spawnInGroup(cmd, this.spec.cwd, this.childEnv(cmd));
    } catch (err) {
      this.onExit(gen, null, null, err as NodeJS.ErrnoException);
      return;
    }
    this.follow(proc, gen);
  }

  /** Reads the process's output into the log, and its end; waits for it to answer /health. */
  private follow(proc: ChildProcess, gen: number): void {
    proc.once("error", (err: NodeJS.ErrnoException) => {
      if (this.pid === null || err.code === "ENOENT") this.onExit(gen, null, null, err);
    });
    proc.once("exit", (code, signal) => {
      // What it left behind in its group (a shell's children, workers) goes with it; then its last
      // output (still in the pipes) is read before the exit is told.
      if (proc.pid !== undefined) killGroup(proc.pid, "SIGKILL");
      const closed = new Promise<void>((r) => proc.once("close", () => r()));
      void Promise.race([closed, sleep(1_000)]).then(() => this.onExit(gen, code, signal));
    });
    const out = this.log.writer("stdout");
    const err = this.log.writer("stderr");
    proc.stdout!.on("data", (d: Buffer) => out.write(d));
    proc.stdout!.once("end", () => out.end());
    proc.stderr!.on("data", (d: Buffer) => err.write(d));
    proc.stderr!.once("end", () => err.end());
    if (proc.pid !== undefined) {
      this.pid = proc.pid;
      this.o.hooks.group("+", proc.pid);
      this.emitStatus();
      void this.waitReady(gen);
    }
  }

  /** How start `gen` ended, in words. */
  private describeEnd(code: number | null, signal: NodeJS.Signals | null, error?: NodeJS.ErrnoException) {
    if (!error) return describeExit(code, signal, this.parsed.kind === "shell");
    const program = this.parsed.kind === "argv" ? withPort(this.parsed, this.port) : this.parsed;
    return describeSpawnError(error, program.kind === "argv" ? program.argv[0]! : "/bin/sh", this.spec.cwd);
  }

  private onExit(
    gen: number,
    code: number | null,
    signal: NodeJS.Signals | null,
    error?: NodeJS.ErrnoException,
  ) {
    const running = this.running;
    if (gen !== this.generation || running?.gen !== gen) return;
    this.running = null;
    const wasReady = this.state === "ready";
    if (this.pid !== null) this.o.hooks.group("-", this.pid);
    const description = this.describeEnd(code, signal, error);
    this.exit = { code, signal, at: this.now(), description };
    this.pid = null;
    running.resolve();
    if (this.expected === gen) {
      this.log.system(`stopped (${description})`);
      this.emitStatus();
      return;
    }
    const again = this.spec.restart === "on-failure";
    this.log.system(`${description}. ${exitedNote(this.status())}`);
    this.setState("exited");
    this.o.hooks.exited(this.exit, this.log.tail("stderr", 12));
    if (wasReady) this.o.hooks.sessionsLost("exited", description);
    if (again) void this.restart(`it ${description}`);
  }

  private async waitReady(gen: number): Promise<void> {
    const started = this.now();
    let warned = false;
    while (gen === this.generation && this.state === "starting") {
      if (await this.answersHealth()) {
        if (gen !== this.generation || this.state !== "starting") return;
        this.readyAt = this.now();
        this.log.system(
          `ready: answers GET /health at ${this.url} (${((this.readyAt - started) / 1000).toFixed(1)} s)`,
        );
        this.setState("ready");
        this.o.hooks.ready(this.readyAt - started);
        return;
      }
      const elapsed = this.now() - started;
      if (!warned && elapsed > (this.spec.readyTimeoutMs ?? 30_000)) {
        warned = true;
        this.log.system(
          `has not answered GET /health at ${this.url} after ${Math.round(elapsed / 1000)} s (still waiting): does it listen on 127.0.0.1 and the port it is given (${mentionsPort(this.parsed) ? "{port} in the command" : "$PORT; the command has no {port}"})?`,
        );
      }
      await sleep(elapsed < 5_000 ? 100 : 1_000);
    }
  }

  /** Whether it answers `GET /health` as an ORS server does now. */
  private async answersHealth(): Promise<boolean> {
    try {
      const res = await fetch(`${this.url}/health`, {
        signal: AbortSignal.timeout(2_000),
        redirect: "manual",
        headers: { accept: "application/json" },
      });
      const text = await res.text();
      return res.ok && healthResponseSchema.safeParse(JSON.parse(text)).success;
    } catch {
      // not listening yet, or not JSON yet
      return false;
    }
  }

  /** Stops the running process, if any: SIGTERM to its group, SIGKILL after the grace time. */
  private async stopProcess(): Promise<void> {
    const running = this.running;
    if (!running || this.pid === null) return;
    this.expected = running.gen;
    const group = this.pid;
    const grace = this.o.stopGraceMs ?? 5_000;
    killGroup(group, "SIGTERM");
    const timer = sleep(grace).then(() => "late" as const);
    if ((await Promise.race([running.done.then(() => "done" as const), timer])) === "late") {
      this.log.system(`did not stop within ${grace / 1000} s of SIGTERM: SIGKILL`);
      killGroup(group, "SIGKILL");
      await Promise.race([running.done, sleep(2_000)]);
    }
  }

  /** One restart, its turn come: stops the process, tells who lost sessions, starts it again. */
  private async restartNow(why: string): Promise<void> {
    const wasReady = this.state === "ready";
    this.log.system(`restarting: ${why}`);
    this.setState("restarting");
    await this.stopProcess();
    if (this.stopped) return;
    if (wasReady) this.o.hooks.sessionsLost("restarted", why);
    this.restartCount++;
    await this.startProcess();
  }
}

export function createManagedServer(spec: SpawnSpec, port: number, o: ManagedServerOptions): ManagedServer {
  return new ManagedProcess(spec, port, o);
}
