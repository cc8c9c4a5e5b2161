// Content snapshots of environment files: a hash of each file's bytes, so that a reload happens only
// when a byte changed — not for a touch, an editor's or a formatter's save of the same text, or a
// `git checkout` that writes what was there (each of which fires the watcher and bumps mtimes).
import "server-only";
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";

/** File (absolute path) → SHA-256 of its bytes, or null for a file that could not be read. */
export type Snapshot = ReadonlyMap<string, string | null>;

function hashOf(file: string): string | null {
  try {
    return createHash("sha256").update(readFileSync(file)).digest("hex");
  } catch {
    return null;
  }
}

/** The snapshot of `files`; a hash already in `known` (read at the same moment) is reused. */
export function snapshotOf(files: Iterable<string>, known?: Snapshot): Map<string, string | null> {
  const out = new Map<string, string | null>();
  for (const f of files) if (!out.has(f)) out.set(f, known?.has(f) ? known.get(f)! : hashOf(f));
  return out;
}

/** The files of `before` whose bytes now differ from `now` (read with snapshotOf), in order. */
export function changedFiles(before: Snapshot, now: Snapshot): string[] {
  const out: string[] = [];
  for (const [file, hash] of before) if (!now.has(file) || now.get(file) !== hash) out.push(file);
  return out;
}

/** Whether two snapshots hold the same files with the same bytes. */
export function sameSnapshot(a: Snapshot, b: Snapshot): boolean {
  return a.size === b.size && changedFiles(a, b).length === 0;
}
