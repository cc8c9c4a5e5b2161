// How the reference Python client (github.com/openrewardstandard/python-sdk, `ors.client`: its
// `_http.py`, `_session.py`, `environment.py`, `session.py`) reads a server's answers, modelled
// closely enough to tell when an answer breaks it. Isomorphic; used by the conformance checks.
//
// What the model covers, and why each matters:
// - SSE: aiohttp yields lines split on "\n" only (at most 131,072 bytes each, else LineTooLong);
//   the client strips "\r\n" off the end, skips ":" comments, splits each line on its first ":"
//   (a line without one raises ValueError), and `lstrip()`s the value, so a data piece that starts
//   with whitespace silently loses it. An event is dispatched only at a blank line and only when it
//   has an `event:` field.
// - Calls: `chunk` pieces joined with the `end` piece, `json.loads`, then `res["ok"]`,
//   `res["output"]["blocks" | "metadata" | "reward" | "finished"]` (all four keys required).
// - /create_session: always read as SSE; the sid is the `end` JSON's "sid" or the `task_id` event
//   (discovery calls take it from `task_id` only).
// - JSON endpoints: non-2xx raises; aiohttp's `resp.json()` refuses a content type that is not
//   `application/json` (or `application/*+json`); then the fields each method reads.
import { isPythonWhitespaceCode, pythonLstrip } from "@/lib/ors/protocol/python-whitespace";
import type { ProbeAnswer } from "./probe";
import { snippet } from "./probe";

/** aiohttp's readline limit: twice the ClientSession's default read buffer (2 × 64 KiB). */
export const REFERENCE_MAX_LINE_BYTES = 131_072;
const AIOHTTP_JSON_TYPE = /^application\/(?:[\w.+-]+?\+)?json/;

/** Python's `str.lstrip()`. */
export const pyLstrip = pythonLstrip;

/** Python's `str.strip()`. */
export function pyStrip(s: string): string {
  let end = s.length;
  while (end > 0 && isPythonWhitespaceCode(s.charCodeAt(end - 1))) end--;
  return pyLstrip(s.slice(0, end));
}

/** Whether a string starts with whitespace as the reference client's `lstrip()` sees it. */
export function startsWithPySpace(s: string): boolean {
  return s.length > 0 && isPythonWhitespaceCode(s.charCodeAt(0));
}

function utf8Length(s: string): number {
  return new TextEncoder().encode(s).byteLength;
}

export interface ReferenceEvent {
  event: string;
  data: string;
}

export interface ReferenceSseReading {
  /** The events the client's parser dispatches, in order. */
  events: ReferenceEvent[];
  /** Why the parser raises before the end of the body, or null. */
  failure: string | null;
}

/**
 * The SSE line reader of the Python clients (the reference SDK's and OpenReward's): a blank line
 * dispatches the named event with its data lines joined by `\n`, `:` lines are comments, values are
 * `lstrip()`ped; a line without ":" is the error their unpacking of `split(":", 1)` raises.
 */
export class PythonSseLines {
  private event: string | null = null;
  private data: string[] = [];

  /** One line, its line end stripped: the event it dispatches, null, or "no-colon". */
  push(line: string): ReferenceEvent | null | "no-colon" {
    if (line === "") {
      const done = this.event ? { event: this.event, data: this.data.join("\n") } : null;
      this.event = null;
      this.data = [];
      return done;
    }
    if (line.startsWith(":")) return null;
    const colon = line.indexOf(":");
    if (colon < 0) return "no-colon";
    const field = line.slice(0, colon);
    const value = pyLstrip(line.slice(colon + 1));
    if (field === "event") this.event = value;
    else if (field === "data") this.data.push(value);
    return null;
  }
}

/** Reads an SSE body as the reference client's `_parse_sse_events` does. */
export function readSseAsReferenceClient(raw: string): ReferenceSseReading {
  const events: ReferenceEvent[] = [];
  const reader = new PythonSseLines();
  const lines = raw.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const last = i === lines.length - 1;
    if (last && lines[i] === "") break;
    const bytes = utf8Length(lines[i]!) + (last ? 0 : 1);
    if (bytes > REFERENCE_MAX_LINE_BYTES)
      return {
        events,
        failure: `a line of ${bytes} bytes: aiohttp's readline raises LineTooLong beyond ${REFERENCE_MAX_LINE_BYTES} bytes`,
      };
    const line = lines[i]!.replace(/[\r\n]+$/, "");
    const got = reader.push(line);
    if (got === "no-colon")
      return {
        events,
        failure: `the line ${JSON.stringify(snippet(line, 40))} has no ":": the client's SSE parser raises ValueError`,
      };
    if (got) events.push(got);
  }
  return { events, failure: null };
}

export type ReferenceCallResult =
  | { ok: true; json: string; value: unknown }
  | { ok: false; failure: string; sseError?: string };

/** What the reference client's `resumable_sse` makes of a call stream's events. */
export function referenceCallResult(reading: ReferenceSseReading): ReferenceCallResult {
  if (reading.failure) return { ok: false, failure: reading.failure };
  const pieces: string[] = [];
  for (const { event, data } of reading.events) {
    if (event === "chunk") pieces.push(data);
    else if (event === "end") {
      pieces.push(data);
      const json = pieces.join("");
      if (!json) return { ok: false, failure: "`end` with empty data: the client gets None" };
      try {
        return { ok: true, json, value: JSON.parse(json) };
      } catch (e) {
        return { ok: false, failure: `json.loads fails on the rebuilt result (${(e as Error).message})` };
      }
    } else if (event === "error")
      return {
        ok: false,
        failure: `event: error: the client raises RuntimeError(${JSON.stringify(snippet(data, 80))})`,
        sseError: data,
      };
  }
  return {
    ok: false,
    failure: "no `end` event: the client raises 'Stream ended unexpectedly' and re-posts",
  };
}

function isDict(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function pyType(v: unknown): string {
  if (v === null || v === undefined) return "None";
  if (Array.isArray(v)) return "a list";
  if (typeof v === "string") return "a string";
  if (typeof v === "number") return "a number";
  if (typeof v === "boolean") return "a bool";
  return "an object";
}

function pyTruthy(v: unknown): boolean {
  if (v === null || v === undefined || v === false || v === 0 || v === "") return false;
  if (Array.isArray(v)) return v.length > 0;
  if (isDict(v)) return Object.keys(v).length > 0;
  return true;
}

/** Why the client's block loop (`block["type"]`, then text or mimeType + data) fails, or null. */
function blocksProblem(blocks: unknown, where: string): string | null {
  if (!Array.isArray(blocks)) return `${where} is ${pyType(blocks)}, not a list of blocks`;
  for (let i = 0; i < blocks.length; i++) {
    const b = blocks[i];
    if (!isDict(b)) return `${where}[${i}] is ${pyType(b)}: block["type"] fails`;
    if (!("type" in b)) return `${where}[${i}] has no "type": KeyError`;
    if (b.type === "text" && !("text" in b)) return `${where}[${i}] is a text block without "text": KeyError`;
    if (b.type === "image" && !("mimeType" in b && "data" in b))
      return `${where}[${i}] is an image block without "mimeType" and "data": KeyError`;
  }
  return null;
}

/** Why the client's `call_tool` fails on a parsed RunToolOutput, or null (`ok: false` raises its
 *  ToolCallError by design, which is no failure). */
export function referenceToolOutputProblem(value: unknown): string | null {
  if (!isDict(value)) return `the result is ${pyType(value)}: res["ok"] fails`;
  if (!("ok" in value)) return 'the result has no "ok": KeyError';
  if (!pyTruthy(value.ok)) return "error" in value ? null : 'a failed result without "error": KeyError';
  const out = value.output;
  if (!isDict(out)) return `"output" is ${pyType(out)}: res["output"]["blocks"] fails`;
  const blocks = blocksProblem(out.blocks, 'output["blocks"]');
  if (blocks) return blocks;
  for (const key of ["metadata", "reward", "finished"])
    if (!(key in out)) return `output has no "${key}": res["output"]["${key}"] raises KeyError`;
  return null;
}

/** What the reference client reads from each JSON endpoint. */
export type ReferenceJsonShape =
  | "tools"
  | "splits"
  | "tasks"
  | "num_tasks"
  | "task"
  | "task_range"
  | "prompt";

const TOOL_SPEC_KEYS = ["name", "description", "input_schema"];

function shapeProblem(shape: ReferenceJsonShape, v: unknown): string | null {
  switch (shape) {
    case "tools": {
      if (!isDict(v) || !("tools" in v))
        return `the body is ${pyType(v)} without "tools": res["tools"] fails`;
      if (!Array.isArray(v.tools)) return `"tools" is ${pyType(v.tools)}, not a list`;
      for (const t of v.tools) {
        if (!isDict(t)) return `a tool is ${pyType(t)}: ToolSpec(**tool) fails`;
        const missing = TOOL_SPEC_KEYS.filter((k) => !(k in t));
        if (missing.length)
          return `tool ${JSON.stringify(t.name)} has no ${missing.map((k) => `"${k}"`).join(", ")}: ToolSpec(**tool) raises TypeError`;
        const extra = Object.keys(t).filter((k) => !TOOL_SPEC_KEYS.includes(k));
        if (extra.length)
          return `tool ${JSON.stringify(t.name)} has ${extra.map((k) => `"${k}"`).join(", ")}: ToolSpec(**tool) raises TypeError (unexpected keyword)`;
      }
      return null;
    }
    case "splits": {
      if (!Array.isArray(v)) return `the body is ${pyType(v)}, not a list: s["name"] fails`;
      for (const s of v) if (!isDict(s) || !("name" in s)) return `a split is ${pyType(s)} without "name"`;
      return null;
    }
    case "tasks":
    case "task_range": {
      if (!isDict(v) || !("tasks" in v))
        return `the body is ${pyType(v)} without "tasks": res["tasks"] fails`;
      if (!Array.isArray(v.tasks) && !isDict(v.tasks) && typeof v.tasks !== "string")
        return `"tasks" is ${pyType(v.tasks)}: iterating it fails`;
      return null;
    }
    case "num_tasks":
      return isDict(v) && "num_tasks" in v ? null : `the body is ${pyType(v)} without "num_tasks"`;
    case "task":
      return isDict(v) && "task" in v ? null : `the body is ${pyType(v)} without "task"`;
    case "prompt":
      return blocksProblem(v, "the prompt");
  }
}

export type ReferenceJsonResult = { ok: true; value: unknown } | { ok: false; failure: string };

/** What `request_retryable(..., expect_json=True)` gets from an answer: the value, or the failure. */
export function referenceJsonRead(answer: ProbeAnswer): ReferenceJsonResult {
  if (answer.status >= 400)
    return { ok: false, failure: `HTTP ${answer.status}: the client raises ClientResponseError` };
  const type = answer.contentType.toLowerCase();
  if (!AIOHTTP_JSON_TYPE.test(type))
    return {
      ok: false,
      failure: `content type ${JSON.stringify(type || "(none)")}: aiohttp's resp.json() raises ContentTypeError`,
    };
  // bytes.strip(): ASCII whitespace only.
  const body = answer.text.replace(/^[ \t\n\r\f\v]+|[ \t\n\r\f\v]+$/g, "");
  if (!body) return { ok: true, value: null };
  try {
    return { ok: true, value: JSON.parse(body) };
  } catch (e) {
    return { ok: false, failure: `json.loads fails (${(e as Error).message})` };
  }
}

/** Why the reference client fails reading this answer of a JSON endpoint, or null. */
export function referenceJsonProblem(answer: ProbeAnswer, shape: ReferenceJsonShape): string | null {
  const read = referenceJsonRead(answer);
  if (!read.ok) return read.failure;
  return shapeProblem(shape, read.value);
}

export type ReferenceCreateSession =
  | { ok: true; sid: string; discoverySid: string | null }
  | { ok: false; failure: string };

/**
 * What the reference client makes of a `/create_session` answer: sessions take the sid from the
 * `end` JSON's "sid" or else the `task_id` event; its discovery calls take it from `task_id` only.
 */
export function referenceCreateSession(answer: ProbeAnswer): ReferenceCreateSession {
  if (answer.status >= 400)
    return { ok: false, failure: `HTTP ${answer.status}: the client raises ClientResponseError` };
  const reading = readSseAsReferenceClient(answer.text);
  if (reading.failure) return { ok: false, failure: reading.failure };
  let pending: string | null = null;
  const pieces: string[] = [];
  for (const { event, data } of reading.events) {
    if (event === "task_id") pending = pyStrip(data);
    else if (event === "chunk") pieces.push(data);
    else if (event === "error")
      return { ok: false, failure: `event: error: the client raises RuntimeError(${JSON.stringify(data)})` };
    else if (event === "end") {
      pieces.push(data);
      const json = pieces.join("");
      let sid: string | null = null;
      if (json) {
        let res: unknown;
        try {
          res = JSON.parse(json);
        } catch (e) {
          return { ok: false, failure: `json.loads fails on the end data (${(e as Error).message})` };
        }
        if (isDict(res) && pyTruthy(res) && typeof res.sid === "string") sid = res.sid;
      }
      sid ??= pending;
      if (sid === null)
        return { ok: false, failure: "no sid in `end` and no `task_id` event: AssertionError" };
      return { ok: true, sid, discoverySid: pending };
    }
  }
  const found = reading.events.length
    ? `events ${reading.events.map((e) => e.event).join(", ")} but no \`end\``
    : "no SSE event";
  return {
    ok: false,
    failure: `${found}: the client raises 'Stream ended unexpectedly' (and gives up after 3 retries)`,
  };
}
