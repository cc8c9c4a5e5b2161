// Import/export of trajectories: one trajectory as JSON, many as JSONL (one per line).
// Parsing validates every record with the zod schema and reports errors with line numbers; it
// returns either every trajectory or only errors, so an import is all-or-nothing.
import type { z } from "zod";
import { type Trajectory, trajectorySchema } from "./schema";

export type ParseResult = { ok: true; trajectories: Trajectory[] } | { ok: false; errors: string[] };

const MAX_ERRORS = 20;

function describeIssues(error: z.ZodError): string {
  return error.issues
    .slice(0, 5)
    .map((issue) => `${issue.path.length ? issue.path.map(String).join(".") : "(record)"}: ${issue.message}`)
    .join("; ");
}

/**
 * Parses an import file: a JSON object (one trajectory), a JSON array of trajectories, or JSONL
 * (one trajectory per non-empty line). Errors name the line (JSONL) or the array item (JSON).
 */
export function parseTrajectories(text: string): ParseResult {
  const trimmed = text.trim();
  if (!trimmed) return { ok: false, errors: ["the file is empty: expected JSON or JSONL trajectories"] };
  const errors: string[] = [];
  const out: Trajectory[] = [];
  const seen = new Map<string, string>();
  const take = (value: unknown, where: string) => {
    const r = trajectorySchema.safeParse(value);
    if (!r.success) {
      errors.push(`${where}: ${describeIssues(r.error)}`);
      return;
    }
    const dup = seen.get(r.data.id);
    if (dup) {
      errors.push(`${where}: duplicate id "${r.data.id}" (also ${dup})`);
      return;
    }
    seen.set(r.data.id, where);
    out.push(r.data);
  };

  let whole: unknown;
  let wholeOk = false;
  if (trimmed.startsWith("[") || (trimmed.startsWith("{") && !trimmed.includes("\n"))) {
    try {
      whole = JSON.parse(trimmed);
      wholeOk = true;
    } catch (e) {
      if (trimmed.startsWith("[")) {
        return { ok: false, errors: [`invalid JSON: ${e instanceof Error ? e.message : String(e)}`] };
      }
    }
  } else if (trimmed.startsWith("{")) {
    // Pretty-printed single object vs JSONL: try the whole text first.
    try {
      whole = JSON.parse(trimmed);
      wholeOk = true;
    } catch {
      wholeOk = false;
    }
  }

  if (wholeOk) {
    if (Array.isArray(whole)) {
      for (const [i, item] of whole.entries()) take(item, `item ${i + 1}`);
    } else take(whole, "trajectory");
  } else {
    const lines = text.split(/\r?\n/);
    lines.forEach((line, i) => {
      if (errors.length >= MAX_ERRORS || !line.trim()) return;
      let value: unknown;
      try {
        value = JSON.parse(line);
      } catch (e) {
        errors.push(`line ${i + 1}: invalid JSON (${e instanceof Error ? e.message : String(e)})`);
        return;
      }
      take(value, `line ${i + 1}`);
    });
  }
  if (errors.length) return { ok: false, errors: errors.slice(0, MAX_ERRORS) };
  if (!out.length) return { ok: false, errors: ["no trajectories found in the file"] };
  return { ok: true, trajectories: out };
}

/** One trajectory per line. */
export function toJsonl(trajectories: Iterable<Trajectory>): string {
  let s = "";
  for (const t of trajectories) s += `${JSON.stringify(t)}\n`;
  return s;
}
