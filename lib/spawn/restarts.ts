// When a spawned server is started again: restarts asked for while one waits are folded into it,
// run one after another, and wait 1 s, 2 s, 4 s ... (up to 15 s) once they come faster than
// `freeRestarts` a minute — a crash loop or a burst of saves does not spin.
import "server-only";
import { sleep } from "./process";

export interface RestartQueueOptions {
  /** Restarts within a minute that go at once (default 2). */
  freeRestarts?: number;
  now: () => number;
  /** Told before a restart waits its backoff (`wait` ms, for the first of `reasons`). */
  waiting(wait: number, reasons: string[], recent: number): void;
  /** Told when the wait is over. */
  waited(): void;
  /** The restart itself, with why (the reasons folded into one). */
  run(why: string): Promise<void>;
  /** Whether restarts have stopped for good (the server is stopping). */
  stopped(): boolean;
}

export class RestartQueue {
  private readonly recent: number[] = [];
  private chain: Promise<void> = Promise.resolve();
  private queued: string[] | null = null;
  private queuedRun: Promise<void> = Promise.resolve();

  constructor(private readonly o: RestartQueueOptions) {}

  /** Restarts after those before it (reasons given while it waits are folded into it). */
  request(why: string): Promise<void> {
    if (this.o.stopped()) return Promise.resolve();
    if (this.queued) {
      this.queued.push(why);
      return this.queuedRun;
    }
    const reasons = [why];
    this.queued = reasons;
    this.queuedRun = this.chain = this.chain.then(() => this.go(reasons));
    return this.queuedRun;
  }

  /** How long the next restart waits now. */
  backoffMs(): number {
    const t = this.o.now();
    while (this.recent.length && t - this.recent[0]! > 60_000) this.recent.shift();
    const k = this.recent.length - (this.o.freeRestarts ?? 2);
    if (k < 0) return 0;
    const gap = Math.min(1_000 * 2 ** k, 15_000);
    return Math.max(0, this.recent[this.recent.length - 1]! + gap - t);
  }

  private async go(reasons: string[]): Promise<void> {
    if (this.o.stopped()) return;
    const wait = this.backoffMs();
    if (wait > 0) {
      this.o.waiting(wait, reasons, this.recent.length);
      await sleep(wait);
      this.o.waited();
    }
    // From here on, a change starts another restart after this one.
    this.queued = null;
    if (this.o.stopped()) return;
    this.recent.push(this.o.now());
    await this.o.run(reasons.length === 1 ? reasons[0]! : `${reasons[0]} (and ${reasons.length - 1} more)`);
  }
}
