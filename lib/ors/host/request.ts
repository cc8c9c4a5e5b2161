// Reading ORS requests (spec: ors-http-api.txt "Common Headers", request schemas): the
// adapter-neutral request the host answers, its path, a body within the size limit, JSON objects
// checked by the protocol's strict schemas, and the headers the host reads (X-Session-ID, X-Secrets).
import { readWithin } from "../protocol/body";
import { OrsError } from "../protocol/http-error";
import {
  type CreateRequest,
  createRequestSchema,
  describeZodError,
  type ToolCall,
  toolCallSchema,
} from "../protocol/schemas";
import { errorMessage } from "./output";

/** The request as the host needs it; built from a fetch `Request` or by the node:http adapter. */
export interface IncomingOrsRequest {
  readonly method: string;
  /** The URL path, without query string. */
  readonly path: string;
  /** A header by lower-case name, or null. */
  header(name: string): string | null;
  /** The body as text; throws OrsError 413 beyond `limit` bytes. */
  readBody(limit: number): Promise<string>;
}

/** The longest `X-Session-ID` accepted. */
export const SID_MAX = 256;

/** A string as an error detail quotes it: JSON-quoted, cut at 80 characters. */
export function quote(s: string): string {
  return JSON.stringify(s.length > 80 ? `${s.slice(0, 80)}…` : s);
}

/** A duration as a detail says it: `60 s`, or `250 ms`. */
export function seconds(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`;
}

export function tooLarge(limit: number): OrsError {
  return new OrsError(413, `Request body too large: the limit is ${limit} bytes (ORS_MAX_BODY_BYTES)`);
}

/** Reads a fetch Request body as text, refusing more than `limit` bytes with a 413. */
export async function readRequestBody(req: Request, limit: number): Promise<string> {
  const bytes = await readWithin(req.body, limit, { declaredLength: req.headers.get("content-length") });
  if (bytes === null) throw tooLarge(limit);
  return new TextDecoder().decode(bytes);
}

/** Path of a request URL without the query string, without building a URL object. */
export function pathOf(url: string): string {
  let start = 0;
  const scheme = url.indexOf("://");
  if (scheme >= 0) {
    start = url.indexOf("/", scheme + 3);
    if (start < 0) return "/";
  }
  let end = url.length;
  const q = url.indexOf("?", start);
  if (q >= 0) end = q;
  const h = url.indexOf("#", start);
  if (h >= 0 && h < end) end = h;
  return url.slice(start, end);
}

/** Parses a JSON body that must be an object; a 400 naming the problem otherwise. */
export function parseJsonObject(text: string): unknown {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    if (text.trim() === "") throw new OrsError(400, "body: expected a JSON object, got an empty body");
    throw new OrsError(400, `body: malformed JSON (${errorMessage(e)})`);
  }
  if (typeof value !== "object" || value === null || Array.isArray(value))
    throw new OrsError(400, "body: expected a JSON object");
  return value;
}

interface Parser<T> {
  safeParse(v: unknown): { success: true; data: T } | { success: false; error: import("zod").ZodError };
}

/** The value as `schema` reads it, or a 400 naming each offending field. */
export function validate<T>(schema: Parser<T>, value: unknown): T {
  const r = schema.safeParse(value);
  if (!r.success) throw new OrsError(400, describeZodError(r.error));
  return r.data;
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);
const isNullish = (v: unknown) => v === undefined || v === null;
/** Whether every key of `o` is one of `keys` (the schemas are strict). */
function onlyKeys(o: Record<string, unknown>, keys: ReadonlySet<string>): boolean {
  for (const k in o) if (!keys.has(k)) return false;
  return true;
}

const TOOL_CALL_KEYS = new Set(["name", "input", "task_id"]);
const CREATE_KEYS = new Set(["env_name", "task_spec", "split", "index", "secrets"]);

/**
 * A `/call` body as `toolCallSchema` reads it. The shape every call has is accepted here by hand (this
 * runs for each call, and accepts nothing the schema refuses); anything else is left to the schema,
 * whose 400 names the field.
 */
export function readToolCall(raw: unknown): ToolCall {
  if (
    isObject(raw) &&
    onlyKeys(raw, TOOL_CALL_KEYS) &&
    typeof raw.name === "string" &&
    isObject(raw.input) &&
    (isNullish(raw.task_id) || typeof raw.task_id === "string")
  )
    return raw as ToolCall;
  return validate(toolCallSchema, raw);
}

/** A `/create` body as `createRequestSchema` reads it: by hand when it is well formed, as readToolCall. */
export function readCreate(raw: unknown): CreateRequest {
  if (isObject(raw) && onlyKeys(raw, CREATE_KEYS)) {
    const { env_name, task_spec, split, index, secrets } = raw;
    const hasSpec = !isNullish(task_spec);
    const hasSplit = !isNullish(split);
    if (
      (isNullish(env_name) || typeof env_name === "string") &&
      (!hasSpec || isObject(task_spec)) &&
      (!hasSplit || typeof split === "string") &&
      (isNullish(index) || Number.isSafeInteger(index)) &&
      (isNullish(secrets) ||
        (isObject(secrets) && Object.values(secrets).every((v) => typeof v === "string"))) &&
      hasSplit === !isNullish(index) &&
      hasSpec !== hasSplit
    )
      return raw as CreateRequest;
  }
  return validate(createRequestSchema, raw);
}

/** Reads the body as a JSON object within `limit` bytes (413 beyond, 400 if it is not an object). */
export async function readJsonObject(req: IncomingOrsRequest, limit: number): Promise<unknown> {
  return parseJsonObject(await req.readBody(limit));
}

/** `X-Secrets`: base64 of JSON `{"NAME": {"value": "..."}}` (the reference client's form) or `{"NAME": "..."}`. */
export function parseSecretsHeader(raw: string): Record<string, string> {
  let decoded: unknown;
  try {
    decoded = JSON.parse(Buffer.from(raw.trim(), "base64").toString("utf8"));
  } catch {
    throw new OrsError(400, "X-Secrets header: expected base64 of a JSON object");
  }
  if (typeof decoded !== "object" || decoded === null || Array.isArray(decoded))
    throw new OrsError(400, "X-Secrets header: expected base64 of a JSON object");
  const out: Record<string, string> = {};
  for (const [name, v] of Object.entries(decoded)) {
    if (typeof v === "string") out[name] = v;
    else if (typeof v === "object" && v !== null && typeof (v as { value?: unknown }).value === "string")
      out[name] = (v as { value: string }).value;
    else throw new OrsError(400, `X-Secrets header: ${name}: expected {"value": "<string>"}`);
  }
  return out;
}

/** The `X-Session-ID` header, trimmed, or null when absent; a 400 when it is too long. */
export function sessionIdOf(req: IncomingOrsRequest): string | null {
  const raw = req.header("x-session-id");
  if (raw === null) return null;
  const sid = raw.trim();
  if (sid.length > SID_MAX) throw new OrsError(400, `X-Session-ID header: longer than ${SID_MAX} characters`);
  return sid;
}

/** The session id an endpoint needs: a 400 when the header is missing or empty. */
export function requireSid(sid: string | null): string {
  if (sid === null || sid === "") throw new OrsError(400, "X-Session-ID header is required");
  return sid;
}
