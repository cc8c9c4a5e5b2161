// Request bodies of the playground's APIs, read within a size limit and checked: every failure is an
// OrsError (413 too large, 400 not JSON, too deep, or not what the schema wants) that the route
// wrapper (./route.ts) answers as `{detail}`.
import "server-only";
import type { z } from "zod";
import { describeZodError, OrsError, readWithin } from "@/lib/ors/protocol";

/** What a small JSON body (options, a flag) may weigh. */
export const SMALL_BODY_BYTES = 64 * 1024;
/**
 * How deep a JSON body may nest. Far beyond any real request, and far below what JSON.stringify and
 * recursive checks can take before they overflow the stack (a crash would answer 500).
 */
export const MAX_JSON_DEPTH = 256;

const sizeOf = (limit: number) =>
  limit >= 1024 * 1024 ? `${Math.round(limit / 1024 / 1024)} MB` : `${Math.round(limit / 1024)} KB`;

/** The body as text; a 413 OrsError beyond `limit` bytes (nothing beyond it is buffered). */
export async function readBody(req: Request, limit: number): Promise<string> {
  const bytes = await readWithin(req.body, limit, { declaredLength: req.headers.get("content-length") });
  if (bytes === null) throw new OrsError(413, `the body is larger than ${sizeOf(limit)}`);
  return new TextDecoder().decode(bytes);
}

/** How deep `text` nests its arrays and objects (strings skipped), counted up to `stopAt`. */
export function jsonDepth(text: string, stopAt = Number.POSITIVE_INFINITY): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92)
        i++; // a backslash: the next character is escaped
      else if (c === 34) inString = false;
    } else if (c === 34) inString = true;
    else if (c === 91 || c === 123) {
      depth++;
      if (depth > deepest) deepest = depth;
      if (deepest > stopAt) return deepest;
    } else if (c === 93 || c === 125) depth--;
  }
  return deepest;
}

/** Parses JSON text (empty means `{}`); a 400 OrsError when it is malformed or nests too deep. */
export function parseJson(text: string): unknown {
  if (!text.trim()) return {};
  if (jsonDepth(text, MAX_JSON_DEPTH) > MAX_JSON_DEPTH)
    throw new OrsError(400, `body: nested deeper than ${MAX_JSON_DEPTH} levels`);
  try {
    return JSON.parse(text) as unknown;
  } catch (e) {
    throw new OrsError(400, `body: malformed JSON (${e instanceof Error ? e.message : String(e)})`);
  }
}

/** A JSON object body (empty means `{}`) within `limit` bytes; a 400 OrsError for anything else. */
export async function readJsonObject(
  req: Request,
  limit = SMALL_BODY_BYTES,
): Promise<Record<string, unknown>> {
  const value = parseJson(await readBody(req, limit));
  if (typeof value !== "object" || value === null || Array.isArray(value))
    throw new OrsError(400, "body: expected a JSON object");
  return value as Record<string, unknown>;
}

/** A JSON object body as `schema` reads it; a 400 OrsError naming each offending field. */
export async function readJsonBody<T>(
  req: Request,
  schema: z.ZodType<T>,
  limit = SMALL_BODY_BYTES,
): Promise<T> {
  return parseWith(schema, await readJsonObject(req, limit));
}

/** `value` as `schema` reads it; a 400 OrsError naming each offending field. */
export function parseWith<T>(schema: z.ZodType<T>, value: unknown): T {
  const r = schema.safeParse(value);
  if (!r.success) throw new OrsError(400, describeZodError(r.error));
  return r.data;
}
