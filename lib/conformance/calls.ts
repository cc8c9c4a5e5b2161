// Reading a /call answer two ways, as the spec describes it (ors-sse.txt: task_id, chunk… end,
// error, `: ping` comments) and as the reference client does, and judging its framing, its 4096-
// character chunks and its keep-alive pings.
import { describeZodError, runToolOutputSchema, SSE_CHUNK_SIZE } from "@/lib/ors/protocol";
import { breaks, differs, Findings, failed, notExercised, pass, type Verdict } from "./findings";
import { formatMs } from "./labels";
import { describeAnswer, isSse, type ProbeAnswer, snippet, type TimedFrame } from "./probe";
import {
  type ReferenceCallResult,
  readSseAsReferenceClient,
  referenceCallResult,
  referenceToolOutputProblem,
  startsWithPySpace,
} from "./reference-client";

const KNOWN_EVENTS = new Set(["task_id", "chunk", "end", "error"]);
/** The spec's keep-alive interval. */
export const PING_INTERVAL_MS = 10_000;
/** The reference client's `heartbeat_timeout`: it gives up after this long without a byte. */
export const REFERENCE_HEARTBEAT_MS = 30_000;
/** Silence beyond the spec's interval that still counts as keeping it (scheduling, slow links). */
const PING_SLACK_MS = 5_000;

export interface CallAnalysis {
  answer: ProbeAnswer;
  /** Data of the first event when it is `task_id`. */
  taskId: string | null;
  firstEvent: string | null;
  /** The `chunk`/`end` pieces in order (spec reading). */
  pieces: string[];
  terminal: "end" | "error" | null;
  errorData: string | null;
  unknownEvents: string[];
  /** The pieces joined (spec reading), when an `end` came. */
  json: string | null;
  value: unknown;
  jsonError: string | null;
  reference: ReferenceCallResult;
  /** ms from the task_id event to the terminal event (how long the tool ran, as seen). */
  runMs: number | null;
  /** Every frame between task_id and the terminal event (for the ping check). */
  runFrames: TimedFrame[];
}

export function analyzeCall(answer: ProbeAnswer): CallAnalysis {
  const events = answer.frames.filter((f): f is TimedFrame & { kind: "event" } => f.kind === "event");
  const first = events[0];
  const a: CallAnalysis = {
    answer,
    taskId: first?.event === "task_id" ? first.data : null,
    firstEvent: first?.event ?? null,
    pieces: [],
    terminal: null,
    errorData: null,
    unknownEvents: [],
    json: null,
    value: undefined,
    jsonError: null,
    reference: referenceCallResult(readSseAsReferenceClient(answer.text)),
    runMs: null,
    runFrames: [],
  };
  for (const e of events) {
    if (e.event === "chunk") a.pieces.push(e.data);
    else if (e.event === "end") {
      a.pieces.push(e.data);
      a.terminal = "end";
      break;
    } else if (e.event === "error") {
      a.terminal = "error";
      a.errorData = e.data;
      break;
    } else if (!KNOWN_EVENTS.has(e.event)) a.unknownEvents.push(e.event);
  }
  if (a.terminal === "end") {
    a.json = a.pieces.join("");
    try {
      a.value = JSON.parse(a.json);
    } catch (e) {
      a.jsonError = (e as Error).message;
    }
  }
  const startIdx = answer.frames.findIndex((f) => f.kind === "event" && f.event === "task_id");
  const endIdx = answer.frames.findIndex(
    (f) => f.kind === "event" && (f.event === "end" || f.event === "error"),
  );
  if (startIdx >= 0 && endIdx > startIdx) {
    a.runFrames = answer.frames.slice(startIdx, endIdx + 1);
    a.runMs = answer.frames[endIdx]!.at - answer.frames[startIdx]!.at;
  }
  return a;
}

/** Characters as the reference server counts them (Python str: code points). */
export function codePoints(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) i++;
    }
    n++;
  }
  return n;
}

/** The events of a call in order, compactly: `task_id, 36 chunk + end`, `error "unknown task_id"`. */
export function describeEvents(a: CallAnalysis): string {
  const parts: string[] = [];
  if (a.taskId !== null) parts.push("task_id");
  else if (a.firstEvent && a.firstEvent !== "chunk" && a.firstEvent !== "end" && a.firstEvent !== "error")
    parts.push(`${a.firstEvent} (not task_id)`);
  const chunks = a.pieces.length - (a.terminal === "end" ? 1 : 0);
  if (a.terminal === "end") parts.push(chunks > 0 ? `${chunks} chunk + end` : "end");
  else if (chunks > 0) parts.push(`${chunks} chunk`);
  if (a.terminal === "error") parts.push(`error ${JSON.stringify(snippet(a.errorData ?? "", 80))}`);
  if (!a.terminal) parts.push("no end");
  return parts.join(", ");
}

/** A short description of a parsed RunToolOutput. */
export function describeResult(value: unknown): string {
  if (typeof value !== "object" || value === null) return `a ${value === null ? "null" : typeof value}`;
  const v = value as { ok?: unknown; error?: unknown; output?: { reward?: unknown; finished?: unknown } };
  if (v.ok === false) return `ok=false: ${JSON.stringify(snippet(String(v.error ?? ""), 80))}`;
  const out = v.output ?? {};
  return `ok=true, reward ${JSON.stringify(out.reward ?? null)}, finished ${JSON.stringify(out.finished ?? false)}`;
}

/** Whether two JSON texts hold the same value (whitespace between tokens does not matter). */
function sameJson(a: string, b: string): boolean {
  if (a === b) return true;
  try {
    return JSON.stringify(JSON.parse(a)) === JSON.stringify(JSON.parse(b));
  } catch {
    return false;
  }
}

/** Whether the reference client gets the very result the spec reading gives. */
function referenceFinding(a: CallAnalysis, f: Findings): void {
  const ref = a.reference;
  if (!ref.ok) {
    // event: error makes the reference client raise, which is what `error` is for.
    if (ref.sseError !== undefined && a.terminal === "error") return;
    f.breaks(`the reference client fails: ${ref.failure}`);
    return;
  }
  if (a.json !== null && !sameJson(ref.json, a.json)) {
    f.breaks(
      `the reference client rebuilds ${codePoints(ref.json)} characters instead of ${codePoints(a.json)}: ${firstDifference(a.json, ref.json)}`,
    );
    return;
  }
  const problem = referenceToolOutputProblem(ref.value);
  if (problem) f.breaks(`the reference client fails on the result: ${problem}`);
}

function firstDifference(expected: string, got: string): string {
  let i = 0;
  while (i < expected.length && expected[i] === got[i]) i++;
  return `they part at character ${i} (${JSON.stringify(snippet(expected.slice(i, i + 24), 30))} became ${JSON.stringify(snippet(got.slice(i, i + 24), 30))})`;
}

/** Framing of a call on a valid tool: HTTP, content type, task_id first, chunk… end, the result. */
export function judgeFraming(a: CallAnalysis): Verdict {
  const { answer } = a;
  if (answer.status >= 500) return failed(`the call failed: ${describeAnswer(answer)}`);
  if (answer.status >= 400)
    return breaks(`a valid call answered ${describeAnswer(answer)}: the reference client raises`);
  const f = new Findings();
  if (!isSse(answer))
    f.differs(`content type ${JSON.stringify(answer.contentType || "(none)")}, not text/event-stream`);
  if (a.taskId === null) f.differs(`the first event is ${a.firstEvent ?? "missing"}, not task_id`);
  else if (!a.taskId.trim()) f.differs("the task_id event has no data");
  if (a.unknownEvents.length) f.differs(`events the spec does not define: ${a.unknownEvents.join(", ")}`);
  if (a.terminal === "error") f.error(`the tool call ended with event: error ${JSON.stringify(a.errorData)}`);
  else if (a.terminal === null)
    f.breaks(
      `the stream ${answer.truncated ? "went past the size limit" : "ended"} without an end event (${answer.frames.length} frames): the reference client re-posts and then fails`,
    );
  else if (a.jsonError) f.breaks(`the pieces do not join into JSON: ${a.jsonError}`);
  else {
    const parsed = runToolOutputSchema.safeParse(a.value);
    if (!parsed.success) f.differs(`not a valid RunToolOutput: ${describeZodError(parsed.error)}`);
  }
  referenceFinding(a, f);
  if (f.outcome === "pass")
    f.pass(
      `HTTP 200 text/event-stream: ${describeEvents(a)} (${a.json?.length ?? 0} characters); ${describeResult(a.value)}`,
    );
  return f.verdict();
}

/** 4096-character pieces, and no piece the reference client would read differently. */
export function judgeChunking(a: CallAnalysis, source: string): Verdict {
  if (a.json === null) return notExercised(`${source}: no end event to look at`);
  const total = codePoints(a.json);
  if (total <= SSE_CHUNK_SIZE)
    return notExercised(`${source}: the result has ${total} characters, not over ${SSE_CHUNK_SIZE}`);
  const f = new Findings();
  const sizes = a.pieces.map(codePoints);
  if (a.pieces.length === 1)
    f.differs(
      `${source}: ${total} characters in one end event; results over ${SSE_CHUNK_SIZE} characters go in chunk… end pieces`,
    );
  const over = sizes.map((n, i) => ({ n, i })).filter((p) => p.n > SSE_CHUNK_SIZE);
  if (over.length && a.pieces.length > 1)
    f.differs(
      `${source}: ${over.length} piece(s) over ${SSE_CHUNK_SIZE} characters (piece ${over[0]!.i + 1} has ${over[0]!.n})`,
    );
  const spaced = a.pieces.map((p, i) => ({ p, i })).filter(({ p, i }) => i > 0 && startsWithPySpace(p));
  const ref = a.reference;
  const harmless = ref.ok && sameJson(ref.json, a.json);
  if (spaced.length && !harmless) {
    const { p, i } = spaced[0]!;
    const code = p.charCodeAt(0).toString(16).toUpperCase().padStart(4, "0");
    const then = ref.ok
      ? `rebuilds ${codePoints(ref.json)} characters instead of ${total}, text silently lost (${firstDifference(a.json, ref.json)})`
      : `then fails: ${ref.failure}`;
    // Every piece but the last exactly 4096 characters: cut wherever the count falls, as the
    // reference SDK does.
    const cutAnywhere = sizes.slice(0, -1).every((n) => n === SSE_CHUNK_SIZE);
    f.breaks(
      `${source}: ${spaced.length} of ${a.pieces.length} pieces start with whitespace (piece ${i + 1}: ${JSON.stringify(snippet(p, 16))}, U+${code}); the reference client lstrips SSE data and ${then}`,
      cutAnywhere ? "chunk-cut-anywhere" : undefined,
    );
  } else referenceFinding(a, f);
  if (a.jsonError) f.breaks(`${source}: the pieces do not join into JSON: ${a.jsonError}`);
  if (f.outcome === "pass") {
    const note = spaced.length
      ? `; ${spaced.length} start with whitespace between JSON tokens, which the reference client drops harmlessly`
      : ", none starts with whitespace";
    f.pass(
      `${source}: ${total} characters in ${a.pieces.length} pieces (${a.pieces.length - 1} chunk + end), largest ${Math.max(...sizes)}${note}; the reference client rebuilds the same result`,
    );
  }
  return f.verdict();
}

/** Keep-alive pings, judged on the longest-running call observed. */
export function judgePings(
  calls: readonly { label: string; analysis: CallAnalysis }[],
  hint: string,
): Verdict {
  const timed = calls.filter((c) => c.analysis.runMs !== null);
  if (!timed.length) return notExercised(`no call ran to an end event. ${hint}`);
  const longest = timed.reduce((a, b) => (b.analysis.runMs! > a.analysis.runMs! ? b : a));
  const { runMs, runFrames } = longest.analysis;
  const comments = runFrames.filter((f) => f.kind === "comment");
  let maxGap = 0;
  for (let i = 1; i < runFrames.length; i++)
    maxGap = Math.max(maxGap, runFrames[i]!.at - runFrames[i - 1]!.at);
  const what = `${longest.label} ran ${formatMs(runMs!)}`;
  if (maxGap > REFERENCE_HEARTBEAT_MS)
    return breaks(
      `${what} with ${comments.length} ping(s) and ${formatMs(maxGap)} without a byte: the reference client gives up after ${formatMs(REFERENCE_HEARTBEAT_MS)} (HeartbeatTimeoutError)`,
    );
  if (runMs! < PING_INTERVAL_MS && comments.length === 0)
    return notExercised(`${what}, less than the ${formatMs(PING_INTERVAL_MS)} ping interval. ${hint}`);
  if (comments.length === 0)
    return differs(
      `${what} without a single \`: ping\` comment (the spec: every ${formatMs(PING_INTERVAL_MS)})`,
    );
  if (maxGap > PING_INTERVAL_MS + PING_SLACK_MS)
    return differs(
      `${what} with ${comments.length} ping(s) but ${formatMs(maxGap)} of silence (the spec: every ${formatMs(PING_INTERVAL_MS)})`,
    );
  return {
    outcome: "pass",
    observed: `${what}: ${comments.length} ping comment(s) (${JSON.stringify(snippet(comments[0]!.kind === "comment" ? comments[0]!.comment : "", 40))}), longest silence ${formatMs(maxGap)}`,
  };
}

function utf8Bytes(s: string): number {
  return new TextEncoder().encode(s).byteLength;
}

/**
 * Pieces of at most 4096 bytes (ors-sse.txt "Chunking": "4KB (4096 bytes)"), where a server that
 * counts characters shows only when a piece holds non-ASCII text; the last piece is not judged.
 */
export function judgeChunkSize(a: CallAnalysis, source: string): Verdict {
  if (a.json === null) return notExercised(`${source}: no end event to look at`);
  if (a.pieces.length < 2) return notExercised(`${source}: the result came in one piece (see call-chunking)`);
  const pieces = a.pieces.slice(0, -1).map((p, i) => ({ i, bytes: utf8Bytes(p), chars: codePoints(p) }));
  const over = pieces.filter((p) => p.bytes > SSE_CHUNK_SIZE);
  if (over.length) {
    const first = over[0]!;
    const counted = over.every((p) => p.chars <= SSE_CHUNK_SIZE);
    return differs(
      `${source}: ${over.length} of ${a.pieces.length} pieces over ${SSE_CHUNK_SIZE} bytes (piece ${first.i + 1}: ${first.chars} characters in ${first.bytes} bytes)${counted ? ": counted in characters" : ""}; the spec's pieces are 4 KB (${SSE_CHUNK_SIZE} bytes)`,
      counted ? "chunk-size-characters" : undefined,
    );
  }
  const telling = pieces.filter((p) => p.bytes > p.chars);
  if (!telling.length)
    return notExercised(
      `${source}: the pieces are ASCII, where ${SSE_CHUNK_SIZE} characters are ${SSE_CHUNK_SIZE} bytes, so whether they are counted in bytes does not show. Name a tool whose result has non-ASCII text over 4 KB with --tool NAME --input JSON.`,
    );
  const largest = Math.max(...pieces.map((p) => p.bytes));
  return pass(
    `${source}: ${a.pieces.length} pieces of at most ${SSE_CHUNK_SIZE} bytes (largest ${largest}); ${telling.length} hold non-ASCII text (piece ${telling[0]!.i + 1}: ${telling[0]!.chars} characters in ${telling[0]!.bytes} bytes)`,
  );
}
