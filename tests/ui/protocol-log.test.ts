// The episode page's protocol log data (lib/ui/protocol-log.ts): entries merged by seq (a whole
// exchange never replaced by its live summary), the live feed's `exchange` events read and appended
// to the loaded log only, the replay mark of a step, and bodies laid out as text.
import { QueryClient } from "@tanstack/react-query";
import { describe, expect, it } from "vitest";
import type { TrajectoryStep } from "@/lib/trajectory/schema";
import {
  appendExchange,
  displayBody,
  type ExchangeSummary,
  formatMs,
  isWhole,
  type LoggedExchange,
  mergeEntries,
  type ProtocolLogData,
  protocolLogKeys,
  readExchangeEvent,
  replayedLabel,
  replayOriginOf,
  statusTone,
} from "@/lib/ui/protocol-log";

function whole(seq: number, path = "/math/call"): LoggedExchange {
  return {
    seq,
    at: 1_700_000_000_000 + seq,
    ms: 12,
    method: "POST",
    path,
    status: 200,
    request: { headers: { "content-type": "application/json" }, body: '{"name":"x","input":{}}', size: 23 },
    response: { contentType: "text/event-stream", body: "event: end\ndata: {}\n\n", size: 21 },
  };
}

function summary(seq: number, path = "/math/call"): ExchangeSummary {
  return { seq, at: 1_700_000_000_000 + seq, ms: 12, method: "POST", path, status: 200 };
}

describe("mergeEntries", () => {
  it("orders by seq and lets a whole exchange replace its summary", () => {
    const merged = mergeEntries([summary(3), whole(1)], [summary(2), whole(3)]);
    expect(merged.map((e) => e.seq)).toEqual([1, 2, 3]);
    expect(merged.map(isWhole)).toEqual([true, false, true]);
  });

  it("never lets a summary replace the whole exchange it summarises", () => {
    const w = whole(4);
    const merged = mergeEntries([w], [{ ...summary(4), status: 500 }]);
    expect(merged).toEqual([w]);
    expect(merged[0]).toBe(w);
  });
});

describe("readExchangeEvent", () => {
  it("reads the feed's exchange event", () => {
    expect(
      readExchangeEvent({
        type: "exchange",
        id: "t1",
        seq: 5,
        at: 10,
        ms: 3,
        method: "GET",
        path: "/math/tools",
        status: 200,
      }),
    ).toEqual({ id: "t1", seq: 5, at: 10, ms: 3, method: "GET", path: "/math/tools", status: 200 });
  });

  it("is null for the feed's other events and for shapes that are not one", () => {
    expect(readExchangeEvent({ type: "step", id: "t1", seq: 1 })).toBeNull();
    expect(readExchangeEvent({ type: "exchange", id: "t1" })).toBeNull();
    expect(readExchangeEvent({ type: "exchange", id: 3, seq: 1 })).toBeNull();
    expect(readExchangeEvent(null)).toBeNull();
    expect(readExchangeEvent("exchange")).toBeNull();
  });
});

describe("appendExchange", () => {
  it("appends a live summary to a loaded log, in seq order, once", () => {
    const qc = new QueryClient();
    const key = protocolLogKeys.of("t1");
    qc.setQueryData<ProtocolLogData>(key, { items: [whole(1), whole(2)], dropped: 0 });
    appendExchange(qc, "t1", summary(4));
    appendExchange(qc, "t1", summary(3));
    appendExchange(qc, "t1", summary(4));
    const data = qc.getQueryData<ProtocolLogData>(key)!;
    expect(data.items.map((e) => e.seq)).toEqual([1, 2, 3, 4]);
    expect(data.items.map(isWhole)).toEqual([true, true, false, false]);
  });

  it("leaves a log the page has not loaded alone (it is read whole when opened)", () => {
    const qc = new QueryClient();
    appendExchange(qc, "t2", summary(1));
    expect(qc.getQueryData(protocolLogKeys.of("t2"))).toBeUndefined();
  });
});

describe("replayOriginOf and replayedLabel", () => {
  const step = (origin?: unknown) =>
    ({ index: 2, tool: "echo", ...(origin ? { origin } : {}) }) as TrajectoryStep;

  it("reads a replayed step's origin and marks it", () => {
    const plain = replayOriginOf(step({ kind: "replay", exchange: 7, edited: false }))!;
    expect(plain).toEqual({ exchange: 7, edited: false });
    expect(replayedLabel(plain)).toBe("replayed from #7");
    const edited = replayOriginOf(step({ kind: "replay", exchange: 7, edited: true }))!;
    expect(replayedLabel(edited)).toBe("replayed from #7, edited");
  });

  it("is null for an ordinary step or an origin of another shape", () => {
    expect(replayOriginOf(step())).toBeNull();
    expect(replayOriginOf(step({ kind: "fork", exchange: 1 }))).toBeNull();
    expect(replayOriginOf(step({ kind: "replay", exchange: "7" }))).toBeNull();
  });
});

describe("displayBody", () => {
  it("lays out whole JSON, as text", () => {
    expect(displayBody({ body: '{"a":[1,{"b":"<i>x</i>"}]}', size: 26 }, "application/json")).toBe(
      '{\n  "a": [\n    1,\n    {\n      "b": "<i>x</i>"\n    }\n  ]\n}',
    );
  });

  it("shows a raw SSE stream, a cut body and bad JSON exactly as they are", () => {
    const sse = 'event: task_id\ndata: abc\n\nevent: end\ndata: {"ok":true}\n\n';
    expect(displayBody({ body: sse, size: sse.length }, "text/event-stream")).toBe(sse);
    expect(displayBody({ body: '{"a": [1, 2', size: 400, truncated: true }, "application/json")).toBe(
      '{"a": [1, 2',
    );
    expect(displayBody({ body: "{not json", size: 9 }, "application/json")).toBe("{not json");
    expect(displayBody({ body: "", size: 0 })).toBe("");
  });
});

describe("statusTone and formatMs", () => {
  it("colours a status by its class; no answer (0) as a failure", () => {
    expect([200, 204, 301, 404, 422, 500, 503, 0].map(statusTone)).toEqual([
      "green",
      "green",
      "neutral",
      "amber",
      "amber",
      "red",
      "red",
      "red",
    ]);
  });

  it("says ms under a second, else seconds", () => {
    expect([0, 12.4, 999.4, 1000, 4_321, 12_345].map(formatMs)).toEqual([
      "0 ms",
      "12 ms",
      "999 ms",
      "1.00 s",
      "4.32 s",
      "12.3 s",
    ]);
  });
});
