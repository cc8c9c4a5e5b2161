// The `chunk`...`end` SSE events of a tool result (spec: ors-sse.txt "Chunking"), built by the host.
// Small results are framed as text; large ones are encoded to UTF-8 once and cut and framed as bytes,
// with the same rules as the protocol's splitIntoChunks: no piece begins or ends with whitespace
// (clients strip it) and no character is split.
import { SSE_CHUNK_SIZE } from "../protocol/sse";

const CHUNK_HEAD = Buffer.from("event: chunk\ndata: ");
const END_HEAD = Buffer.from("event: end\ndata: ");
const TAIL = Buffer.from("\n\n");

/** Whether the UTF-8 character starting at byte `i` is whitespace as the regex `\s` defines it. */
function whitespaceAt(b: Uint8Array, i: number): boolean {
  const c = b[i]!;
  if (c < 0x80) return c === 0x20 || (c >= 0x09 && c <= 0x0d);
  const c1 = b[i + 1];
  const c2 = b[i + 2];
  switch (c) {
    case 0xc2:
      return c1 === 0xa0; // U+00A0
    case 0xe1:
      return c1 === 0x9a && c2 === 0x80; // U+1680
    case 0xe2:
      if (c1 === 0x80) return c2 !== undefined && (c2 <= 0x8a || c2 === 0xa8 || c2 === 0xa9 || c2 === 0xaf); // U+2000–200A, 2028, 2029, 202F
      return c1 === 0x81 && c2 === 0x9f; // U+205F
    case 0xe3:
      return c1 === 0x80 && c2 === 0x80; // U+3000
    case 0xef:
      return c1 === 0xbb && c2 === 0xbf; // U+FEFF
    default:
      return false;
  }
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
 * a raw CR or LF, so each piece is one `data:` line.
 */
export function frameResult(json: string, size: number = SSE_CHUNK_SIZE): string | Buffer {
  if (json.length <= size && (json.length * 3 <= size || Buffer.byteLength(json) <= size))
    return `event: end\ndata: ${json}\n\n`;
  const bytes = Buffer.from(json, "utf8");
  const cuts = byteCuts(bytes, size);
  const total =
    bytes.length + cuts.length * (CHUNK_HEAD.length + TAIL.length) + END_HEAD.length + TAIL.length;
  const out = Buffer.allocUnsafe(total);
  let at = 0;
  let from = 0;
  for (let k = 0; k <= cuts.length; k++) {
    const to = k < cuts.length ? cuts[k]! : bytes.length;
    at += (k < cuts.length ? CHUNK_HEAD : END_HEAD).copy(out, at);
    at += bytes.copy(out, at, from, to);
    at += TAIL.copy(out, at);
    from = to;
  }
  return out;
}
