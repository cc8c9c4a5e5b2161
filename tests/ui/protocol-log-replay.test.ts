// Sending a logged call again (lib/ui/protocol-log-replay.ts): which exchanges are calls, the tool
// and input read back from a logged body (or why not), and the `x-playground-step` annotation the
// recorder reads as the new step's origin.
import { describe, expect, it } from "vitest";
import { decodeAnnotation, readStepOrigin } from "@/lib/relay/annotations";
import type { LoggedExchange } from "@/lib/ui/protocol-log";
import { isCallExchange, replayAnnotation, replayableCall } from "@/lib/ui/protocol-log-replay";

function logged(path: string, body: string, truncated?: true): LoggedExchange {
  return {
    seq: 9,
    at: 0,
    ms: 1,
    method: "POST",
    path,
    status: 200,
    request: { headers: {}, body, size: body.length, ...(truncated ? { truncated } : {}) },
    response: { contentType: "text/event-stream", body: "", size: 0 },
  };
}

describe("isCallExchange", () => {
  it("is a POST to an environment's /call (or the bare /call) only", () => {
    expect(isCallExchange({ method: "POST", path: "/dice/call" })).toBe(true);
    expect(isCallExchange({ method: "post", path: "/call" })).toBe(true);
    expect(isCallExchange({ method: "POST", path: "/dice/call?x=1" })).toBe(true);
    expect(isCallExchange({ method: "GET", path: "/dice/call" })).toBe(false);
    expect(isCallExchange({ method: "POST", path: "/dice/create" })).toBe(false);
    expect(isCallExchange({ method: "POST", path: "/recall" })).toBe(false);
    expect(isCallExchange({ method: "POST", path: "/dice/call/more" })).toBe(false);
  });
});

describe("replayableCall", () => {
  it("reads the tool and input, leaving out a re-post's task_id", () => {
    const e = logged("/dice/call", JSON.stringify({ name: "echo", input: { text: "hi" }, task_id: "t-1" }));
    expect(replayableCall(e)).toEqual({ tool: "echo", input: { text: "hi" } });
  });

  it("says why a call cannot be sent again", () => {
    const problem = (e: LoggedExchange) => (replayableCall(e) as { problem: string }).problem;
    expect(problem(logged("/dice/create", "{}"))).toMatch(/Only tool calls/);
    expect(problem(logged("/dice/call", '{"name":"echo","input":{"text":"aaa', true))).toMatch(/cut/);
    expect(problem(logged("/dice/call", "name=echo"))).toMatch(/not JSON/);
    expect(problem(logged("/dice/call", '{"name":"echo","input":[1]}'))).toMatch(/not a call/);
    expect(problem(logged("/dice/call", '{"input":{}}'))).toMatch(/not a call/);
    expect(problem(logged("/dice/call", "null"))).toMatch(/not a call/);
  });
});

describe("replayAnnotation", () => {
  it("is the x-playground-step value the recorder reads as the step's origin", () => {
    expect(readStepOrigin(decodeAnnotation(replayAnnotation(9, false)))).toEqual({
      kind: "replay",
      exchange: 9,
      edited: false,
    });
    expect(readStepOrigin(decodeAnnotation(replayAnnotation(12, true)))).toEqual({
      kind: "replay",
      exchange: 12,
      edited: true,
    });
    // A header value: base64url, no padding.
    expect(replayAnnotation(9, true)).toMatch(/^[A-Za-z0-9_-]+$/);
  });
});
