// The ORS host through `next start` (API only, no browser): the same episode at /api/ors and at the
// root (the rewrites of next.config.mjs, for the reference Python client that drops base paths),
// plus the standalone host the config starts next to it (scripts/serve.ts).
import { type APIRequestContext, expect, test } from "@playwright/test";
import { readSseFrames, type SseFrame } from "../lib/ors/protocol";

const SECOND = `http://127.0.0.1:${Number(process.env.E2E_SECOND_PORT ?? 8199)}`;
// The same build served with ORS_FAST_PATH=0 (playwright.config.ts): Next's route handler + rewrites.
const ROUTE_BASE = `http://127.0.0.1:${Number(process.env.E2E_ROUTE_PORT ?? Number(process.env.E2E_PORT ?? 3100) + 1)}`;

async function sseFrames(text: string): Promise<SseFrame[]> {
  const body = new Response(text).body!;
  const out: SseFrame[] = [];
  for await (const f of readSseFrames(body)) out.push(f);
  return out;
}

function resultOf(frames: SseFrame[]): {
  ok: boolean;
  output?: { blocks: { text: string }[]; reward: number };
} {
  const events = frames.filter((f) => f.kind === "event") as { event: string; data: string }[];
  expect(events.at(-1)!.event).toBe("end");
  return JSON.parse(
    events
      .filter((e) => e.event === "chunk" || e.event === "end")
      .map((e) => e.data)
      .join(""),
  );
}

async function runEpisode(request: APIRequestContext, base: string) {
  expect(await (await request.get(`${base}/health`)).json()).toEqual({ status: "ok" });
  expect(await (await request.get(`${base}/list_environments`)).json()).toContain("math");
  const splits = await (await request.get(`${base}/math/splits`)).json();
  expect(splits).toEqual(expect.arrayContaining([{ name: "train", type: "train" }]));
  const { task } = await (
    await request.post(`${base}/math/task`, { data: { split: "test", index: 2 } })
  ).json();

  const created = await request.post(`${base}/create_session`);
  expect(created.status()).toBe(200);
  const { sid } = await created.json();
  const headers = { "x-session-id": sid };
  const create = await request.post(`${base}/create`, {
    headers,
    data: { env_name: "math", split: "test", index: 2 },
  });
  expect(await create.json()).toEqual({ sid });
  expect(await (await request.get(`${base}/math/prompt`, { headers })).json()).toEqual([
    { text: task.question, detail: null, type: "text" },
  ]);
  const tools = await (await request.get(`${base}/math/task_tools`, { headers })).json();
  expect(tools.tools.map((t: { name: string }) => t.name)).toEqual(["submit"]);

  const call = await request.post(`${base}/math/call`, {
    headers: { ...headers, accept: "text/event-stream" },
    data: { name: "submit", input: { answer: task.answer } },
  });
  expect(call.status()).toBe(200);
  expect(call.headers()["content-type"]).toContain("text/event-stream");
  const frames = await sseFrames(await call.text());
  expect(frames).toHaveLength(2);
  expect(frames[0]).toMatchObject({ kind: "event", event: "task_id" });
  expect(frames[1]).toEqual({
    kind: "event",
    event: "end",
    data: '{"ok":true,"output":{"blocks":[{"text":"Correct!","detail":null,"type":"text"}],"metadata":null,"reward":1,"finished":true}}',
    id: undefined,
  });
  // Reconnection by task_id replays the completed result.
  const taskId = (frames[0] as { data: string }).data;
  const again = await request.post(`${base}/math/call`, {
    headers,
    data: { name: "submit", input: { answer: task.answer }, task_id: taskId },
  });
  expect(await sseFrames(await again.text())).toEqual(frames);

  expect(await (await request.post(`${base}/delete`, { headers })).json()).toEqual({ sid });
  const gone = await request.get(`${base}/math/prompt`, { headers });
  expect(gone.status()).toBe(410);
  expect((await gone.json()).detail).toMatch(/deleted/);
}

async function chunkedCall(request: APIRequestContext, base: string) {
  const { sid } = await (await request.post(`${base}/create_session`)).json();
  const headers = { "x-session-id": sid };
  await request.post(`${base}/create`, {
    headers,
    data: { env_name: "bigoutput", split: "train", index: 0 },
  });
  const call = await request.post(`${base}/bigoutput/call`, { headers, data: { name: "dump", input: {} } });
  const frames = await sseFrames(await call.text());
  const chunks = frames.filter((f) => f.kind === "event" && f.event === "chunk") as { data: string }[];
  expect(chunks.length).toBeGreaterThan(30);
  for (const c of chunks) expect(c.data).not.toMatch(/^\s/);
  const result = resultOf(frames);
  expect(result.ok).toBe(true);
  expect(result.output!.blocks[0]!.text.length).toBeGreaterThan(100_000);
  await request.post(`${base}/delete`, { headers });
}

async function errors(request: APIRequestContext, base: string) {
  const unknownEnv = await request.get(`${base}/nope/tools`);
  expect(unknownEnv.status()).toBe(404);
  expect((await unknownEnv.json()).detail).toMatch(/Unknown environment "nope"/);
  const badIndex = await request.post(`${base}/math/task`, { data: { split: "train", index: -1 } });
  expect(badIndex.status()).toBe(400);
  expect((await badIndex.json()).detail).toMatch(/^index: /);
  const noSid = await request.get(`${base}/math/prompt`);
  expect(noSid.status()).toBe(400);
  const never = await request.post(`${base}/delete`, { headers: { "x-session-id": "never-seen" } });
  expect(never.status()).toBe(404);
}

for (const [mode, origin] of [
  ["fast path", null],
  ["route handler (ORS_FAST_PATH=0)", ROUTE_BASE],
] as const) {
  for (const [name, prefix] of [
    ["at /api/ors", "/api/ors"],
    ["at the root (rewrites)", ""],
  ] as const) {
    test.describe(`ORS host in next start, ${mode}, ${name}`, () => {
      test("runs a whole episode with exact SSE frames", async ({ request, baseURL }) => {
        await runEpisode(request, `${origin ?? baseURL}${prefix}`);
      });
      test("chunks a large result", async ({ request, baseURL }) => {
        await chunkedCall(request, `${origin ?? baseURL}${prefix}`);
      });
      test("answers errors with status and detail", async ({ request, baseURL }) => {
        await errors(request, `${origin ?? baseURL}${prefix}`);
      });
    });
  }
}

test.describe("standalone host (scripts/serve.ts)", () => {
  test("runs the same episode", async ({ request }) => {
    await runEpisode(request, SECOND);
    await chunkedCall(request, SECOND);
    await errors(request, SECOND);
  });
});
