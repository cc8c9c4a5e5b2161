// The log routes of a spawned server (lib/spawn/log-sse.ts, lib/spawn/routes.ts) on a real process:
// the JSON snapshot, the SSE feed (snapshot first, then lines in batches and each change of state, in
// order), a reader that stops reading dropped instead of buffered for, and the 404s that say why.
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { readSseFrames } from "@/lib/ors/protocol";
import { createServerRegistry } from "@/lib/registry/registry";
import { logEventsResponse, logSnapshot } from "@/lib/spawn/log-sse";
import { spawnedOr404 } from "@/lib/spawn/routes";
import { createServerSupervisor, type ServerSupervisor } from "@/lib/spawn/supervisor";
import type { ServerLogEvent } from "@/lib/spawn/types";

const TINY = path.join(__dirname, "fixtures", "tiny-ors.mjs");
let dir = "";
let sup: ServerSupervisor;

beforeEach(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), "ors-spawn-log-"));
  sup = await createServerSupervisor(
    [
      { name: "tiny", command: [process.execPath, TINY, "--port", "{port}"], cwd: dir },
      {
        name: "chatty",
        // 5,000 lines at once, then it waits.
        command: [
          process.execPath,
          "-e",
          "for (let i = 0; i < 5000; i++) console.log('line ' + i); setInterval(() => {}, 1000)",
        ],
        cwd: dir,
      },
    ],
    { baseEnv: process.env, orphanGuard: false, stopGraceMs: 1000 },
  );
});
afterEach(async () => {
  await sup.stop();
  rmSync(dir, { recursive: true, force: true });
});

async function* events(res: Response, signal: AbortSignal): AsyncGenerator<ServerLogEvent> {
  for await (const f of readSseFrames(res.body!, signal)) if (f.kind === "event") yield JSON.parse(f.data);
}

describe("a spawned server's log over HTTP", () => {
  it("streams a snapshot, then the lines and the state as they change, in order", async () => {
    const tiny = sup.get("tiny")!;
    const stop = new AbortController();
    const res = logEventsResponse(
      new Request("http://x/api/servers/tiny/log/events", { signal: stop.signal }),
      tiny,
      {
        batchMs: 20,
      },
    );
    expect(res.headers.get("content-type")).toBe("text/event-stream; charset=utf-8");
    const seen: ServerLogEvent[] = [];
    const reading = (async () => {
      for await (const e of events(res, stop.signal)) {
        seen.push(e);
        if (e.type === "status" && e.status.state === "ready") break;
      }
    })();
    await sup.start();
    await reading;
    stop.abort();
    expect(seen[0]).toMatchObject({
      type: "snapshot",
      snapshot: { lines: [], dropped: 0, status: { state: "stopped" } },
    });
    const order = seen
      .slice(1)
      .map((e) =>
        e.type === "status"
          ? `status:${e.status.state}`
          : e.type === "lines"
            ? e.lines.map((l) => `${l.stream}:${l.text.split(" ")[0]}`).join(",")
            : e.type,
      );
    // starting, its pid, the "starting:" line, then ready after the "ready:" line.
    expect(order[0]).toBe("status:starting");
    expect(order).toContain("system:starting:");
    expect(order.at(-2)).toMatch(/system:ready:$/);
    expect(order.at(-1)).toBe("status:ready");
    expect(logSnapshot(tiny).status.state).toBe("ready");
  });

  it("batches a burst of lines, keeps the last ones, and drops a reader that does not read", async () => {
    await sup.start();
    const chatty = sup.get("chatty")!;
    const deadline = Date.now() + 20_000;
    while (!chatty.log.snapshot().lines.some((l) => l.text === "line 4999")) {
      if (Date.now() > deadline) throw new Error("no output");
      await new Promise((r) => setTimeout(r, 50));
    }
    const snap = logSnapshot(chatty);
    expect(snap.lines.at(-1)!.text).toBe("line 4999");
    expect(snap.lines.length).toBe(2000);
    expect(snap.dropped).toBe(5001 - 2000 + 0);

    // A reader that never reads: after the snapshot (well past a tiny limit) it is dropped.
    const res = logEventsResponse(new Request("http://x/log/events"), chatty, { queueLimitBytes: 1000 });
    chatty.log.system("one more line, to write past the limit");
    // The batch goes out (or not) while nothing is read.
    await new Promise((r) => setTimeout(r, 400));
    const reader = res.body!.getReader();
    let text = "";
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      text += new TextDecoder().decode(value);
    }
    expect(text.startsWith("event: snapshot\n")).toBe(true);
    expect(
      text.trimEnd().endsWith(`event: error\ndata: {"detail":"this log's reader was too slow; reconnect"}`),
    ).toBe(true);
  });

  it("answers 404 for servers it did not start, saying why", async () => {
    const registry = createServerRegistry({
      env: { ORS_SERVERS: "py=http://127.0.0.1:8080" },
      dataDir: dir,
      localHandler: () => async () => new Response(null),
      spawned: sup,
    });
    const pg = { registry, spawned: sup };
    expect(await spawnedOr404(pg, "tiny")).toBe(sup.get("tiny"));
    await expect(spawnedOr404(pg, "nope")).rejects.toMatchObject({
      status: 404,
      detail: 'unknown server "nope"',
    });
    await expect(spawnedOr404(pg, "py")).rejects.toMatchObject({
      status: 404,
      detail:
        'server "py" was not started by this playground: only servers started with --spawn (or the config file\'s "spawn") have a log and a restart here',
    });
  });
});
