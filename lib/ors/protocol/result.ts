// Reassembling a tool call's result from its SSE pieces (spec: ors-sse.txt "Chunking"): the data
// of every `chunk` event and of the final `end` event, concatenated, is the serialized
// RunToolOutput. The one implementation for the client, the relay's recorder and replay.
import { type RunToolOutput, runToolOutputReadSchema } from "./schemas";

export type ResultOutcome = { ok: true; result: RunToolOutput } | { ok: false; error: string };

/** Parses a reassembled result leniently (unknown fields dropped); the error says what was wrong. */
export function parseRunToolOutput(json: string): ResultOutcome {
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch {
    const shown = json.length > 120 ? `${json.slice(0, 120)}…` : json;
    return { ok: false, error: `the reassembled result is not JSON: ${JSON.stringify(shown)}` };
  }
  const parsed = runToolOutputReadSchema.safeParse(value);
  if (parsed.success) return { ok: true, result: parsed.data };
  const issues = parsed.error.issues
    .slice(0, 5)
    .map((i) => `${i.path.map(String).join(".") || "result"}: ${i.message}`)
    .join("; ");
  return { ok: false, error: `the result is not a RunToolOutput: ${issues}` };
}

/** Thrown by ResultAssembler.add when a result grows beyond its limit. */
export class ResultTooLargeError extends Error {
  constructor(readonly limit: number) {
    super(`the result is larger than ${limit} characters`);
    this.name = "ResultTooLargeError";
  }
}

/**
 * Collects the pieces of one result as they arrive. `maxChars` bounds what is kept (a hostile or
 * broken server can send `chunk`s forever): beyond it `add` throws ResultTooLargeError.
 */
export class ResultAssembler {
  private pieces: string[] = [];
  private size = 0;

  constructor(readonly maxChars: number = Number.POSITIVE_INFINITY) {}

  /** Characters received so far. */
  get received(): number {
    return this.size;
  }

  /** A `chunk` piece. */
  add(piece: string): void {
    this.size += piece.length;
    if (this.size > this.maxChars) {
      this.pieces = [];
      throw new ResultTooLargeError(this.maxChars);
    }
    this.pieces.push(piece);
  }

  /** The `end` piece: the whole result, parsed. The assembler is empty afterwards. */
  end(piece: string): ResultOutcome {
    this.add(piece);
    const json = this.pieces.length === 1 ? this.pieces[0]! : this.pieces.join("");
    this.pieces = [];
    this.size = 0;
    return parseRunToolOutput(json);
  }
}
