import { describe, expect, it } from "vitest";
import { ResultAssembler, ResultTooLargeError } from "@/lib/ors/protocol/result";
import {
  createSseFrameParser,
  formatResultEvents,
  formatSseEvent,
  readSseFrames,
  type SseFrame,
  SseLimitError,
  splitIntoChunks,
} from "@/lib/ors/protocol/sse";

function streamOf(...parts: string[]): ReadableStream<Uint8Array> {
  const enc = new TextEncoder();
  return new ReadableStream({
    start(controller) {
      for (const p of parts) controller.enqueue(enc.encode(p));
      controller.close();
    },
  });
}

async function collect(body: ReadableStream<Uint8Array>): Promise<SseFrame[]> {
  const out: SseFrame[] = [];
  for await (const f of readSseFrames(body)) out.push(f);
  return out;
}

describe("formatSseEvent", () => {
  it("frames one event", () => {
    expect(formatSseEvent("task_id", "abc")).toBe("event: task_id\ndata: abc\n\n");
  });
  it("splits data on line breaks so a message cannot inject frames", () => {
    expect(formatSseEvent("error", "a\nevent: end\r\nb")).toBe(
      "event: error\ndata: a\ndata: event: end\ndata: b\n\n",
    );
  });
  it("refuses a line break in the event name", () => {
    expect(() => formatSseEvent("end\ndata: x", "")).toThrow(/line break/);
  });
});

describe("splitIntoChunks", () => {
  it("keeps a small result whole", () => {
    expect(splitIntoChunks('{"ok":true}')).toEqual(['{"ok":true}']);
  });

  it("reassembles exactly and no piece starts or ends with whitespace", () => {
    const words = Array.from({ length: 5000 }, (_, i) => (i % 7 === 0 ? "  " : `w${i}`)).join(" ");
    const json = JSON.stringify({ ok: true, output: { blocks: [{ type: "text", text: words }] } });
    const pieces = splitIntoChunks(json, 4096);
    expect(pieces.length).toBeGreaterThan(3);
    expect(pieces.join("")).toBe(json);
    for (const p of pieces) {
      expect(p.length).toBeLessThanOrEqual(4096);
      expect(p).not.toMatch(/^\s|\s$/);
    }
  });

  it("never splits a surrogate pair", () => {
    const s = "😀".repeat(5000);
    const pieces = splitIntoChunks(s, 4095);
    expect(pieces.join("")).toBe(s);
    for (const p of pieces)
      expect(p.charCodeAt(p.length - 1)).not.toSatisfy((c: number) => c >= 0xd800 && c <= 0xdbff);
  });

  it("cuts alternating text into full-size pieces that never begin with whitespace", () => {
    const s = "x y ".repeat(5000);
    const pieces = splitIntoChunks(s, 4096);
    expect(pieces.join("")).toBe(s);
    expect(pieces.length).toBe(5);
    for (const p of pieces) {
      expect(p.length).toBeLessThanOrEqual(4096);
      expect(p).not.toMatch(/^\s/);
    }
  });

  it("handles a run of whitespace longer than a chunk", () => {
    const s = `a${" ".repeat(10_000)}b`;
    const pieces = splitIntoChunks(s, 4096);
    expect(pieces.join("")).toBe(s);
    for (const p of pieces) expect(p).not.toMatch(/^\s/);
  });
});

describe("readSseFrames", () => {
  it("parses events and comments split across reads, and reassembles chunked results", async () => {
    const json = JSON.stringify({
      ok: true,
      output: { blocks: [{ type: "text", text: "x y ".repeat(3000) }] },
    });
    const wire = `${formatSseEvent("task_id", "t1")}: ping\n\n${formatResultEvents(json).join("")}`;
    const parts: string[] = [];
    for (let i = 0; i < wire.length; i += 777) parts.push(wire.slice(i, i + 777));
    const frames = await collect(streamOf(...parts));
    expect(frames[0]).toEqual({ kind: "event", event: "task_id", data: "t1", id: undefined });
    expect(frames[1]).toEqual({ kind: "comment", comment: "ping" });
    const events = frames.filter((f) => f.kind === "event").slice(1) as Extract<
      SseFrame,
      { kind: "event" }
    >[];
    expect(events.at(-1)!.event).toBe("end");
    expect(events.slice(0, -1).every((e) => e.event === "chunk")).toBe(true);
    expect(events.map((e) => e.data).join("")).toBe(json);
  });
});

describe("splitIntoChunks whitespace", () => {
  it("never cuts next to any character the regex \\s matches", () => {
    const ws = [..." \t\n\v\f\r\u00a0\u1680\u2000\u2005\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"];
    const s = `${Array.from({ length: 3000 }, (_, i) => `ab${ws[i % ws.length]}`).join("")}z`;
    const pieces = splitIntoChunks(s, 64);
    expect(pieces.join("")).toBe(s);
    for (const p of pieces) expect(p).not.toMatch(/^\s|\s$/);
  });
});

describe("createSseFrameParser limits", () => {
  it("refuses a line without a line break past its limit, however it is cut", () => {
    const frames: SseFrame[] = [];
    const p = createSseFrameParser((f) => frames.push(f), { maxLineChars: 100 });
    p.feed("event: chunk\ndata: ");
    for (let i = 0; i < 8; i++) p.feed("x".repeat(10));
    expect(() => p.feed("x".repeat(30))).toThrow(SseLimitError);
    expect(frames).toEqual([]);
  });

  it("refuses an event of many short lines past its limit, and passes normal events", () => {
    const frames: SseFrame[] = [];
    const p = createSseFrameParser((f) => frames.push(f), { maxLineChars: 50, maxEventChars: 200 });
    p.feed("event: end\ndata: ok\n\n: ping\n\n");
    expect(frames).toEqual([
      { kind: "event", event: "end", data: "ok", id: undefined },
      { kind: "comment", comment: "ping" },
    ]);
    expect(() => {
      for (let i = 0; i < 20; i++) p.feed("data: 0123456789\n");
    }).toThrow(/longer than 200/);
  });
});

describe("ResultAssembler", () => {
  it("reassembles chunk…end pieces leniently and bounds what it keeps", () => {
    const json = JSON.stringify({
      ok: true,
      output: { blocks: [{ type: "text", text: "hi", extra: 1 }], reward: -2, finished: null, newer: true },
    });
    const a = new ResultAssembler(1000);
    a.add(json.slice(0, 10));
    expect(a.end(json.slice(10))).toEqual({
      ok: true,
      result: { ok: true, output: { blocks: [{ type: "text", text: "hi" }], reward: -2, finished: false } },
    });
    const small = new ResultAssembler(5);
    expect(() => small.add("123456")).toThrow(ResultTooLargeError);
    expect(new ResultAssembler().end("{not json")).toMatchObject({ ok: false, error: /not JSON/ });
    expect(new ResultAssembler().end('{"ok": true}')).toMatchObject({ ok: false, error: /output/ });
  });

  it("shows a block of an unknown type as a note instead of failing the whole result", () => {
    const out = new ResultAssembler().end(
      JSON.stringify({
        ok: true,
        output: {
          blocks: [
            { type: "audio", data: "..." },
            { type: "text", text: "t" },
          ],
        },
      }),
    );
    expect(out.ok && out.result.ok && out.result.output.blocks).toEqual([
      { type: "text", text: expect.stringMatching(/"audio"/), detail: { unsupported_block_type: "audio" } },
      { type: "text", text: "t" },
    ]);
  });
});
