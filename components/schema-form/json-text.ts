// Parsing JSON typed by hand (the JSON tab of a tool form, the task_spec editor): a clear error
// with line and column, and a check that the value is a JSON object.
import type { JsonObject } from "@/lib/ors/protocol";

export type JsonParse =
  | { ok: true; value: JsonObject }
  | { ok: false; message: string; line?: number; column?: number };

/** Line and column (1-based) of a character offset in `text`. */
export function lineColumnAt(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, Math.max(0, Math.min(offset, text.length)));
  const lines = before.split("\n");
  return { line: lines.length, column: lines[lines.length - 1]!.length + 1 };
}

/**
 * The offset of the first syntax error in `text` (a small JSON scanner), or -1. Browsers' own
 * messages do not always give a position (Chromium: `Unexpected token '}', ..."b": }" is not valid JSON`).
 */
export function jsonErrorOffset(text: string): number {
  let i = 0;
  const ws = () => {
    while (i < text.length && " \t\n\r".includes(text[i]!)) i++;
  };
  const fail = (): never => {
    throw i;
  };
  const str = () => {
    i++;
    while (i < text.length) {
      const ch = text[i]!;
      if (ch === '"') {
        i++;
        return;
      }
      if (ch === "\\") {
        i += 2;
        continue;
      }
      if (ch < " ") fail();
      i++;
    }
    fail();
  };
  // An object's members or an array's elements, from its opening character to `close`.
  const items = (close: string, member: () => void) => {
    i++;
    ws();
    if (text[i] === close) {
      i++;
      return;
    }
    for (;;) {
      member();
      ws();
      if (text[i] === ",") {
        i++;
        continue;
      }
      if (text[i] === close) {
        i++;
        return;
      }
      fail();
    }
  };
  const literal = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?|true|false|null/y;
  const value = (): void => {
    ws();
    const c = text[i];
    if (c === "{") {
      items("}", () => {
        ws();
        if (text[i] !== '"') fail();
        str();
        ws();
        if (text[i] !== ":") fail();
        i++;
        value();
      });
      return;
    }
    if (c === "[") {
      items("]", value);
      return;
    }
    if (c === '"') {
      str();
      return;
    }
    literal.lastIndex = i;
    if (!literal.exec(text)) fail();
    i = literal.lastIndex;
  };
  try {
    value();
    ws();
    if (i < text.length) fail();
    return -1;
  } catch (at) {
    return typeof at === "number" ? at : -1;
  }
}

/** Parses `text` as a JSON object; errors say what and where (line:column). */
export function parseJsonObject(text: string): JsonParse {
  if (text.trim() === "") return { ok: false, message: "Empty: expected a JSON object such as {}" };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    const raw = err instanceof Error ? err.message : String(err);
    const lc = /line (\d+) column (\d+)/.exec(raw);
    const pos = /position (\d+)/.exec(raw);
    const offset = jsonErrorOffset(text);
    const where = lc
      ? { line: Number(lc[1]), column: Number(lc[2]) }
      : pos
        ? lineColumnAt(text, Number(pos[1]))
        : offset >= 0
          ? lineColumnAt(text, offset)
          : undefined;
    let message = raw.replace(/\s*\(line \d+ column \d+\)/, "").replace(/ in JSON at position \d+/, "");
    // Chromium quotes a snippet and adds "is not valid JSON": name the character instead.
    if (/is not valid JSON/.test(message) && offset >= 0) {
      message =
        offset >= text.length ? "Unexpected end of input" : `Unexpected ${JSON.stringify(text[offset])}`;
    }
    return {
      ok: false,
      message: where ? `${message} at line ${where.line}, column ${where.column}` : message,
      ...where,
    };
  }
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    const kind = value === null ? "null" : Array.isArray(value) ? "an array" : typeof value;
    return { ok: false, message: `Expected a JSON object ({...}), got ${kind}` };
  }
  return { ok: true, value: value as JsonObject };
}

/** Deep equality of JSON values (key order ignored). */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== typeof b || a === null || b === null || typeof a !== "object") return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) {
    const bb = b as unknown[];
    return a.length === bb.length && a.every((x, i) => jsonEqual(x, bb[i]));
  }
  const ao = a as Record<string, unknown>;
  const bo = b as Record<string, unknown>;
  const ak = Object.keys(ao).filter((k) => ao[k] !== undefined);
  const bk = Object.keys(bo).filter((k) => bo[k] !== undefined);
  return ak.length === bk.length && ak.every((k) => jsonEqual(ao[k], bo[k]));
}
