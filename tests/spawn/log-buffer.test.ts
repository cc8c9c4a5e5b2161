// The log of a spawned server: lines from chunks cut anywhere (UTF-8 included), terminal escapes and
// progress redraws cleaned, long lines cut, and the whole bounded in lines and characters.
import { describe, expect, it } from "vitest";
import { cleanLine, createLogBuffer } from "@/lib/spawn/log-buffer";
import type { LogLine } from "@/lib/spawn/types";

const texts = (lines: LogLine[]) => lines.map((l) => `${l.stream}:${l.text}`);

describe("log buffer", () => {
  it("cuts chunks into lines per stream, UTF-8 split across chunks included", () => {
    let t = 1000;
    const log = createLogBuffer({ now: () => t++ });
    const out = log.writer("stdout");
    const err = log.writer("stderr");
    const euro = Buffer.from("€ price\n");
    out.write("hel");
    out.write(Buffer.from("lo\r\nwor"));
    err.write(euro.subarray(0, 2));
    err.write(euro.subarray(2));
    out.write("ld\n\npartial");
    log.system("exited with code 1");
    out.end();
    const { lines, dropped } = log.snapshot();
    expect(texts(lines)).toEqual([
      "stdout:hello",
      "stderr:€ price",
      "stdout:world",
      "stdout:",
      "system:exited with code 1",
      "stdout:partial",
    ]);
    expect(lines.map((l) => l.seq)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(lines[0]!.at).toBe(1000);
    expect(dropped).toBe(0);
    expect(log.tail("stdout", 2).map((l) => l.text)).toEqual(["", "partial"]);
  });

  it("removes colours and keeps what a redrawn progress line ends as", () => {
    expect(cleanLine("\x1b[32mINFO\x1b[0m:     Uvicorn running")).toBe("INFO:     Uvicorn running");
    expect(cleanLine("10%\r50%\r100% done\r")).toBe("100% done");
    expect(cleanLine("\x1b]0;title\x07tab\there\x00")).toBe("tab\there");
  });

  it("keeps the last lines within its limits, counting what it dropped", () => {
    const log = createLogBuffer({ maxLines: 3, maxChars: 1000 });
    const out = log.writer("stdout");
    for (let i = 1; i <= 10; i++) out.write(`line ${i}\n`);
    expect(log.snapshot()).toMatchObject({ dropped: 7 });
    expect(log.snapshot().lines.map((l) => l.text)).toEqual(["line 8", "line 9", "line 10"]);

    const small = createLogBuffer({ maxLines: 100, maxChars: 25 });
    const w = small.writer("stderr");
    w.write("0123456789\nabcdefghij\nABCDEFGHIJ\n");
    expect(small.snapshot().lines.map((l) => l.text)).toEqual(["abcdefghij", "ABCDEFGHIJ"]);
    expect(small.snapshot().dropped).toBe(1);
  });

  it("cuts a long line, and a line that never ends, without holding it", () => {
    const log = createLogBuffer({ maxLineChars: 10 });
    const out = log.writer("stdout");
    out.write(`${"x".repeat(25)}\nnext\n`);
    expect(log.snapshot().lines.map((l) => l.text)).toEqual([
      "xxxxxxxxxx … [line cut: 15 more characters]",
      "next",
    ]);
    // 1 MB without a line break: one cut line, the rest skipped up to the break.
    for (let i = 0; i < 1000; i++) out.write("y".repeat(1000));
    out.write("tail\nafter\n");
    const lines = log.snapshot().lines.map((l) => l.text);
    expect(lines.slice(2)).toEqual([
      "yyyyyyyyyy … [line cut: over 40 characters without a line break]",
      "after",
    ]);
  });

  it("passes each line to subscribers until they unsubscribe; one that throws is dropped", () => {
    const log = createLogBuffer();
    const seen: string[] = [];
    const off = log.subscribe((l) => seen.push(l.text));
    log.subscribe(() => {
      throw new Error("broken subscriber");
    });
    log.system("a");
    log.system("b");
    off();
    log.system("c");
    expect(seen).toEqual(["a", "b"]);
    expect(log.snapshot().lines).toHaveLength(3);
  });
});
