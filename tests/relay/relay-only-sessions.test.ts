// A session the playground starts through its relay on the built-in host (the UI, a run) is recorded
// there; knowing its id must not let anyone drive or delete it through the host's public mount
// (`/api/ors`, no token on loopback), unrecorded: there it is unknown. Sessions started on `/api/ors`
// itself stay usable there, as any ORS client expects. The composition root on a real SQLite file.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPlayground, type Playground } from "@/lib/playground";
import { tempDir } from "../episodes/helpers";

let pg: Playground;
beforeAll(async () => {
  pg = createPlayground({ PLAYGROUND_DATA_DIR: tempDir("relay-only-") });
  await pg.ready;
});
afterAll(() => pg?.close());

/** A request to the host's public mount, as `/api/ors/...` reaches it. */
function direct(path: string, sid: string, body?: unknown): Promise<Response> {
  return pg.host(
    new Request(`http://127.0.0.1/api/ors${path}`, {
      method: body === undefined ? "GET" : "POST",
      headers: { "content-type": "application/json", "x-session-id": sid },
      body: body === undefined ? undefined : JSON.stringify(body),
    }),
  );
}

describe("sessions started through the relay", () => {
  it("are unknown on /api/ors: no call, ping, prompt or delete there; the relay goes on, recording", async () => {
    const ors = pg.clientFor("local");
    const { sid } = await ors.createSession();
    await ors.create(sid, { env_name: "dice", split: "train", index: 0 });
    await ors.prompt("dice", sid);
    const call = { name: "echo", input: { text: "not through the relay" } };
    for (const [path, body] of [
      ["/dice/call", call],
      ["/ping", {}],
      ["/delete", {}],
      ["/dice/prompt", undefined],
    ] as const) {
      const res = await direct(path, sid, body);
      expect(res.status, path).toBe(404);
      expect(((await res.json()) as { detail: string }).detail).toMatch(/Session not found/);
    }
    // The relay's own requests still reach it, and what passes is recorded.
    expect(await ors.callTool("dice", sid, { name: "echo", input: { text: "hi" } })).toMatchObject({
      ok: true,
      output: { blocks: [{ type: "text", text: "echo: hi" }] },
    });
    await pg.recorder.idle();
    const t = (await pg.store.get((await pg.store.findBySession("local", sid))!.id))!;
    expect(t.steps.map((s) => s.input)).toEqual([{ text: "hi" }]);
    await ors.delete(sid);
  });

  it("a session started on /api/ors stays usable there", async () => {
    const created = (await (
      await pg.host(new Request("http://127.0.0.1/api/ors/create_session", { method: "POST" }))
    ).json()) as { sid: string };
    const sid = created.sid;
    expect((await direct("/create", sid, { env_name: "dice", split: "train", index: 0 })).status).toBe(200);
    const res = await direct("/dice/call", sid, { name: "echo", input: { text: "direct" } });
    expect(res.status).toBe(200);
    expect(await res.text()).toContain("echo: direct");
    expect((await direct("/delete", sid, {})).status).toBe(200);
  });
});
