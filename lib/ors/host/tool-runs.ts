// Tool runs of `/{env}/call` (spec: ors-sse.txt "Reconnection"): each run has a task_id, is kept
// while it runs and for a linger time after, so a client can re-POST its task_id and get the result.
// Results held for reconnection are bounded in total size; the oldest are dropped first.
import { randomUUID } from "node:crypto";
import { Fifo } from "./fifo";

/** A fixed per-result overhead added to its size when counting the reconnection cache. */
const RUN_OVERHEAD = 256;

export class ToolRun {
  readonly id: string;
  /** The session the run belongs to: a task_id gives nothing to another session. */
  readonly sid: string;
  done = false;
  /** The SSE frames after `task_id`: `chunk`...`end` events (bytes when large), or one `error` event. */
  frames: string | Buffer = "";
  completedAt = 0;
  /** Set when the run has a per-call time limit or its own abort controller. */
  timer: ReturnType<typeof setTimeout> | null = null;
  abort: AbortController | null = null;
  private waiters: Array<() => void> | null = null;

  constructor(id: string, sid: string) {
    this.id = id;
    this.sid = sid;
  }

  /** Calls `cb` once the run completes (at once if it has). */
  onDone(cb: () => void): void {
    if (this.done) cb();
    else if (this.waiters) this.waiters.push(cb);
    else this.waiters = [cb];
  }

  offDone(cb: () => void): void {
    if (!this.waiters) return;
    const i = this.waiters.indexOf(cb);
    if (i >= 0) this.waiters.splice(i, 1);
  }

  /** Marks the run complete with its frames; returns false if it already was. */
  settle(frames: string | Buffer, now: number): boolean {
    if (this.done) return false;
    this.done = true;
    this.frames = frames;
    this.completedAt = now;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const waiters = this.waiters;
    this.waiters = null;
    if (waiters) for (const w of waiters) w();
    return true;
  }
}

export class RunRegistry {
  private readonly runs = new Map<string, ToolRun>();
  /** Completed runs in completion order (oldest first), for linger expiry and the byte cap. */
  private readonly completed = new Fifo<ToolRun>();
  private bytes = 0;

  constructor(
    private readonly lingerMs: number,
    private readonly capBytes: number,
  ) {}

  /** Starts tracking a new run of session `sid`. */
  start(sid: string): ToolRun {
    const run = new ToolRun(randomUUID(), sid);
    this.runs.set(run.id, run);
    return run;
  }

  /** The run with this task_id, if it belongs to session `sid` and is still kept. */
  get(taskId: string, sid: string): ToolRun | undefined {
    const run = this.runs.get(taskId);
    return run && run.sid === sid ? run : undefined;
  }

  /** Completes a run and keeps its result for reconnection within the byte cap. */
  complete(run: ToolRun, frames: string | Buffer, now: number): boolean {
    if (!run.settle(frames, now)) return false;
    if (!this.runs.has(run.id)) return true;
    this.completed.push(run);
    this.bytes += frames.length + RUN_OVERHEAD;
    while (this.bytes > this.capBytes && this.completed.size > 0) this.dropOldest();
    return true;
  }

  /** Drops completed results older than the linger time. */
  sweep(now: number): void {
    for (let run = this.completed.peek(); run !== undefined; run = this.completed.peek()) {
      if (now - run.completedAt <= this.lingerMs) break;
      this.dropOldest();
    }
  }

  private dropOldest(): void {
    const run = this.completed.shift()!;
    this.runs.delete(run.id);
    this.bytes -= run.frames.length + RUN_OVERHEAD;
    // The frames may still be streaming to a client that holds the run; that copy goes with it.
  }

  /** Forgets everything (host shutdown). */
  clear(): void {
    this.runs.clear();
    this.completed.clear();
    this.bytes = 0;
  }

  get stats(): { running: number; kept: number; keptBytes: number } {
    return {
      running: this.runs.size - this.completed.size,
      kept: this.completed.size,
      keptBytes: this.bytes,
    };
  }
}
