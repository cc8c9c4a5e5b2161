// The `chunk`...`end` SSE events of a tool result (spec: ors-sse.txt "Chunking"), built by the host.
// Small results are framed as text; large ones are encoded to UTF-8 once and cut and framed as bytes,
// with the same rules as the protocol's splitIntoChunks: no piece begins or ends with a character
// clients strip (lib/ors/protocol/python-whitespace.ts: Python's str.isspace, and U+FEFF) and no
// character is split.
import { isStrippedByClients } from "../protocol/python-whitespace";
import { SSE_CHUNK_SIZE } from "../protocol/sse";

const CHUNK_HEAD = Buffer.from("event: chunk\ndata: ");
const END_HEAD = Buffer.from("event: end\ndata: ");
const TAIL = Buffer.from("\n\n");

/** The code point of the UTF-8 character starting at byte `i` (a lead byte). */
function codePointAt(b: Uint8Array, i: number): number {
  const c = b[i]!;
  if (c < 0x80) return c;
  const c1 = (b[i + 1] ?? 0) & 0x3f;
  if (c < 0xe0) return ((c & 0x1f) << 6) | c1;
  const c2 = (b[i + 2] ?? 0) & 0x3f;
  if (c < 0xf0) return ((c & 0x0f) << 12) | (c1 << 6) | c2;
  return ((c & 0x07) << 18) | (c1 << 12) | (c2 << 6) | ((b[i + 3] ?? 0) & 0x3f);
}

/** Whether the UTF-8 character starting at byte `i` is one a client strips (the one table). */
function whitespaceAt(b: Uint8Array, i: number): boolean {
  return isStrippedByClients(codePointAt(b, i));
}

function isContinuation(c: number): boolean {
  return (c & 0xc0) === 0x80;
}

/** A cut before byte `i` is safe if it splits no character and touches no whitespace on either side. */
function isSafeByteCut(b: Uint8Array, i: number): boolean {
  if (isContinuation(b[i]!)) return false;
  if (whitespaceAt(b, i)) return false;
  let j = i - 1;
  while (j > 0 && isContinuation(b[j]!)) j--;
  return !whitespaceAt(b, j);
}

/** Cut positions of `b` into pieces of at most about `size` bytes (see splitIntoChunks). */
export function byteCuts(b: Uint8Array, size: number): number[] {
  const cuts: number[] = [];
  let start = 0;
  while (b.length - start > size) {
    let cut = start + size;
    const floor = start + Math.max(1, Math.floor(size / 2));
    while (cut > floor && !isSafeByteCut(b, cut)) cut--;
    if (!isSafeByteCut(b, cut)) {
      cut = start + size + 1;
      while (cut < b.length && !isSafeByteCut(b, cut)) cut++;
    }
    if (cut >= b.length) break;
    cuts.push(cut);
    start = cut;
  }
  return cuts;
}

/**
 * Frames a serialized RunToolOutput as `chunk`... `end` events. JSON.stringify output never holds
 * a raw CR or LF, so each piece is one `data:` line. A large result is encoded once, straight into
 * the tail of the buffer it is framed in, and its pieces moved forward into place (no second buffer).
 */
export function frameResult(json: string, size: number = SSE_CHUNK_SIZE): string | Buffer {
  if (json.length <= size && (json.length * 3 <= size || Buffer.byteLength(json) <= size))
    return `event: end\ndata: ${json}\n\n`;
  const length = Buffer.byteLength(json, "utf8");
  // Every piece but the last is longer than size / 2 (see byteCuts): a bound on the events' heads.
  const events = Math.ceil(length / Math.max(1, Math.floor(size / 2))) + 1;
  const room = events * (CHUNK_HEAD.length + TAIL.length);
  const out = Buffer.allocUnsafe(room + length);
  out.write(json, room, "utf8");
  const bytes = out.subarray(room);
  const cuts = byteCuts(bytes, size);
  let at = 0;
  let from = 0;
  for (let k = 0; k <= cuts.length; k++) {
    const to = k < cuts.length ? cuts[k]! : length;
    at += (k < cuts.length ? CHUNK_HEAD : END_HEAD).copy(out, at);
    // The piece is ahead of `at` (the room is never used up), so moving it forward is safe.
    out.copyWithin(at, room + from, room + to);
    at += to - from;
    at += TAIL.copy(out, at);
    from = to;
  }
  return out.subarray(0, at);
}
