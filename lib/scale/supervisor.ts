// The supervisor of `serve --workers N`: starts N `serve` processes on loopback, each with a session
// id prefix naming it (w<i>-r<restart>-), waits until each listens, forwards their output, and
// restarts one that dies (with backoff; same index, so its sessions' route holds for new ones).
import "server-only";
import { type ChildProcess, spawn } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { workerSessionPrefix } from "./nginx-config";
import { stopGroup } from "./processes";
import { WORKER_VAR, type WorkerReady } from "./worker";

/** The package's command, which runs `serve` in each worker (shipped with the package: bin/). */
export const CLI_ENTRY = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  "../../bin/ors-playground.mjs",
);

export interface SupervisorOptions {
  workers: number;
  /** The user's ORS_SESSION_ID_PREFIX ("" when unset): each worker's prefix follows it. */
  sessionIdBase: string;
  /** The environment of every worker (ORS_* limits, ORS_ENVS ...), before its own variables. */
  env: Record<string, string | undefined>;
  cwd: string;
  /** Lines for the terminal (a worker's output comes prefixed with its name). */
  stdout(line: string): void;
  stderr(line: string): void;
  /** A worker restarted on another port than before: nginx must be told. */
  onMoved(): void;
  /** The process groups to stop if this process dies: after every start and exit. */
  onPids(pids: number[]): void;
  /** Longest start of one worker (default 90 s: a cold start compiles TypeScript). */
  startTimeoutMs?: number;
  /** First restart delay (default 500 ms), doubled while a worker keeps dying, at most `maxBackoffMs`. */
  backoffMs?: number;
  maxBackoffMs?: number;
}

export interface WorkerState {
  readonly index: number;
  restart: number;
  port: number;
  pid: number | null;
  /** `ready`: serving; `down`: exited, a restart is due; `starting` (again). */
  status: "starting" | "ready" | "down";
  ready: WorkerReady | null;
}

interface Running {
  child: ChildProcess;
  exited: Promise<void>;
}

/** A worker that did not start (its output says why). */
export class WorkerStartError extends Error {}

/** After this long serving, a worker's death is not a crash loop: its backoff starts over. */
const STABLE_MS = 10_000;

export class Supervisor {
  readonly workers: WorkerState[];
  private readonly running = new Map<number, Running>();
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly failures = new Map<number, number>();
  private stopping = false;

  constructor(private readonly o: SupervisorOptions) {
    this.workers = Array.from({ length: o.workers }, (_, index) => ({
      index,
      restart: 0,
      port: 0,
      pid: null,
      status: "starting" as const,
      ready: null,
    }));
  }

  /** Starts every worker; rejects (after stopping those that started) when one cannot start. */
  async start(): Promise<void> {
    const results = await Promise.allSettled(this.workers.map((w) => this.launch(w, 0)));
    const failed = results.find((r): r is PromiseRejectedResult => r.status === "rejected");
    if (failed) {
      await this.stop();
      throw failed.reason;
    }
  }

  /** The live worker process ids. */
  pids(): number[] {
    return [...this.running.values()].map((r) => r.child.pid!).filter(Boolean);
  }

  /** Stops every worker (SIGTERM: they end their sessions), SIGKILL after `graceMs`. No restarts after. */
  async stop(graceMs = 10_000): Promise<void> {
    this.stopping = true;
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
    await Promise.all(
      [...this.running.values()].map(({ child, exited }) =>
        stopGroup(child.pid!, child, exited, graceMs, "SIGTERM"),
      ),
    );
  }

  /** Starts worker `w` on `port` (0: any free one); resolves when it listens. */
  private launch(w: WorkerState, port: number): Promise<void> {
    const prefix = workerSessionPrefix(this.o.sessionIdBase, w.index, w.restart);
    const env: Record<string, string | undefined> = {
      ...this.o.env,
      ORS_SESSION_ID_PREFIX: prefix,
      [WORKER_VAR]: JSON.stringify({ index: w.index, restart: w.restart }),
    };
    delete env.PORT;
    const child = spawn(
      process.execPath,
      [CLI_ENTRY, "serve", "--port", String(port), "--host", "127.0.0.1"],
      {
        cwd: this.o.cwd,
        env: env as NodeJS.ProcessEnv,
        stdio: ["ignore", "pipe", "pipe", "ipc"],
        // A group of its own: Ctrl-C in the terminal reaches the supervisor, which stops it in order.
        detached: true,
      },
    );
    w.status = "starting";
    w.pid = child.pid ?? null;
    w.ready = null;
    const name = `[worker ${w.index}] `;
    let tail = "";
    const keep = (d: Buffer) => {
      tail = (tail + d).slice(-4000);
    };
    const forward = (write: (line: string) => void) => {
      let partial = "";
      return (d: Buffer) => {
        if (w.status !== "ready") return keep(d);
        const lines = (partial + d).split("\n");
        partial = lines.pop()!;
        // A line that never ends is passed on in pieces rather than kept.
        if (partial.length > 64 * 1024) {
          lines.push(partial);
          partial = "";
        }
        for (const line of lines) write(`${name}${line}`);
      };
    };
    child.stdout!.on("data", forward(this.o.stdout));
    child.stderr!.on("data", forward(this.o.stderr));
    const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
    this.running.set(w.index, { child, exited });
    this.o.onPids(this.pids());

    const startedAt = { ms: 0 };
    const ready = new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        reject(new WorkerStartError(`worker ${w.index} did not start within ${this.startTimeoutS()} s`));
        void stopGroup(child.pid!, child, exited, 0);
      }, this.o.startTimeoutMs ?? 90_000);
      child.on("message", (m: unknown) => {
        if ((m as WorkerReady | null)?.type !== "ready" || w.status === "ready") return;
        clearTimeout(timer);
        const url = new URL((m as WorkerReady).url);
        const moved = w.port !== 0 && Number(url.port) !== w.port;
        w.port = Number(url.port);
        w.ready = m as WorkerReady;
        w.status = "ready";
        startedAt.ms = Date.now();
        if (moved) this.o.onMoved();
        resolve();
      });
      child.once("exit", (code, signal) => {
        clearTimeout(timer);
        const how = signal ? `killed by ${signal}` : `exit code ${code}`;
        reject(new WorkerStartError(`worker ${w.index} exited while starting (${how}):\n${tail.trim()}`));
      });
    });
    child.once("exit", (code, signal) => {
      this.running.delete(w.index);
      this.o.onPids(this.pids());
      const wasReady = w.status === "ready";
      w.status = "down";
      w.pid = null;
      if (this.stopping || !wasReady) return;
      const how = signal ? `killed by ${signal}` : `exit code ${code}`;
      const crashLoop = Date.now() - startedAt.ms < STABLE_MS;
      const failures = crashLoop ? (this.failures.get(w.index) ?? 0) + 1 : 1;
      this.failures.set(w.index, failures);
      const delay = this.delay(failures);
      this.o.stderr(
        `worker ${w.index} (pid ${child.pid}) stopped (${how}): the sessions it held are lost; restarting it in ${seconds(delay)}`,
      );
      this.scheduleRestart(w, delay, w.port);
    });
    return ready;
  }

  private scheduleRestart(w: WorkerState, delay: number, port: number): void {
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      if (this.stopping) return;
      w.restart++;
      this.launch(w, port).then(
        () =>
          this.o.stdout(
            `worker ${w.index}: pid ${w.pid} on http://127.0.0.1:${w.port}, session ids ${w.ready ? workerSessionPrefix(this.o.sessionIdBase, w.index, w.restart) : "?"}… (restart ${w.restart})`,
          ),
        (e: Error) => {
          if (this.stopping) return;
          const failures = (this.failures.get(w.index) ?? 0) + 1;
          this.failures.set(w.index, failures);
          const next = this.delay(failures);
          this.o.stderr(`${e.message}\nretrying worker ${w.index} in ${seconds(next)}`);
          // Its old port may be taken now: any free one (nginx is told when it comes back).
          this.scheduleRestart(w, next, 0);
        },
      );
    }, delay);
    this.timers.add(timer);
  }

  private delay(failures: number): number {
    const base = this.o.backoffMs ?? 500;
    return Math.min(this.o.maxBackoffMs ?? 30_000, base * 2 ** (failures - 1));
  }

  private startTimeoutS(): number {
    return Math.round((this.o.startTimeoutMs ?? 90_000) / 1000);
  }
}

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(ms < 1000 ? 1 : 0)} s`;
}
