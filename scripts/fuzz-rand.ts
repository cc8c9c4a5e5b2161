// Seeded random values for `npm run fuzz` (./fuzz-requests.ts, ./fuzz-raw.ts), and the shape of one
// request it sends.

/** Characters of random text, by code point (no lone surrogates). */
const TEXT_ALPHABET = Array.from(
  "abcdefghijklmnopqrstuvwxyz0123456789-_.~!$&'()*+,;=:@ %/?#[]\"<>\\^`{|}é✓🙂\u0000\u007f",
);

export class Rand {
  constructor(readonly next: () => number) {}
  int(n: number): number {
    return Math.floor(this.next() * n);
  }
  pick<T>(xs: readonly T[]): T {
    return xs[this.int(xs.length)]!;
  }
  chance(p: number): boolean {
    return this.next() < p;
  }
  bytes(n: number): Buffer {
    const b = Buffer.alloc(n);
    for (let i = 0; i < n; i++) b[i] = this.int(256);
    return b;
  }
  text(n: number): string {
    let s = "";
    for (let i = 0; i < n; i++) s += TEXT_ALPHABET[this.int(TEXT_ALPHABET.length)];
    return s;
  }
}

export interface FuzzRequest {
  kind: string;
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: Buffer;
  /** Sent over a raw socket, byte for byte (what node:http's client refuses to send). */
  raw?: Buffer;
  /** Raw only: close our side after sending. */
  halfClose?: boolean;
}
