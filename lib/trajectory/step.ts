// One step of an episode — one tool call — as a single model from the wire to the store to the
// screen (the trajectory format's TrajectoryStep): how a call's SSE frames and its RunToolOutput
// become a step. The recorder, replay and the episode view all build steps with these functions.
import type { RunToolOutput, SseFrame } from "@/lib/ors/protocol";
import type { StepEvent, TrajectoryStep } from "./schema";

/** `chunk`/`end` data is kept as a preview of this many characters (the result is the step itself). */
export const FRAME_PREVIEW_CHARS = 240;

/** Node's Buffer when there is one (the recorder, on the server), for the native paths below. */
const NodeBuffer = (globalThis as { Buffer?: typeof Buffer }).Buffer;
/** Strings from this length on are measured and copied natively (on the server). */
const NATIVE_FROM = 1024;

/** A copy of a string that does not reference the string it was cut from. */
function ownCopy(s: string): string {
  if (NodeBuffer && s.length >= NATIVE_FROM) {
    // Copied as raw code units (lone surrogates included): megabytes in a memcpy, not a JSON round trip.
    // biome-ignore lint/suspicious/noControlCharactersInRegex: any code unit beyond Latin-1
    const encoding = /[^\x00-\xff]/.test(s) ? "utf16le" : "latin1";
    return NodeBuffer.from(s, encoding).toString(encoding);
  }
  return JSON.parse(JSON.stringify(s)) as string;
}

/** A step as it stands when its call starts: nothing received yet. */
export function pendingStep(
  fields: Pick<TrajectoryStep, "index" | "tool" | "input" | "task_id" | "started_at"> & {
    after_end?: boolean;
    agent?: TrajectoryStep["agent"];
  },
): TrajectoryStep {
  const { after_end, agent, ...rest } = fields;
  return {
    ...rest,
    ended_at: null,
    latency_ms: null,
    ok: null,
    error: null,
    blocks: [],
    reward: null,
    finished: false,
    metadata: null,
    events: [],
    ...(after_end ? { after_end: true } : {}),
    ...(agent ? { agent } : {}),
  };
}

/** A frame as the step keeps it, `t` ms after the call started: result pieces as previews. */
export function stepEvent(frame: SseFrame, t: number): StepEvent {
  if (frame.kind === "comment") return { t, kind: "comment", comment: frame.comment };
  const { event, data } = frame;
  if ((event === "chunk" || event === "end") && data.length > FRAME_PREVIEW_CHARS)
    // A copy, not a slice: a slice would keep the whole piece (and the result) in memory.
    return { t, kind: "event", event, data: ownCopy(data.slice(0, FRAME_PREVIEW_CHARS)), size: data.length };
  return { t, kind: "event", event, data };
}

/** How a call ended: the server's RunToolOutput, or why there is none (stream error, HTTP error ...). */
export type CallOutcome = { result: RunToolOutput } | { error: string };

/** The step once its call has ended at `endedAt` (latency from the call's start, resumes included). */
export function completeStep(step: TrajectoryStep, outcome: CallOutcome, endedAt: number): TrajectoryStep {
  const done: TrajectoryStep = {
    ...step,
    ended_at: endedAt,
    latency_ms: Math.max(0, endedAt - step.started_at),
  };
  if ("error" in outcome) return { ...done, ok: false, error: outcome.error };
  const r = outcome.result;
  if (!r.ok) return { ...done, ok: false, error: r.error };
  return {
    ...done,
    ok: true,
    error: null,
    blocks: r.output.blocks,
    reward: r.output.reward ?? null,
    finished: r.output.finished ?? false,
    metadata: r.output.metadata ?? null,
  };
}

export type StepStatus = "running" | "done" | "error";

export function stepStatus(step: Pick<TrajectoryStep, "ok">): StepStatus {
  return step.ok === null ? "running" : step.ok ? "done" : "error";
}

/** The step's reward (null when the call gave none or failed). */
export function stepReward(step: Pick<TrajectoryStep, "ok" | "reward">): number | null {
  return step.ok ? step.reward : null;
}

/** Characters of result data received so far (the `chunk`/`end` frames). */
export function receivedChars(step: Pick<TrajectoryStep, "events">): number {
  let n = 0;
  for (const e of step.events)
    if (e.kind === "event" && (e.event === "chunk" || e.event === "end")) n += e.size ?? e.data.length;
  return n;
}

// ---------------------------------------------------------------------------------------------
// The step-size cap (PLAYGROUND_MAX_STEP_BYTES): the most one step may take in the store, so a
// server that returns huge results cannot fill the disk. Over the cap, the step's output is cut
// (text shortened, images and later blocks dropped, frames thinned) and `truncated` says what.

/** Default cap on the stored size of one step: 4 MiB of JSON. */
export const DEFAULT_MAX_STEP_BYTES = 4 * 1024 * 1024;
/** The smallest cap accepted (a step's own fields must fit); PLAYGROUND_MAX_STEP_BYTES is read in lib/config.ts. */
export const MIN_MAX_STEP_BYTES = 16 * 1024;

/** The bytes one UTF-16 code unit takes inside a JSON string, encoded as UTF-8. */
function jsonUnitBytes(s: string, i: number): number {
  const c = s.charCodeAt(i);
  if (c < 0x20) return c === 8 || c === 9 || c === 10 || c === 12 || c === 13 ? 2 : 6;
  if (c === 0x22 || c === 0x5c) return 2;
  if (c < 0x80) return 1;
  if (c < 0x800) return 2;
  if (c >= 0xd800 && c <= 0xdbff) {
    const d = s.charCodeAt(i + 1);
    return d >= 0xdc00 && d <= 0xdfff ? 4 : 6; // a pair (the low half then counts 0), or escaped
  }
  if (c >= 0xdc00 && c <= 0xdfff) {
    const p = s.charCodeAt(i - 1);
    return p >= 0xd800 && p <= 0xdbff ? 0 : 6;
  }
  return 3;
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what JSON escapes
const OTHER_ESCAPES = /["\\\u0000-\u0009\u000b-\u001f]/;

/** Whether a string has no lone surrogate (String.prototype.isWellFormed, where there is one). */
function wellFormed(s: string): boolean | null {
  const f = (s as unknown as { isWellFormed?: () => boolean }).isWellFormed;
  return typeof f === "function" ? f.call(s) : null;
}

/** The bytes of a string as a UTF-8 JSON string, quotes included. */
function stringJsonBytes(s: string): number {
  if (NodeBuffer && s.length >= NATIVE_FROM && wellFormed(s)) {
    // Text without a lone surrogate: its UTF-8 bytes (a pair: 4) plus one per newline (`\n`), when
    // nothing else needs escaping (one native scan says so); else JSON.stringify's own count.
    if (OTHER_ESCAPES.test(s)) return NodeBuffer.byteLength(JSON.stringify(s), "utf8");
    let n = NodeBuffer.byteLength(s, "utf8") + 2;
    for (let i = s.indexOf("\n"); i !== -1; i = s.indexOf("\n", i + 1)) n++;
    return n;
  }
  let n = 2;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    // Printable ASCII (most text) is one byte: counted here, the rest by jsonUnitBytes.
    n += c >= 0x20 && c < 0x7f && c !== 0x22 && c !== 0x5c ? 1 : jsonUnitBytes(s, i);
  }
  return n;
}

/**
 * The size of a JSON value as UTF-8 JSON (`JSON.stringify`'s output), in bytes, without building
 * that text: a step's megabytes of text are only counted.
 */
export function jsonBytes(value: unknown): number {
  if (value === null) return 4;
  switch (typeof value) {
    case "string":
      return stringJsonBytes(value);
    case "number":
      return Number.isFinite(value) ? String(value).length : 4;
    case "boolean":
      return value ? 4 : 5;
    case "object": {
      if (Array.isArray(value)) {
        let n = 2 + Math.max(0, value.length - 1);
        for (const v of value) n += v === undefined || typeof v === "function" ? 4 : jsonBytes(v);
        return n;
      }
      let n = 2;
      let first = true;
      for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
        if (v === undefined || typeof v === "function") continue;
        n += (first ? 0 : 1) + stringJsonBytes(k) + 1 + jsonBytes(v);
        first = false;
      }
      return n;
    }
    default:
      return 0;
  }
}

const CUT_BLOCK = 16 * 1024;

/**
 * The longest start of `s` whose JSON string takes at most `maxBytes` (never splitting a surrogate
 * pair), as a new string: a slice would keep the whole original alive in memory.
 */
export function cutText(s: string, maxBytes: number): string {
  let bytes = 2; // the quotes
  let i = 0;
  // Whole blocks measured natively while they fit (never splitting a pair), the last one by units.
  if (NodeBuffer && s.length >= NATIVE_FROM)
    while (i < s.length) {
      let end = Math.min(s.length, i + CUT_BLOCK);
      const last = s.charCodeAt(end - 1);
      if (end < s.length && last >= 0xd800 && last <= 0xdbff) end++;
      const n = stringJsonBytes(s.slice(i, end)) - 2;
      if (bytes + n > maxBytes) break;
      bytes += n;
      i = end;
    }
  for (; i < s.length; i++) {
    const n = jsonUnitBytes(s, i);
    const pair = n === 4;
    if (bytes + n > maxBytes) break;
    bytes += n;
    if (pair) i++;
  }
  if (i >= s.length) return s;
  return ownCopy(s.slice(0, i));
}

/** What was cut from a step to fit the cap (the `truncated` field of the format). */
export type StepTruncation = NonNullable<TrajectoryStep["truncated"]>;

/** A call's frames while it runs: how much is kept, and what was not (see `keepFrame`). */
export interface FrameBudget {
  keptBytes: number;
  droppedFrames: number;
  droppedBytes: number;
}

export function frameBudget(): FrameBudget {
  return { keptBytes: 0, droppedFrames: 0, droppedBytes: 0 };
}

const FRAME_OVERHEAD_BYTES = 48;

function frameBytes(ev: StepEvent): number {
  return (
    FRAME_OVERHEAD_BYTES + (ev.kind === "comment" ? ev.comment.length : ev.event.length + ev.data.length)
  );
}

/**
 * Whether a step keeps this frame while its call runs: frames take at most a quarter of the cap
 * (a server may send frames forever); the last ones (`end`, `error`) are always kept. Counts it.
 */
export function keepFrame(budget: FrameBudget, ev: StepEvent, maxStepBytes: number): boolean {
  const n = frameBytes(ev);
  const last = ev.kind === "event" && (ev.event === "end" || ev.event === "error");
  if (last || budget.keptBytes + n <= maxStepBytes / 4) {
    budget.keptBytes += n;
    return true;
  }
  budget.droppedFrames++;
  budget.droppedBytes += n;
  return false;
}

/** Frames within `maxBytes`: the first ones, then the last (`end`/`error`) one, data cut to fit. */
function capEvents(events: StepEvent[], maxBytes: number): { events: StepEvent[]; dropped: number } {
  const kept: StepEvent[] = [];
  let left = maxBytes;
  const last = events.at(-1);
  const keepLast = last?.kind === "event" && (last.event === "end" || last.event === "error");
  const body = keepLast ? events.slice(0, -1) : events;
  const lastBudget = keepLast ? Math.min(FRAME_PREVIEW_CHARS * 6 + 256, maxBytes / 2) : 0;
  left -= lastBudget;
  const shrink = (ev: StepEvent, room: number): StepEvent | null => {
    const n = jsonBytes(ev);
    if (n <= room) return ev;
    if (ev.kind === "comment" || room < 256) return null;
    return { ...ev, data: cutText(ev.data, room - 128), size: ev.size ?? ev.data.length };
  };
  let i = 0;
  for (; i < body.length; i++) {
    const ev = shrink(body[i]!, left);
    if (!ev) break;
    kept.push(ev);
    left -= jsonBytes(ev);
  }
  let dropped = body.length - i;
  if (keepLast) {
    const ev = shrink(last, lastBudget);
    if (ev) kept.push(ev);
    else dropped++;
  }
  return { events: kept, dropped };
}

/** Blocks within `maxBytes`, in order: a text that does not fit is cut, an image is dropped. */
function capBlocks(
  blocks: TrajectoryStep["blocks"],
  maxBytes: number,
): { blocks: TrajectoryStep["blocks"]; cut: number; dropped: number } {
  const kept: TrajectoryStep["blocks"] = [];
  let left = maxBytes;
  let cut = 0;
  let dropped = 0;
  for (const b of blocks) {
    // A block whose characters alone exceed the room is not counted (a 50 MiB text costs ~0.5 s to
    // count, and capStep has already counted it once): every character takes at least a byte.
    const least = b.type === "text" ? b.text.length : b.type === "image" ? b.data.length : 0;
    const n = least + 1 > left ? Number.POSITIVE_INFINITY : jsonBytes(b);
    if (n + 1 <= left) {
      kept.push(b);
      left -= n + 1;
      continue;
    }
    const room = left - jsonBytes({ type: "text", text: "" }) - 1;
    if (b.type === "text" && room > 0) {
      kept.push({ type: "text", text: cutText(b.text, room) });
      left = 0;
      cut++;
    } else dropped++;
  }
  return { blocks: kept, cut, dropped };
}

/**
 * The step as stored under a cap of `maxBytes` (UTF-8 JSON). Within the cap (and with no frames
 * dropped while the call ran, `frames`) it is returned unchanged. Otherwise the error text, the
 * frames and the metadata each keep a bounded share and the blocks the rest: text is cut, images
 * and blocks beyond the cap are dropped; `truncated` records the original size and what was cut.
 * The tool's input is not cut (the relay bounds request bodies).
 */
export function capStep(
  step: TrajectoryStep,
  maxBytes: number,
  frames: Pick<FrameBudget, "droppedFrames" | "droppedBytes"> = { droppedFrames: 0, droppedBytes: 0 },
): TrajectoryStep {
  const { truncated: _previous, ...rest } = step;
  const size = jsonBytes(rest);
  if (size <= maxBytes && frames.droppedFrames === 0) return step;
  const truncated: StepTruncation = { original_bytes: size + frames.droppedBytes, kept_bytes: 0 };
  if (frames.droppedFrames) truncated.frames_dropped = frames.droppedFrames;
  const out: TrajectoryStep = { ...rest };
  if (size > maxBytes) {
    if (out.error !== null && jsonBytes(out.error) > maxBytes / 8) {
      out.error = cutText(out.error, maxBytes / 8);
      truncated.error_cut = true;
    }
    if (out.metadata !== null && jsonBytes(out.metadata) > maxBytes / 8) {
      out.metadata = null;
      truncated.metadata_dropped = true;
    }
    const ev = capEvents(out.events, maxBytes / 4);
    out.events = ev.events;
    if (ev.dropped) truncated.frames_dropped = (truncated.frames_dropped ?? 0) + ev.dropped;
    // What the blocks may take: the cap less everything else, the marker included.
    const marker = jsonBytes({
      truncated: { ...truncated, blocks_cut: 1e6, blocks_dropped: 1e6, kept_bytes: 1e9 },
    });
    const others = jsonBytes({ ...out, blocks: [] }) + marker;
    const bl = capBlocks(out.blocks, Math.max(0, maxBytes - others));
    out.blocks = bl.blocks;
    if (bl.cut) truncated.blocks_cut = bl.cut;
    if (bl.dropped) truncated.blocks_dropped = bl.dropped;
  }
  truncated.kept_bytes = jsonBytes(out);
  out.truncated = truncated;
  return out;
}
