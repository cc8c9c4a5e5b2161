// `test --update`: golden files rewritten with the episodes that were re-recorded, each in place of
// its old self (same id, same position), the file in its own shape — one JSON object, a JSON array,
// or JSONL, its indentation and line ends kept — and every other episode left byte for byte.
import fs from "node:fs";
import path from "node:path";
import { parseTrajectories } from "@/lib/trajectory/jsonl";
import type { Trajectory } from "@/lib/trajectory/schema";

/** The indentation of pretty-printed JSON (`"  "`, a tab), or 0 for JSON on one line. */
function indentOf(text: string): string | number {
  return /\n([ \t]+)["{[\]}]/.exec(text)?.[1] ?? 0;
}

function idOf(value: unknown): string | null {
  const id = (value as { id?: unknown } | null)?.id;
  return typeof id === "string" ? id : null;
}

/**
 * `text` (a golden file) with the trajectories of `updates` in place of those with their ids.
 * Throws when the result would not read back as the same episodes (it never should).
 */
export function rewriteGoldenText(text: string, updates: ReadonlyMap<string, Trajectory>): string {
  const trimmed = text.trim();
  let out: string | null = null;
  if (trimmed.startsWith("[") || trimmed.startsWith("{")) {
    try {
      const whole = JSON.parse(trimmed) as unknown;
      const swap = (v: unknown) => updates.get(idOf(v) ?? "") ?? v;
      const next = Array.isArray(whole) ? whole.map(swap) : swap(whole);
      const trailing = text.slice(text.trimEnd().length);
      out = `${JSON.stringify(next, null, indentOf(trimmed))}${trailing}`;
    } catch {
      out = null; // not one JSON value: JSONL
    }
  }
  if (out === null) {
    out = text
      .split("\n")
      .map((line) => {
        if (!line.trim()) return line;
        const cr = line.endsWith("\r") ? "\r" : "";
        const update = updates.get(idOf(JSON.parse(line)) ?? "");
        return update ? `${JSON.stringify(update)}${cr}` : line;
      })
      .join("\n");
  }
  const before = parseTrajectories(text);
  const after = parseTrajectories(out);
  const ids = (r: typeof after) => (r.ok ? r.trajectories.map((t) => t.id).join("\n") : null);
  if (!after.ok || ids(after) !== ids(before))
    throw new Error(
      `the rewritten file would not hold the same episodes${after.ok ? "" : `: ${after.errors[0]}`}`,
    );
  return out;
}

/** Writes `text` to `file` through a temporary file renamed over it (never half a file), keeping its mode. */
export function writeFileReplacing(file: string, text: string): void {
  const mode = fs.statSync(file).mode & 0o777;
  const tmp = path.join(path.dirname(file), `.${path.basename(file)}.${process.pid}.tmp`);
  try {
    fs.writeFileSync(tmp, text, { mode });
    fs.renameSync(tmp, file);
  } catch (e) {
    fs.rmSync(tmp, { force: true });
    throw e;
  }
}
