// The model of the reference Python client's reading (lib/conformance/reference-client.ts) and the
// call judges built on it: where it reads SSE, results and JSON differently from the spec's reading.
import { describe, expect, it } from "vitest";
import { analyzeCall, judgeChunking, judgeFraming, judgePings } from "@/lib/conformance/calls";
import { Probe, type ProbeAnswer, type TimedFrame } from "@/lib/conformance/probe";
import {
  readSseAsReferenceClient,
  referenceCallResult,
  referenceCreateSession,
  referenceJsonProblem,
  referenceToolOutputProblem,
} from "@/lib/conformance/reference-client";
import { formatResultEvents, formatSseEvent } from "@/lib/ors/protocol";

/** What the probe reads from a server answering `body` with `type`. */
async function answer(body: string, type = "text/event-stream", status = 200): Promise<ProbeAnswer> {
  const probe = new Probe({
    baseUrl: "http://test.invalid",
    fetch: async () => new Response(body, { status, headers: { "content-type": type } }),
    requestTimeoutMs: 5_000,
    signal: new AbortController().signal,
    maxBodyBytes: 1 << 24,
  });
  return probe.send({ method: "POST", path: "/x/call" });
}

function result(text: string): string {
  return JSON.stringify({
    ok: true,
    output: { blocks: [{ text, detail: null, type: "text" }], metadata: null, reward: 1, finished: false },
  });
}

/** Cuts every `size` characters wherever the cut falls, as the reference server does. */
function naiveEvents(json: string, size = 4096): string {
  let out = formatSseEvent("task_id", "t1");
  for (let i = 0; i < json.length; i += size)
    out += formatSseEvent(i + size >= json.length ? "end" : "chunk", json.slice(i, i + size));
  return out;
}

describe("readSseAsReferenceClient", () => {
  it("lstrips every data value, where a spec reader removes one space", () => {
    const raw = "event: chunk\ndata:   three spaces\n\n";
    expect(readSseAsReferenceClient(raw).events).toEqual([{ event: "chunk", data: "three spaces" }]);
  });

  it("reads CRLF line ends, skips comments, and joins data lines with a newline", () => {
    const raw = ": ping - now\r\n\r\nevent: end\r\ndata: a\r\ndata: b\r\n\r\n";
    expect(readSseAsReferenceClient(raw)).toEqual({
      events: [{ event: "end", data: "a\nb" }],
      failure: null,
    });
  });

  it("dispatches only at a blank line and only events with an event: field", () => {
    expect(readSseAsReferenceClient("data: no event\n\nevent: end\ndata: x").events).toEqual([]);
  });

  it("raises on a line without a colon and on a line over aiohttp's limit", () => {
    expect(readSseAsReferenceClient("event: end\ndata\n\n").failure).toMatch(
      /has no ":": .* raises ValueError/,
    );
    const long = `event: end\ndata: ${"x".repeat(140_000)}\n\n`;
    expect(readSseAsReferenceClient(long).failure).toMatch(/LineTooLong beyond 131072 bytes/);
  });
});

describe("referenceCallResult and referenceToolOutputProblem", () => {
  it("joins chunk and end pieces as the client does", () => {
    const json = result("x".repeat(10_000));
    const read = referenceCallResult(readSseAsReferenceClient(formatResultEvents(json).join("")));
    expect(read).toMatchObject({ ok: true, json });
  });

  it("makes event: error and an empty end failures", () => {
    expect(referenceCallResult(readSseAsReferenceClient(formatSseEvent("error", "boom")))).toMatchObject({
      ok: false,
      sseError: "boom",
    });
    expect(referenceCallResult(readSseAsReferenceClient("event: end\ndata:\n\n"))).toMatchObject({
      ok: false,
    });
  });

  it("needs metadata, reward and finished in a successful output", () => {
    expect(referenceToolOutputProblem(JSON.parse(result("hi")))).toBeNull();
    expect(referenceToolOutputProblem({ ok: true, output: { blocks: [], finished: true } })).toMatch(
      /no "metadata": .*KeyError/,
    );
    expect(referenceToolOutputProblem({ ok: false, error: "nope" })).toBeNull();
    expect(referenceToolOutputProblem({ ok: true, output: { blocks: [{ type: "text" }] } })).toMatch(
      /text block without "text"/,
    );
  });
});

describe("referenceCreateSession and referenceJsonProblem", () => {
  it("takes the sid from task_id; JSON is no SSE to it", async () => {
    const sse = await answer("event: task_id\ndata: abc\n\nevent: end\ndata: \n\n");
    expect(referenceCreateSession(sse)).toEqual({ ok: true, sid: "abc", discoverySid: "abc" });
    const json = await answer('{"sid": "abc"}', "application/json");
    expect(referenceCreateSession(json)).toMatchObject({
      ok: false,
      failure: expect.stringMatching(/no SSE event/),
    });
    const endOnly = await answer('event: end\ndata: {"sid": "abc"}\n\n');
    expect(referenceCreateSession(endOnly)).toEqual({ ok: true, sid: "abc", discoverySid: null });
  });

  it("refuses a non-JSON content type, and tool specs with keys other than ToolSpec's", async () => {
    expect(referenceJsonProblem(await answer('{"tools": []}', "text/plain"), "tools")).toMatch(
      /ContentTypeError/,
    );
    expect(
      referenceJsonProblem(await answer('{"tools": []}', "application/problem+json"), "tools"),
    ).toBeNull();
    const extra = '{"tools": [{"name": "a", "description": "", "input_schema": null, "title": "A"}]}';
    expect(referenceJsonProblem(await answer(extra, "application/json"), "tools")).toMatch(/has "title"/);
    const missing = '{"tools": [{"name": "a", "description": ""}]}';
    expect(referenceJsonProblem(await answer(missing, "application/json"), "tools")).toMatch(
      /no "input_schema"/,
    );
    expect(referenceJsonProblem(await answer("[]", "application/json", 404), "splits")).toMatch(/HTTP 404/);
  });
});

describe("judging calls", () => {
  it("passes our host's framing and chunks: no piece starts with whitespace", async () => {
    const json = result("word ".repeat(3_000));
    const a = analyzeCall(await answer(formatSseEvent("task_id", "t1") + formatResultEvents(json).join("")));
    expect(judgeFraming(a)).toMatchObject({ outcome: "pass" });
    expect(judgeChunking(a, "x")).toMatchObject({ outcome: "pass" });
  });

  it("a naive cut in the middle of text loses characters for the reference client: breaks", async () => {
    const prefix = result("").indexOf('"",') + 1; // where the text starts in the JSON
    const json = result(`${"a".repeat(4096 - prefix)} b c d e`); // the cut at 4096 lands on a space
    const a = analyzeCall(await answer(naiveEvents(json)));
    expect(a.pieces[1]).toMatch(/^ b c d e/);
    const v = judgeChunking(a, "env/tool");
    expect(v.outcome).toBe("breaks-reference-client");
    expect(v.observed).toMatch(
      /1 of 2 pieces start with whitespace .* rebuilds \d+ characters instead of \d+, text silently lost/,
    );
  });

  it("whitespace between JSON tokens at a cut is harmless", async () => {
    // Python's json.dumps style (", " and ": "), cut just before a space that follows a comma.
    const blocks = Array.from(
      { length: 120 },
      (_, i) => `{"text": "block ${i}", "detail": null, "type": "text"}`,
    );
    const json = `{"ok": true, "output": {"blocks": [${blocks.join(", ")}], "metadata": null, "reward": 1.0, "finished": false}}`;
    let cut = 4096;
    while (!(json[cut] === " " && json[cut - 1] === ",")) cut--;
    const events =
      formatSseEvent("task_id", "t1") +
      formatSseEvent("chunk", json.slice(0, cut)) +
      formatSseEvent("end", json.slice(cut));
    const v = judgeChunking(analyzeCall(await answer(events)), "x");
    expect(v).toMatchObject({ outcome: "pass", observed: expect.stringMatching(/drops harmlessly/) });
  });

  it("one end event over 4096 characters differs from the spec; a small result is not chunking", async () => {
    const big = result("z".repeat(6_000));
    const one = analyzeCall(await answer(formatSseEvent("task_id", "t") + formatSseEvent("end", big)));
    expect(judgeChunking(one, "x")).toMatchObject({ outcome: "differs-from-spec" });
    const small = analyzeCall(
      await answer(formatSseEvent("task_id", "t") + formatSseEvent("end", result("s"))),
    );
    expect(judgeChunking(small, "x")).toMatchObject({ outcome: "not-exercised" });
  });

  it("framing: no task_id first and a missing end", async () => {
    const noTaskId = analyzeCall(await answer(formatSseEvent("end", result("a"))));
    expect(judgeFraming(noTaskId)).toMatchObject({
      outcome: "differs-from-spec",
      observed: expect.stringMatching(/first event is end, not task_id/),
    });
    const cut = analyzeCall(await answer(formatSseEvent("task_id", "t") + formatSseEvent("chunk", "{")));
    expect(judgeFraming(cut)).toMatchObject({ outcome: "breaks-reference-client" });
  });
});

describe("judgePings", () => {
  function timed(frames: [number, "task_id" | "end" | "ping"][]) {
    const list: TimedFrame[] = frames.map(([at, kind]) =>
      kind === "ping"
        ? { kind: "comment", comment: "ping", at }
        : { kind: "event", event: kind, data: "{}", at },
    );
    const a: ProbeAnswer = {
      request: "POST /x/call",
      status: 200,
      contentType: "text/event-stream",
      location: null,
      text: "",
      bytes: 0,
      truncated: false,
      ended: true,
      frames: list,
      headersMs: 0,
      ms: 0,
    };
    return [{ label: "env/slow", analysis: analyzeCall(a) }];
  }

  it("passes pings every 10 s", () => {
    expect(
      judgePings(
        timed([
          [0, "task_id"],
          [10_000, "ping"],
          [20_000, "ping"],
          [21_000, "end"],
        ]),
        "",
      ),
    ).toMatchObject({
      outcome: "pass",
    });
  });

  it("no ping over 12 s differs; over 30 s of silence breaks the reference client", () => {
    expect(
      judgePings(
        timed([
          [0, "task_id"],
          [12_000, "end"],
        ]),
        "",
      ),
    ).toMatchObject({ outcome: "differs-from-spec" });
    expect(
      judgePings(
        timed([
          [0, "task_id"],
          [5_000, "ping"],
          [36_000, "end"],
        ]),
        "",
      ),
    ).toMatchObject({
      outcome: "breaks-reference-client",
    });
  });

  it("a short call without pings is not exercised", () => {
    expect(
      judgePings(
        timed([
          [0, "task_id"],
          [200, "end"],
        ]),
        "hint",
      ),
    ).toMatchObject({
      outcome: "not-exercised",
      observed: expect.stringMatching(/less than the 10 s ping interval\. hint/),
    });
  });
});
