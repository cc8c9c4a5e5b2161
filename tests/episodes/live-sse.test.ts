// The live feeds' SSE answers (lib/episodes/live-sse.ts) with subscribers that do not read: they
// are dropped once a bounded amount is queued for them (in process, and over a real socket that
// never reads), while subscribers that read keep getting every event.
import { connect } from "node:net";
import { afterAll, describe, expect, it } from "vitest";
import { createLiveFeeds, type LiveEvent, type LiveFeeds } from "@/lib/episodes/live";
import { liveSseResponse } from "@/lib/episodes/live-sse";
import { readSseFrames } from "@/lib/ors/protocol";
import type { StepEvent } from "@/lib/trajectory/schema";
import { serveFetchHandler } from "../relay/helpers";
import { waitUntil } from "../support/wait";

const KB = 1024;

/** Live feeds that count their subscribers. */
function countedFeeds(): LiveFeeds & { subscribers(): number } {
  const live = createLiveFeeds();
  let n = 0;
  return {
    publish: (e) => live.publish(e),
    subscribe(id, listener) {
      n++;
      const off = live.subscribe(id, listener);
      let on = true;
      return () => {
        if (on) n--;
        on = false;
        off();
      };
    },
    subscribers: () => n,
  };
}

function frame(id: string, n: number, size: number): LiveEvent {
  const event: StepEvent = { t: n, kind: "event", event: "noise", data: "x".repeat(size) };
  return { type: "frame", id, index: 1, n, event };
}

const closers: Array<() => Promise<void>> = [];
afterAll(async () => {
  await Promise.all(closers.map((c) => c()));
});

describe("live feeds drop subscribers that do not read", () => {
  it("a subscriber that never reads is dropped past the limit, with an error event at the end", async () => {
    const live = countedFeeds();
    const ctrl = new AbortController();
    const res = liveSseResponse(new Request("http://app.test/feed", { signal: ctrl.signal }), live, "t1", {
      first: async () => [{ event: "snapshot", data: { id: "t1" } }],
      queueLimitBytes: 256 * KB,
    });
    await waitUntil("the snapshot sent and the feed subscribed", () => live.subscribers() === 1);
    expect(live.subscribers()).toBe(1);
    for (let i = 0; i < 200; i++) live.publish(frame("t1", i, 16 * KB)); // 3.2 MB published
    expect(live.subscribers()).toBe(0);

    // What was queued for it is bounded, and it ends with a clear error.
    const frames = [];
    let bytes = 0;
    const reader = res.body!.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      bytes += value.byteLength;
    }
    expect(bytes).toBeLessThan(256 * KB + 2 * 17 * KB);
    const again = liveSseResponse(new Request("http://app.test/feed"), live, "t1", {
      first: async () => [],
      queueLimitBytes: 256 * KB,
    });
    await waitUntil("the second reader subscribed", () => live.subscribers() === 1);
    for (let i = 0; i < 40; i++) live.publish(frame("t1", i, 16 * KB));
    for await (const f of readSseFrames(again.body!)) frames.push(f);
    expect(frames.at(-1)).toMatchObject({ kind: "event", event: "error" });
    expect((frames.at(-1) as { data: string }).data).toMatch(/too slow; reconnect/);
    expect(live.subscribers()).toBe(0);
  });

  it("subscribers that read keep getting every event, in order, beside one that does not", async () => {
    const live = countedFeeds();
    const open = (limit: number) =>
      liveSseResponse(new Request("http://app.test/feed"), live, "t2", {
        first: async () => [],
        queueLimitBytes: limit,
        closeOn: (e) => e.type === "ended",
      });
    const stuck = open(1024 * KB);
    const readers = [open(1024 * KB), open(1024 * KB)].map(async (res) => {
      const seen: number[] = [];
      for await (const f of readSseFrames(res.body!))
        if (f.kind === "event" && f.event === "frame") seen.push((JSON.parse(f.data) as { n: number }).n);
      return seen;
    });
    await waitUntil("three subscribers", () => live.subscribers() === 3);
    expect(live.subscribers()).toBe(3);
    // 2000 events of 4 KB (8 MB), published while the readers read.
    for (let i = 0; i < 2000; i++) {
      live.publish(frame("t2", i, 4 * KB));
      if (i % 10 === 0) await new Promise((r) => setTimeout(r, 0));
    }
    live.publish({ type: "ended", id: "t2", end_reason: "finished", error: null, ended_at: 1 });
    const all = await Promise.all(readers);
    for (const seen of all) expect(seen).toEqual(Array.from({ length: 2000 }, (_, i) => i));
    expect(live.subscribers()).toBe(0); // the readers ended with `ended`; the stuck one was dropped
    await stuck.body!.cancel();
  });

  it("over HTTP, a client socket that never reads is dropped and memory stays bounded", async () => {
    const live = countedFeeds();
    const server = await serveFetchHandler(0, async (req) =>
      liveSseResponse(req, live, null, { first: async () => [], queueLimitBytes: 4 * 1024 * KB }),
    );
    closers.push(server.close);
    // A raw client that sends its request and then never reads a byte.
    const socket = connect(Number(new URL(server.url).port), "127.0.0.1");
    socket.pause();
    await new Promise<void>((r) => socket.once("connect", () => r()));
    socket.write("GET /api/trajectories/live/events HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
    await waitUntil("the socket's request subscribed", () => live.subscribers() > 0, { timeoutMs: 5_000 });
    expect(live.subscribers()).toBe(1);

    const base = process.memoryUsage().rss;
    let peak = base;
    // Up to 400 MB of events, published a bit at a time as a busy recorder would.
    let published = 0;
    for (let i = 0; i < 6400 && live.subscribers() > 0; i++, published++) {
      live.publish(frame(`t${i}`, i, 64 * KB));
      if (i % 16 === 0) {
        await new Promise((r) => setTimeout(r, 1));
        peak = Math.max(peak, process.memoryUsage().rss);
      }
    }
    expect(live.subscribers()).toBe(0);
    // Dropped once the socket, the server's buffers and the 4 MB queue were full; not before.
    expect(published).toBeGreaterThan(64);
    expect(published).toBeLessThan(6400);
    expect(peak - base).toBeLessThan(100 * 1024 * KB);
    socket.destroy();
  });
});
