import { describe, expect, it } from "vitest";
import { formatResultEvents, formatSseComment, formatSseEvent } from "@/lib/ors/protocol/sse";
import { assertLoopback, parseSse, reassembleCall } from "@/scripts/bench-http";

describe("bench SSE parsing", () => {
  it("reassembles a chunked result exactly, across comments", () => {
    const json = JSON.stringify({
      ok: true,
      output: { blocks: [{ type: "text", text: "xy z ".repeat(5000) }] },
    });
    const pieces = formatResultEvents(json);
    expect(pieces.length).toBeGreaterThan(2);
    const body = formatSseEvent("task_id", "t1") + formatSseComment("ping") + pieces.join("");
    expect(reassembleCall(body)).toEqual({ taskId: "t1", json, chunks: pieces.length });
  });

  it("reads CRLF streams, multi-line data and the error event", () => {
    const body =
      "event: task_id\r\ndata: abc\r\n\r\n: ping\r\n\r\nevent: chunk\r\ndata:a\r\ndata: b\r\n\r\nevent: error\r\ndata: boom\r\n\r\n";
    expect(parseSse(body)).toEqual([
      { event: "task_id", data: "abc" },
      { event: "chunk", data: "a\nb" },
      { event: "error", data: "boom" },
    ]);
    expect(reassembleCall(body)).toEqual({ taskId: "abc", error: "boom", chunks: 1 });
  });

  it("reports a stream cut before its end event", () => {
    expect(reassembleCall("event: task_id\ndata: t\n\nevent: chunk\ndata: {\n\n").error).toMatch(
      /without an end/,
    );
  });

  it("refuses non-loopback targets", () => {
    expect(() => assertLoopback(new URL("http://127.0.0.1:8080"))).not.toThrow();
    expect(() => assertLoopback(new URL("http://[::1]:8080/api/ors"))).not.toThrow();
    expect(() => assertLoopback(new URL("http://example.com"))).toThrow(/loopback/);
    expect(() => assertLoopback(new URL("https://127.0.0.1"))).toThrow(/http/);
  });
});
