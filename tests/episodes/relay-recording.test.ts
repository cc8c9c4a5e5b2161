// A plain ORS client (not the UI) runs episodes through the app's relay route handler, in
// process, and the recorder finds them in the store: steps, frames, rewards, end reasons.

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Recorder } from "@/lib/episodes/recorder";
import { createOrsClient, type OrsClient } from "@/lib/ors/client";
import { RELAY_ONLY_HEADER } from "@/lib/ors/host";
import type { TrajectoryStore } from "@/lib/store/types";
import { waitUntil } from "../support/wait";
import { tempDir } from "./helpers";

type Handler = (
  req: Request,
  ctx: { params: Promise<{ name: string; path: string[] }> },
) => Promise<Response>;

let store: TrajectoryStore;
let recorder: Recorder;
/** The newest trajectory of a session once the recorder has written what it saw. */
async function recorded(sid: string) {
  await recorder.idle();
  const summary = await store.findBySession("local", sid);
  return summary ? (await store.get(summary.id))! : null;
}
let ors: OrsClient;

beforeAll(async () => {
  process.env.PLAYGROUND_DATA_DIR = tempDir("traj-relay-");
  const route = (await import("@/app/api/servers/[name]/[...path]/route")) as unknown as Record<
    string,
    Handler
  >;
  ({ store, recorder } = (await import("@/lib/playground")).getPlayground());
  const relayFetch: typeof fetch = async (input, init) => {
    const req = new Request(input, init);
    const parts = new URL(req.url).pathname.split("/").slice(3).map(decodeURIComponent);
    const [name, ...path] = parts;
    return route[req.method](req, { params: Promise.resolve({ name, path }) });
  };
  ors = createOrsClient({ baseUrl: "http://app.test/api/servers/local", fetch: relayFetch });
});

afterAll(() => {
  delete process.env.PLAYGROUND_DATA_DIR;
});

describe("episodes through the relay are recorded", () => {
  it("a finished math episode, then a /delete, is in the store step by step", async () => {
    const { task } = await ors.task("math", "test", 2);
    const { sid } = await ors.createSession();
    await ors.create(sid, { env_name: "math", split: "test", index: 2 });
    const prompt = await ors.prompt("math", sid);
    // While running it is listed as live.
    await recorder.idle();
    expect((await store.running()).some((t) => t.sid === sid)).toBe(true);
    const wrong = await ors.callTool("math", sid, { name: "submit", input: { answer: "not a number" } });
    const right = await ors.callTool("math", sid, { name: "submit", input: { answer: String(task.answer) } });
    await ors.delete(sid);
    const t = (await recorded(sid))!;
    expect(t).toMatchObject({
      server: "local",
      env: "math",
      sid,
      task: { split: "test", index: 2 },
      end_reason: "finished",
    });
    expect(t.prompt).toEqual(prompt);
    expect(t.steps.map((s) => s.tool)).toEqual(["submit", "submit"]);
    expect(t.steps[1]).toMatchObject({
      ok: true,
      finished: true,
      reward: right.ok ? right.output.reward : -1,
    });
    expect(t.steps[0].ok).toBe(wrong.ok);
    expect(t.steps[1].events.map((e) => (e.kind === "event" ? e.event : e.kind))).toContain("end");
    expect(t.steps[1].events[0]).toMatchObject({ kind: "event", event: "task_id" });
    expect(t.steps[1].latency_ms).toBeGreaterThanOrEqual(0);
    // math ends after one answer: the second submit is kept, after the end, and does not count.
    expect(t.steps.map((x) => x.after_end ?? false)).toEqual([false, true]);
    expect(t.total_reward).toBe(t.steps[0].reward ?? 0);
    expect(t.ended_at).toBe(t.steps[0].ended_at);
  });

  it("a /delete before finishing ends it user_closed; a later call on the gone session changes nothing", async () => {
    const { sid } = await ors.createSession();
    await ors.create(sid, { env_name: "dice", split: "train", index: 0 });
    await ors.callTool("dice", sid, { name: "roll", input: { sides: 6 } });
    await ors.delete(sid);
    await expect(ors.callTool("dice", sid, { name: "echo", input: { text: "x" } })).rejects.toThrow();
    const t = (await recorded(sid))!;
    expect(t.end_reason).toBe("user_closed");
    expect(t.steps).toHaveLength(1);
    expect(t.steps[0].blocks[0]).toMatchObject({ type: "text", text: expect.stringMatching(/^You rolled/) });
  });

  it("the live feed of a running trajectory sends a snapshot, then steps and frames as they happen", async () => {
    const { readSseFrames } = await import("@/lib/ors/protocol");
    const { GET } = await import("@/app/api/trajectories/[id]/events/route");
    const { sid } = await ors.createSession();
    await ors.create(sid, { env_name: "dice", split: "train", index: 0 });
    const id = (await recorded(sid))!.id;
    const abort = new AbortController();
    const res = await GET(new Request(`http://t/api/trajectories/${id}/events`, { signal: abort.signal }), {
      params: Promise.resolve({ id }),
    });
    expect(res.headers.get("content-type")).toMatch(/^text\/event-stream/);
    const frames = readSseFrames(res.body!, abort.signal);
    // The protocol log's entries are collected apart (checked at the end).
    const exchanges: { seq: number; path: string; status: number }[] = [];
    const next = async () => {
      for (;;) {
        const f = (await frames.next()).value;
        if (f?.kind !== "event") continue;
        const data = JSON.parse(f.data);
        if (f.event === "exchange") exchanges.push(data);
        else return { event: f.event, data };
      }
    };
    expect(await next()).toMatchObject({ event: "snapshot", data: { trajectory: { id, steps: [] } } });
    const call = ors.callTool("dice", sid, { name: "echo", input: { text: "watched" } });
    const seen: string[] = [];
    for (;;) {
      const e = await next();
      seen.push(
        e.event === "frame"
          ? `frame:${e.data.event.kind === "event" ? e.data.event.event : "comment"}`
          : e.event,
      );
      if (e.event === "step" && e.data.step.ok === true) break;
    }
    await call;
    expect(seen[0]).toBe("step"); // the in-flight step
    expect(seen).toContain("frame:task_id");
    expect(seen.at(-1)).toBe("step");
    await ors.delete(sid);
    expect(await next()).toMatchObject({ event: "ended", data: { end_reason: "user_closed" } });
    expect((await frames.next()).done).toBe(true);
    // The call and the /delete reached the log (its summary: the bodies are at .../exchanges), the
    // /delete before the end it caused; /create_session and /create were logged before the snapshot.
    expect(exchanges.map((x) => [x.seq, x.path, x.status])).toEqual([
      [3, "/dice/call", 200],
      [4, "/delete", 200],
    ]);
    expect(Object.keys(exchanges[0]!).sort()).toEqual([
      "at",
      "id",
      "method",
      "ms",
      "path",
      "seq",
      "status",
      "type",
    ]);
    // An ended trajectory: the snapshot, then the stream ends.
    const again = await GET(new Request(`http://t/api/trajectories/${id}/events`), {
      params: Promise.resolve({ id }),
    });
    const all = [];
    for await (const f of readSseFrames(again.body!)) all.push(f);
    expect(all).toEqual([expect.objectContaining({ event: "snapshot" })]);
    abort.abort();
  });

  it("a failed setup ends the episode as error, with the server's detail", async () => {
    const { sid } = await ors.createSession();
    await ors.create(sid, { env_name: "brokensetup", split: "train", index: 0 });
    await expect(ors.prompt("brokensetup", sid)).rejects.toThrow(/setup/i);
    const t = (await recorded(sid))!;
    expect(t.end_reason).toBe("error");
    expect(t.error).toMatch(/^setup failed: .*brokensetup/i);
  });

  it("a 404 that may be an unknown environment is checked with /ping; a session deleted elsewhere (410) ends user_closed", async () => {
    const { sid } = await ors.createSession();
    await ors.create(sid, { env_name: "dice", split: "train", index: 1 });
    await ors.prompt("dice", sid);
    // A 404 for an unknown environment does not end the episode: the recorder asks /ping first.
    await expect(ors.prompt("no-such-env", sid)).rejects.toThrow(/Unknown environment/);
    await recorder.idle();
    await new Promise((r) => setTimeout(r, 50)); // the liveness /ping is in flight through the relay
    expect((await recorded(sid))?.end_reason).toBeNull();
    // Delete it behind the recorder's back (straight to the host, with the key its relay sends)...
    const { getPlayground } = await import("@/lib/playground");
    const { host } = getPlayground();
    const deleted = await host(
      new Request("http://x/api/ors/delete", {
        method: "POST",
        headers: { "X-Session-ID": sid, [RELAY_ONLY_HEADER]: host.host.options.relayKey! },
      }),
    );
    expect(deleted.status).toBe(200);
    // ...then the next request through the relay is refused (410) and the episode ends.
    await expect(ors.callTool("dice", sid, { name: "echo", input: { text: "x" } })).rejects.toThrow();
    const t = (await recorded(sid))!;
    expect(t.end_reason).toBe("user_closed");
    expect(t.error).toMatch(/deleted elsewhere/);
  });
  it("a call whose client goes away mid-stream is still recorded whole (the relay keeps reading)", async () => {
    const { sid } = await ors.createSession();
    await ors.create(sid, { env_name: "slow", split: "train", index: 0 });
    const leave = new AbortController();
    let taskId = "";
    const call = ors.callTool(
      "slow",
      sid,
      { name: "wait", input: { seconds: 0.4 } },
      {
        signal: leave.signal,
        onEvent: (e) => {
          if (e.type === "task_id") {
            taskId = e.data ?? "";
            leave.abort(new DOMException("the tab was closed", "AbortError"));
          }
        },
      },
    );
    await expect(call).rejects.toThrow();
    expect(taskId).not.toBe("");
    // Nobody is reading any more, yet the step completes with the server's result.
    const t = await waitUntil("the step completed", async () => {
      const now = await recorded(sid);
      return now?.steps[0]?.ok != null && now;
    });
    expect(t.steps).toHaveLength(1);
    expect(t.steps[0]).toMatchObject({ ok: true, task_id: taskId, metadata: { seconds: 0.4 } });
    expect(t.steps[0]!.latency_ms).toBeGreaterThanOrEqual(400);
  });
});
