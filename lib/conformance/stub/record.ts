// What a stub serves (docs/ci.md "A stand-in server"): recorded trajectories — a run's, or an
// exported JSONL — and optionally the surface of the server they were recorded on. The stub file
// (`ors-stub/1`) is JSONL: a first line `{"format": "ors-stub/1", "surface": {...}}`, then one
// trajectory a line; a plain trajectory export reads too. Isomorphic.
import { type Surface, surfaceSchema } from "@/lib/conformance/diff/surface";
import { parseTrajectories } from "@/lib/trajectory/jsonl";
import type { Trajectory } from "@/lib/trajectory/schema";

export const STUB_FORMAT = "ors-stub/1";

export interface StubRecord {
  /** The server's surface when it was read (null: only what the trajectories show). */
  surface: Surface | null;
  trajectories: Trajectory[];
}

/** A stub file that cannot be read, with what is wrong (line numbers where they help). */
export class StubFileError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "StubFileError";
  }
}

function headerOf(line: string): unknown {
  try {
    const v = JSON.parse(line) as { format?: unknown };
    return v && typeof v === "object" && v.format === STUB_FORMAT ? v : null;
  } catch {
    return null;
  }
}

/** Reads a stub file, a trajectory export (JSONL, a JSON array or one trajectory), or a surface alone. */
export function parseStubFile(text: string): StubRecord {
  const trimmed = text.replace(/^\uFEFF/, "").trim();
  const nl = trimmed.indexOf("\n");
  const first = nl < 0 ? trimmed : trimmed.slice(0, nl);
  const header = headerOf(first);
  let surface: Surface | null = null;
  let rest = trimmed;
  if (header) {
    const s = surfaceSchema.nullable().safeParse((header as { surface?: unknown }).surface ?? null);
    if (!s.success)
      throw new StubFileError(`line 1: not a surface (${s.error.issues[0]?.message ?? "invalid"})`);
    surface = s.data;
    // Blank lines keep the trajectories' line numbers.
    rest = `\n${nl < 0 ? "" : trimmed.slice(nl + 1)}`;
  } else {
    const alone = surfaceSchema.safeParse(safeJson(trimmed));
    if (alone.success) return { surface: alone.data, trajectories: [] };
  }
  if (!rest.trim()) {
    if (surface) return { surface, trajectories: [] };
    throw new StubFileError("the file is empty: expected recorded trajectories (JSONL)");
  }
  const parsed = parseTrajectories(rest);
  if (!parsed.ok) throw new StubFileError(parsed.errors.join("; "));
  return { surface, trajectories: parsed.trajectories };
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

/** The stub file of a record: its header line, then one trajectory a line. */
export function formatStubFile(record: StubRecord): string {
  const lines = [JSON.stringify({ format: STUB_FORMAT, surface: record.surface })];
  for (const t of record.trajectories) lines.push(JSON.stringify(t));
  return `${lines.join("\n")}\n`;
}
