import { describe, expect, it } from "vitest";
import { byteCuts, frameResult } from "@/lib/ors/host/frames";
import { readSseFrames, type SseFrame } from "@/lib/ors/protocol/sse";

const WS = [..." \t\n\v\f\r\u00a0\u1680\u2000\u2005\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"];

function pieces(b: Buffer): Buffer[] {
  const cuts = byteCuts(b, 64);
  const out: Buffer[] = [];
  let from = 0;
  for (const c of [...cuts, b.length]) {
    out.push(b.subarray(from, c));
    from = c;
  }
  return out;
}

async function events(framed: string | Buffer): Promise<SseFrame[]> {
  const out: SseFrame[] = [];
  const bytes = typeof framed === "string" ? new TextEncoder().encode(framed) : new Uint8Array(framed);
  for await (const f of readSseFrames(new Response(bytes).body!)) out.push(f);
  return out;
}

describe("byteCuts", () => {
  it("cuts into valid UTF-8 pieces that never begin or end with whitespace", () => {
    const s = `${Array.from({ length: 4000 }, (_, i) => `é😀${i % 3 ? "ab" : ""}${WS[i % WS.length]}`).join("")}z`;
    const b = Buffer.from(s);
    const ps = pieces(b);
    expect(ps.length).toBeGreaterThan(100);
    const strict = new TextDecoder("utf-8", { fatal: true });
    const texts = ps.map((p) => strict.decode(p));
    expect(texts.join("")).toBe(s);
    for (const t of texts) expect(t).not.toMatch(/^\s|\s$/);
    for (const p of ps) expect(p.length).toBeLessThanOrEqual(64 + 64);
  });

  it("handles a run of whitespace longer than a piece", () => {
    const s = `a${" ".repeat(1000)}\u3000\u3000b${"x".repeat(300)}`;
    const texts = pieces(Buffer.from(s)).map((p) => p.toString());
    expect(texts.join("")).toBe(s);
    for (const t of texts) expect(t).not.toMatch(/^\s|\s$/);
  });
});

describe("frameResult", () => {
  it("frames a small result as one end event", async () => {
    const json = JSON.stringify({ ok: true, output: { blocks: [] } });
    expect(frameResult(json)).toBe(`event: end\ndata: ${json}\n\n`);
  });

  it("frames a large result as chunk…end events of at most 4096 bytes that reassemble exactly", async () => {
    const text = Array.from({ length: 30_000 }, (_, i) => (i % 11 ? `w${i}` : "😀 é\n  ")).join(" ");
    const json = JSON.stringify({ ok: true, output: { blocks: [{ type: "text", text }] } });
    const framed = frameResult(json);
    expect(Buffer.isBuffer(framed)).toBe(true);
    const evs = (await events(framed)) as { event: string; data: string }[];
    expect(evs.slice(0, -1).every((e) => e.event === "chunk")).toBe(true);
    expect(evs.at(-1)!.event).toBe("end");
    for (const e of evs) {
      expect(Buffer.byteLength(e.data)).toBeLessThanOrEqual(4096);
      expect(e.data).not.toMatch(/^\s|\s$/);
    }
    expect(evs.map((e) => e.data).join("")).toBe(json);
  });

  it("uses the byte path for a short string whose UTF-8 form exceeds the chunk size", async () => {
    const json = JSON.stringify({ text: "é".repeat(3000) });
    const evs = (await events(frameResult(json))) as { event: string; data: string }[];
    expect(evs.length).toBe(2);
    expect(evs.map((e) => e.data).join("")).toBe(json);
  });
});
