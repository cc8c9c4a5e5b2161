// The relay's SSE tap: an SSE answer passes from the server to the client chunk by chunk, as the
// client takes it (no buffering, no re-encoding: the chunks written are the chunks read), and is
// parsed on the way with size limits — for `/call` the frames and the result are published, for
// `/create_session` the session id. Past a limit, when the server goes silent, or when its stream
// ends or breaks before `end`, the client gets an `event: error` saying why and the stream ends. The
// chunk that completes a call (its `end` or `error`) leaves only once the recorder has acknowledged
// the step (./events.ts "Acknowledgement"); so does every further window of a long stream. When the
// client goes away in the middle of a call, the server's answer is still read (bounded in time and
// size) so the step is recorded whole.
import "server-only";
import {
  createSseFrameParser,
  formatSseComment,
  formatSseEvent,
  RESUMABLE_BREAK_COMMENT,
  ResultAssembler,
  type SseFrame,
  SseLimitError,
} from "@/lib/ors/protocol";
import { AnswerCapture, type ExchangeLog, publishExchange } from "./exchange-log";
import type { RelaySink, RelayStream } from "./io";
import { type CallObserver, callObserver, detachFrame, type Exchange, endpointOf, publish } from "./observe";
import type { SourceSink, SseSource } from "./upstream";

/** A duration as a message says it: `60 s`, `0.3 s`. */
function seconds(ms: number): string {
  return ms >= 10_000 ? `${Math.round(ms / 1000)} s` : `${Number((ms / 1000).toFixed(1))} s`;
}

const SSE_TYPE = "text/event-stream";
/** Characters of a call's stream passed on before the relay waits for the recorder to catch up. */
const ACK_WINDOW_CHARS = 1024 * 1024;

/** The SSE answer `source` as the client's stream, tapped (see the top of this file). */
export function tapSse(x: Exchange, source: SseSource, log: ExchangeLog | null): RelayStream {
  return new SseTap(x, source, log);
}

type Inbound = string | Uint8Array | { end: true } | { fail: unknown };

/** A chunk held for the recorder's acknowledgement, what arrived after it, and the wait's limit. */
interface Held {
  chunk: string | Uint8Array | null;
  inbox: Inbound[];
  late: ReturnType<typeof setTimeout> | undefined;
}

/** Parses what passes and publishes it: a call's frames and outcome, or a new session's id. */
class StreamReader {
  readonly observer: CallObserver | null;
  readonly isSession: boolean;
  finished = false;
  sessionCreated: string | undefined;
  private decoder: TextDecoder | null = null;
  private result: ResultAssembler | null = null;
  private otherChars = 0;
  private readonly parser: ReturnType<typeof createSseFrameParser> | null;

  constructor(private readonly x: Exchange) {
    const ep = endpointOf(x);
    const ok = (x.status ?? 0) >= 200 && (x.status ?? 0) < 300;
    this.isSession = x.listening && ok && ep === "create_session";
    this.observer = x.listening && ok && ep === "call" ? callObserver(x) : null;
    this.parser =
      this.observer || this.isSession
        ? createSseFrameParser((f) => this.onFrame(f), {
            maxLineChars: x.limits.maxSseLineChars,
            maxEventChars: x.limits.maxSseEventChars,
          })
        : null;
  }

  private onFrame(parsed: SseFrame): void {
    const { observer, x } = this;
    if (!this.isSession && (!observer || this.finished)) return;
    const frame = detachFrame(parsed);
    if (
      this.isSession &&
      this.sessionCreated === undefined &&
      frame.kind === "event" &&
      frame.event === "task_id"
    ) {
      this.sessionCreated = frame.data.trim();
      publish(x, { type: "session_created", server: x.server, sid: this.sessionCreated, at: Date.now() });
    }
    if (!observer || this.finished) return;
    const max = x.limits.maxResultChars;
    if (frame.kind === "comment" || (frame.event !== "chunk" && frame.event !== "end")) {
      this.otherChars +=
        frame.kind === "comment" ? frame.comment.length + 4 : frame.event.length + frame.data.length + 16;
      if (this.otherChars > x.limits.maxCallOtherChars)
        throw new SseLimitError(
          `more than ${x.limits.maxCallOtherChars} characters of frames that are not part of a result`,
        );
    }
    observer.frame(frame);
    if (frame.kind !== "event") return;
    if (frame.event === "chunk") {
      this.result ??= new ResultAssembler(max);
      this.result.add(frame.data);
    } else if (frame.event === "end") {
      this.finished = true;
      observer.finish((this.result ?? new ResultAssembler(max)).end(frame.data));
      this.result = null;
    } else if (frame.event === "error") {
      this.finished = true;
      observer.finish({ ok: false, error: frame.data || "unknown SSE error" });
    }
  }

  /** Parses one piece (null: the end); returns an error message when the server broke a limit. */
  parse(chunk: string | Uint8Array | null): string | null {
    const parser = this.parser;
    if (!parser) return null;
    try {
      if (chunk === null) {
        if (this.decoder) parser.feed(this.decoder.decode());
        parser.end();
      } else if (typeof chunk === "string") parser.feed(chunk);
      else {
        this.decoder ??= new TextDecoder();
        parser.feed(this.decoder.decode(chunk, { stream: true }));
      }
      return null;
    } catch (err) {
      if (err instanceof SseLimitError || (err instanceof Error && err.name === "ResultTooLargeError"))
        return `relay: ${this.x.server} sent ${err.message}; the stream was ended`;
      return `relay: could not read the stream: ${err instanceof Error ? err.message : String(err)}`;
    }
  }

  /** The call ended without its result (a limit, silence, the stream cut): published once. */
  broken(why: string): void {
    if (!this.observer || this.finished) return;
    this.finished = true;
    this.observer.finish({ ok: false, error: why, broken: true });
  }
}

class SseTap implements RelayStream {
  private readonly reader: StreamReader;
  private readonly capture: AnswerCapture | null;
  private out: RelaySink | null = null;
  private gone = false;
  private stopped = false;
  /** The source's wait for room (it was told to wait), resumed once the client and the gate take more. */
  private waiting: (() => void) | null = null;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private deadline: ReturnType<typeof setTimeout> | undefined;
  private drainDeadline = 0;
  /** While the recorder has not acknowledged what the held chunk completes: what came after it. */
  private held: Held | null = null;
  private unacked = 0;
  /** Whether what the client got so far ends with a whole frame. */
  private atFrameEnd = true;
  private readonly fromServer: SourceSink;

  constructor(
    private readonly x: Exchange,
    private readonly source: SseSource,
    private readonly log: ExchangeLog | null,
  ) {
    this.reader = new StreamReader(x);
    this.capture = log ? new AnswerCapture() : null;
    this.fromServer = {
      write: (chunk) => this.take(chunk),
      end: () => this.take({ end: true }),
      fail: (err) => this.take({ fail: err }),
      onDrain: (cb) => this.onDrain(cb),
    };
  }

  start(sink: RelaySink): void {
    this.out = sink;
    this.arm();
    this.deadline = setTimeout(this.onLate, this.x.limits.answerMaxMs);
    this.source.attach(this.fromServer);
  }

  clientGone(): void {
    if (this.gone) return;
    this.gone = true;
    this.logged();
    if (!this.reader.observer || this.reader.finished) {
      this.stop();
      return;
    }
    // Keep reading the call's answer (bounded) so its step is recorded whole.
    this.drainDeadline = Date.now() + this.x.limits.drainMaxMs;
    this.arm();
    this.resume(true);
  }

  /** What the server sent next: passed on now, or queued behind a held chunk. */
  private take(item: Inbound): boolean {
    if (this.stopped) return true;
    if (this.held) {
      this.held.inbox.push(item);
      return false;
    }
    return this.process(item);
  }

  private process(item: Inbound): boolean {
    if (typeof item === "object" && "end" in item) {
      this.ended();
      return true;
    }
    if (typeof item === "object" && "fail" in item) {
      const err = item.fail;
      this.cut(`the stream broke before \`end\`: ${err instanceof Error ? err.message : String(err)}`);
      return true;
    }
    return this.write(item);
  }

  private write(chunk: string | Uint8Array): boolean {
    const reader = this.reader;
    this.arm();
    const wasFinished = reader.finished;
    const limitHit = reader.parse(chunk);
    if (limitHit) {
      reader.broken(limitHit);
      this.gate(() => this.endClient(limitHit));
      this.stop();
      return true;
    }
    if (this.gone) {
      // Reading on after the client left, only for a call whose step is not complete yet.
      if (!reader.observer || reader.finished) this.stop();
      else if (this.windowFull(chunk)) return this.hold(null);
      return true;
    }
    this.capture?.add(chunk);
    if (reader.observer && reader.finished && !wasFinished) {
      // A call's answer is whole at its `end` (or `error`): logged then, and passed on once recorded.
      this.logged();
      return this.hold(chunk);
    }
    if (reader.observer && !reader.finished && this.windowFull(chunk)) return this.hold(chunk);
    return this.send(chunk);
  }

  /** Whether a call's stream has passed a window of characters since the recorder last caught up. */
  private windowFull(chunk: string | Uint8Array): boolean {
    this.unacked += typeof chunk === "string" ? chunk.length : chunk.byteLength;
    return this.unacked >= ACK_WINDOW_CHARS && this.acks().length > 0;
  }

  /** The acknowledgements to wait for: the request's last published event, and its log entry. */
  private acks(): Promise<void>[] {
    const acks: Promise<void>[] = [];
    if (this.log?.ack) acks.push(this.log.ack);
    if (this.x.ack) acks.push(this.x.ack);
    return acks;
  }

  /** Holds `chunk` (and what follows) until the recorder acknowledges what was published so far. */
  private hold(chunk: string | Uint8Array | null): boolean {
    const acks = this.acks();
    if (acks.length === 0) return chunk === null || this.gone ? true : this.send(chunk);
    this.unacked = 0;
    // The silence timer waits too: the server may be done, and the recorder has not said so yet.
    clearTimeout(this.timer);
    this.timer = undefined;
    const held: Held = { chunk, inbox: [], late: undefined };
    this.held = held;
    // A store that never answers must not hold the client forever: past the stream's idle limit the
    // answer goes on, and the log says it may not be recorded.
    held.late = setTimeout(() => {
      console.error(
        `relay: the recorder did not confirm a step of ${this.x.server} within ${seconds(this.x.limits.streamIdleMs)}; its answer went on unconfirmed`,
      );
      this.release(held);
    }, this.x.limits.streamIdleMs);
    void Promise.all(acks).then(() => this.release(held));
    return false;
  }

  private release(held: Held): void {
    if (this.held !== held) return;
    this.held = null;
    clearTimeout(held.late);
    this.arm();
    let more = true;
    if (held.chunk !== null && !this.gone && this.out) more = this.send(held.chunk);
    // What came meanwhile goes on in order; it may be held again (the next window, the call's end).
    let again: Held | null = null;
    while (held.inbox.length > 0 && !again && !this.stopped) {
      more = this.process(held.inbox.shift()!) && more;
      again = this.held as Held | null;
    }
    if (again) again.inbox.push(...held.inbox);
    else this.resume(more);
  }

  /** Runs `fn` after the held chunk, if any, has been passed on (the stream's end, an error). */
  private gate(fn: () => void): void {
    const acks = this.acks();
    if (acks.length === 0 || this.gone) fn();
    else void Promise.all(acks).then(fn);
  }

  private onDrain(cb: () => void): void {
    if (this.held) {
      this.waiting = cb;
      return;
    }
    if (this.gone) {
      cb();
      return;
    }
    this.waiting = cb;
    this.out!.onDrain(() => this.resume(true));
  }

  /** Lets the source go on: now when the client takes more, else when it has drained. */
  private resume(more: boolean): void {
    const w = this.waiting;
    if (!w) return;
    if (more || this.gone) {
      this.waiting = null;
      w();
    } else this.out!.onDrain(() => this.resume(true));
  }

  /** The server's stream ended: a call that did not send `end` is an error the client is told. */
  private ended(): void {
    if (this.stopped) return;
    this.halt();
    this.reader.parse(null);
    this.cutCall("the stream ended before `end`");
  }

  /** The server's stream broke (a network error). */
  private cut(why: string): void {
    if (this.stopped) return;
    this.halt();
    this.cutCall(why);
  }

  /**
   * A call's stream that stopped before its result: recorded as such, and the client told with an
   * `event: error` that names the task_id (a server that still runs the call answers a re-post of it).
   */
  private cutCall(why: string): void {
    const { observer } = this.reader;
    const call = observer !== null && !this.reader.finished;
    this.reader.broken(why);
    if (!call) {
      this.gate(() => this.endClient());
      return;
    }
    const taskId = observer.taskId;
    const resume = taskId ? `; re-post the call with task_id ${taskId} to get its result` : "";
    this.gate(() => this.endClient(`relay: server "${this.x.server}": ${why}${resume}`, Boolean(taskId)));
  }

  /** The exchange as the client saw it, logged once (its end, or the client going away). */
  private logged(): void {
    const { log, capture } = this;
    if (log && capture)
      publishExchange(log, this.x.status ?? 0, SSE_TYPE, capture.result(), this.reader.sessionCreated);
  }

  private halt(): void {
    this.stopped = true;
    clearTimeout(this.timer);
    clearTimeout(this.deadline);
  }

  /** Stops reading the server's answer. */
  private stop(): void {
    if (this.stopped) return;
    this.halt();
    this.source.cancel();
  }

  /** Ends the client's stream, with an `event: error` first when `why` is given. */
  private endClient(why?: string, resumable = false): void {
    if (this.gone || !this.out) return;
    this.gone = true;
    if (why) {
      // After a frame cut in the middle, blank lines first: the error must not read as part of it.
      const frame =
        (this.atFrameEnd ? "" : "\n\n") +
        (resumable ? formatSseComment(RESUMABLE_BREAK_COMMENT) : "") +
        formatSseEvent("error", why);
      this.capture?.add(frame);
      this.out.write(frame);
    }
    this.out.end();
    this.logged();
  }

  /** Passes a chunk on to the client, noting whether it ended a frame. */
  private send(chunk: string | Uint8Array): boolean {
    const n = chunk.length;
    this.atFrameEnd =
      n >= 2 &&
      (typeof chunk === "string" ? chunk.endsWith("\n\n") : chunk[n - 1] === 10 && chunk[n - 2] === 10);
    return this.out!.write(chunk);
  }

  /** The answer's total deadline: a server that trickles so that it is never silent is ended too. */
  private readonly onLate = (): void => {
    if (this.stopped) return;
    const why = `relay: ${this.x.server}'s answer did not end within ${seconds(this.x.limits.answerMaxMs)}; the stream was ended`;
    this.reader.broken(why);
    this.gate(() => this.endClient(why));
    this.stop();
  };

  private readonly onSilence = (): void => {
    if (this.stopped) return;
    const limits = this.x.limits;
    if (!this.gone) {
      const why = `relay: ${this.x.server} sent nothing for ${seconds(limits.streamIdleMs)} (not even a ping); the stream was ended`;
      this.reader.broken(why);
      this.gate(() => this.endClient(why));
    } else
      this.reader.broken(
        Date.now() >= this.drainDeadline
          ? "the client went away and the server's answer took too long; stopped reading"
          : "the client went away and the server went silent; stopped reading",
      );
    this.stop();
  };

  /** (Re)arms the silence timer: the stream's idle limit, or after the client left, the drain's. */
  private arm(): void {
    if (this.stopped) return;
    const limits = this.x.limits;
    if (!this.gone) {
      if (this.timer) this.timer.refresh();
      else this.timer = setTimeout(this.onSilence, limits.streamIdleMs);
      return;
    }
    clearTimeout(this.timer);
    this.timer = setTimeout(
      this.onSilence,
      Math.max(0, Math.min(limits.drainIdleMs, this.drainDeadline - Date.now())),
    );
  }
}
