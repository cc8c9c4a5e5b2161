// The relay's SSE tap: an SSE answer passes from the server to the client chunk by chunk, as the
// client takes it (no buffering, no re-encoding: the chunks written are the chunks read), and is
// parsed on the way with size limits — for `/call` the frames and the result are published, for
// `/create_session` the session id. Past a limit, or when the server goes silent, the client gets an
// `event: error` saying why and the stream ends. When the client goes away in the middle of a call,
// the server's answer is still read (bounded in time and size) so the step is recorded whole.
import "server-only";
import {
  createSseFrameParser,
  formatSseEvent,
  ResultAssembler,
  type SseFrame,
  SseLimitError,
} from "@/lib/ors/protocol";
import { AnswerCapture, type ExchangeLog, publishExchange } from "./exchange-log";
import type { RelaySink, RelayStream } from "./io";
import { type CallObserver, callObserver, detachFrame, type Exchange, endpointOf } from "./observe";
import type { SourceSink, SseSource } from "./upstream";

/** A duration as a message says it: `60 s`, `0.3 s`. */
function seconds(ms: number): string {
  return ms >= 10_000 ? `${Math.round(ms / 1000)} s` : `${Number((ms / 1000).toFixed(1))} s`;
}

const SSE_TYPE = "text/event-stream";

/** The SSE answer `source` as the client's stream, tapped (see the top of this file). */
export function tapSse(x: Exchange, source: SseSource, log: ExchangeLog | null): RelayStream {
  const ep = endpointOf(x);
  const ok = (x.status ?? 0) >= 200 && (x.status ?? 0) < 300;
  const isCall = x.listening && ok && ep === "call";
  const isSession = x.listening && ok && ep === "create_session";
  const observer: CallObserver | null = isCall ? callObserver(x) : null;
  const capture = log ? new AnswerCapture() : null;
  const limits = x.limits;
  let decoder: TextDecoder | null = null;
  let result: ResultAssembler | null = null;
  let sessionCreated: string | undefined;
  let finished = false;
  let otherChars = 0;

  const onFrame = (parsed: SseFrame) => {
    if (!isSession && (!observer || finished)) return;
    const frame = detachFrame(parsed);
    if (isSession && sessionCreated === undefined && frame.kind === "event" && frame.event === "task_id") {
      sessionCreated = frame.data.trim();
      x.events.emit({ type: "session_created", server: x.server, sid: sessionCreated, at: Date.now() });
    }
    if (!observer || finished) return;
    if (frame.kind === "comment" || (frame.event !== "chunk" && frame.event !== "end")) {
      otherChars +=
        frame.kind === "comment" ? frame.comment.length + 4 : frame.event.length + frame.data.length + 16;
      if (otherChars > limits.maxCallOtherChars)
        throw new SseLimitError(
          `more than ${limits.maxCallOtherChars} characters of frames that are not part of a result`,
        );
    }
    observer.frame(frame);
    if (frame.kind !== "event") return;
    if (frame.event === "chunk") {
      if (!result) result = new ResultAssembler(limits.maxResultChars);
      result.add(frame.data);
    } else if (frame.event === "end") {
      finished = true;
      observer.finish((result ?? new ResultAssembler(limits.maxResultChars)).end(frame.data));
      result = null;
    } else if (frame.event === "error") {
      finished = true;
      observer.finish({ ok: false, error: frame.data || "unknown SSE error" });
    }
  };
  const parser =
    observer || isSession
      ? createSseFrameParser(onFrame, {
          maxLineChars: limits.maxSseLineChars,
          maxEventChars: limits.maxSseEventChars,
        })
      : null;
  /** Parses one piece (null: the end); returns an error message when the server broke a limit. */
  const parse = (chunk: string | Uint8Array | null): string | null => {
    if (!parser) return null;
    try {
      if (chunk === null) {
        if (decoder) parser.feed(decoder.decode());
        parser.end();
      } else if (typeof chunk === "string") parser.feed(chunk);
      else {
        if (!decoder) decoder = new TextDecoder();
        parser.feed(decoder.decode(chunk, { stream: true }));
      }
      return null;
    } catch (err) {
      if (err instanceof SseLimitError || (err instanceof Error && err.name === "ResultTooLargeError"))
        return `relay: ${x.server} sent ${err.message}; the stream was ended`;
      return `relay: could not read the stream: ${err instanceof Error ? err.message : String(err)}`;
    }
  };
  const broken = (why: string) => {
    if (observer && !finished) {
      finished = true;
      observer.finish({ ok: false, error: why, broken: true });
    }
  };

  let out: RelaySink | null = null;
  let gone = false;
  let stopped = false;
  let waiting: (() => void) | null = null;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let drainDeadline = 0;

  /** The exchange as the client saw it, logged once (its end, or the client going away). */
  const logged = () => {
    if (log && capture) publishExchange(log, x.status ?? 0, SSE_TYPE, capture.result(), sessionCreated);
  };
  /** Stops reading the server's answer. */
  const stop = () => {
    if (stopped) return;
    stopped = true;
    clearTimeout(timer);
    source.cancel();
  };
  /** Ends the client's stream, with an `event: error` first when `why` is given. */
  const endClient = (why?: string) => {
    if (gone || !out) return;
    gone = true;
    if (why) {
      const frame = formatSseEvent("error", why);
      capture?.add(frame);
      out.write(frame);
    }
    out.end();
    logged();
  };
  const onSilence = () => {
    if (stopped) return;
    if (!gone) {
      const why = `relay: ${x.server} sent nothing for ${seconds(limits.streamIdleMs)} (not even a ping); the stream was ended`;
      broken(why);
      endClient(why);
    } else
      broken(
        Date.now() >= drainDeadline
          ? "the client went away and the server's answer took too long; stopped reading"
          : "the client went away and the server went silent; stopped reading",
      );
    stop();
  };
  /** (Re)arms the silence timer: the stream's idle limit, or after the client left, the drain's. */
  const arm = () => {
    if (stopped) return;
    if (!gone) {
      if (timer) timer.refresh();
      else timer = setTimeout(onSilence, limits.streamIdleMs);
      return;
    }
    clearTimeout(timer);
    timer = setTimeout(onSilence, Math.max(0, Math.min(limits.drainIdleMs, drainDeadline - Date.now())));
  };

  const fromServer: SourceSink = {
    write(chunk) {
      if (stopped) return true;
      arm();
      const limitHit = parse(chunk);
      if (limitHit) {
        broken(limitHit);
        endClient(limitHit);
        stop();
        return true;
      }
      if (gone) {
        // Reading on after the client left, only for a call whose step is not complete yet.
        if (!observer || finished) stop();
        return true;
      }
      capture?.add(chunk);
      const more = out!.write(chunk);
      // A call's answer is whole at its `end` (or `error`): logged then, not when the socket closes.
      if (finished && observer) logged();
      return more;
    },
    end() {
      if (stopped) return;
      stopped = true;
      clearTimeout(timer);
      parse(null);
      broken("the stream ended before `end`");
      endClient();
    },
    fail(err) {
      if (stopped) return;
      stopped = true;
      clearTimeout(timer);
      broken(`the stream broke before \`end\`: ${err instanceof Error ? err.message : String(err)}`);
      // Closed, not errored: what was already passed on (the task_id) still reaches the client,
      // which then re-posts with it instead of starting the call again.
      endClient();
    },
    onDrain(cb) {
      if (gone) {
        cb();
        return;
      }
      waiting = cb;
      out!.onDrain(() => {
        const w = waiting;
        waiting = null;
        w?.();
      });
    },
  };

  return {
    start(sink) {
      out = sink;
      arm();
      source.attach(fromServer);
    },
    clientGone() {
      if (gone) return;
      gone = true;
      logged();
      if (!observer || finished) {
        stop();
        return;
      }
      // Keep reading the call's answer (bounded) so its step is recorded whole.
      drainDeadline = Date.now() + limits.drainMaxMs;
      arm();
      const w = waiting;
      waiting = null;
      w?.();
    },
  };
}
