// The standalone host over real HTTP: `scripts/serve.ts` as a child process on a loopback port with
// the built-in environments. A whole episode, a chunked call, SSE pings, a client that disconnects
// mid-call and reconnects by task_id, and a clean stop on SIGTERM.
import { once } from "node:events";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readSseFrames, type SseFrame } from "@/lib/ors/protocol";
import { type SpawnedServer, spawnOrsServer } from "../../relay/helpers";
import { CORRECT } from "./helpers";

let server: SpawnedServer;
let base = "";

beforeAll(async () => {
  server = await spawnOrsServer(0, { ORS_PING_INTERVAL_MS: "100", ORS_API_KEYS: "" });
  base = server.url;
});

afterAll(() => server?.stop());

async function post(path: string, body: unknown, sid?: string, signal?: AbortSignal): Promise<Response> {
  const headers: Record<string, string> = { "content-type": "application/json", accept: "text/event-stream" };
  if (sid) headers["x-session-id"] = sid;
  return fetch(`${base}${path}`, { method: "POST", headers, body: JSON.stringify(body), signal });
}

async function frames(res: Response): Promise<SseFrame[]> {
  expect(res.status).toBe(200);
  const out: SseFrame[] = [];
  for await (const f of readSseFrames(res.body!)) out.push(f);
  return out;
}

function result(fs: SseFrame[]): { ok: boolean; output?: { blocks: { text: string }[]; reward: number } } {
  const data = fs
    .filter((f) => f.kind === "event" && (f.event === "chunk" || f.event === "end"))
    .map((f) => (f as { data: string }).data)
    .join("");
  return JSON.parse(data);
}

async function episode(env: string): Promise<string> {
  const { sid } = (await (await fetch(`${base}/create_session`, { method: "POST" })).json()) as {
    sid: string;
  };
  const res = await post("/create", { env_name: env, split: "train", index: 0 }, sid);
  expect(await res.json()).toEqual({ sid });
  return sid;
}

describe("scripts/serve.ts over HTTP", () => {
  it("runs a whole math episode", async () => {
    expect(await (await fetch(`${base}/health`)).json()).toEqual({ status: "ok" });
    expect(await (await fetch(`${base}/list_environments`)).json()).toContain("math");
    const { task } = (await (await post("/math/task", { split: "train", index: 3 })).json()) as {
      task: { question: string; answer: string };
    };
    const { sid } = (await (await fetch(`${base}/create_session`, { method: "POST" })).json()) as {
      sid: string;
    };
    expect((await post("/create", { split: "train", index: 3 }, sid)).status).toBe(200);
    const prompt = await (await fetch(`${base}/math/prompt`, { headers: { "x-session-id": sid } })).json();
    expect(prompt).toEqual([{ text: task.question, detail: null, type: "text" }]);
    const fs = await frames(
      await post("/math/call", { name: "submit", input: { answer: task.answer } }, sid),
    );
    expect(fs[0]).toMatchObject({ kind: "event", event: "task_id" });
    expect(result(fs)).toEqual(CORRECT);
    expect(await (await post("/delete", {}, sid)).json()).toEqual({ sid });
    const gone = await fetch(`${base}/math/prompt`, { headers: { "x-session-id": sid } });
    expect(gone.status).toBe(410);
  });

  it("streams a large result as chunks that reassemble exactly", async () => {
    const sid = await episode("bigoutput");
    const fs = await frames(await post("/bigoutput/call", { name: "dump", input: {} }, sid));
    const chunks = fs.filter((f) => f.kind === "event" && f.event === "chunk");
    expect(chunks.length).toBeGreaterThan(30);
    const r = result(fs);
    expect(r.ok).toBe(true);
    expect(r.output!.blocks[0]!.text.length).toBeGreaterThan(100_000);
  });

  it("sends pings while a slow tool runs", async () => {
    const sid = await episode("slow");
    const fs = await frames(await post("/slow/call", { name: "wait", input: { seconds: 0.5 } }, sid));
    expect(fs[0]).toMatchObject({ kind: "event", event: "task_id" });
    expect(fs.filter((f) => f.kind === "comment" && f.comment === "ping").length).toBeGreaterThanOrEqual(2);
    expect(result(fs)).toMatchObject({
      ok: true,
      output: { blocks: [{ text: expect.stringMatching(/^Waited/) }] },
    });
  });

  it("finishes the work when the client disconnects mid-call and replays it by task_id", async () => {
    const sid = await episode("slow");
    const ac = new AbortController();
    const res = await post("/slow/call", { name: "wait", input: { seconds: 0.6 } }, sid, ac.signal);
    let taskId = "";
    for await (const f of readSseFrames(res.body!)) {
      if (f.kind === "event" && f.event === "task_id") {
        taskId = f.data;
        break;
      }
    }
    ac.abort();
    expect(taskId).not.toBe("");
    const fs = await frames(await post("/slow/call", { name: "wait", input: {}, task_id: taskId }, sid));
    expect(fs[0]).toEqual({ kind: "event", event: "task_id", data: taskId, id: undefined });
    expect(result(fs)).toMatchObject({
      ok: true,
      output: { blocks: [{ text: expect.stringMatching(/^Waited 0\.6/) }] },
    });
    // Completed: the same frames again (pings aside).
    const replay = await frames(await post("/slow/call", { name: "wait", input: {}, task_id: taskId }, sid));
    expect(replay.filter((f) => f.kind === "event")).toEqual(fs.filter((f) => f.kind === "event"));
  });

  it("stops cleanly on SIGTERM", async () => {
    const sid = await episode("math");
    server.child.kill("SIGTERM");
    const [code] = await once(server.child, "exit");
    expect(code).toBe(0);
    expect(sid).toBeTruthy();
    expect(server.stderr()).not.toMatch(/Error/);
  });
});
