// Loop detection of the relay (docs/architecture.md "Security": a hop counter from the client is never
// trusted): every relay sends the marks of the relays a request went through, its own last.
import "server-only";

/**
 * A mark is a random per-process value, so a client cannot forge this relay's mark: a request
 * carrying it came back from a server that leads here (a loop). Marks of other relays are passed
 * on (the last few), so a loop through several apps is caught where it closes.
 */
export const LOOP_HEADER = "x-ors-relay-via";
const MARK = /^[A-Za-z0-9_-]{16,64}$/;
export const MAX_MARKS = 8;

/** The valid marks of a request's loop header, the last few. */
export function marksOf(header: string | null): string[] {
  if (!header) return [];
  return header
    .split(",")
    .map((m) => m.trim())
    .filter((m) => MARK.test(m))
    .slice(-MAX_MARKS);
}
