// Our typed client against the reference-shaped server (a real process): whole episodes over its
// SSE /create_session and chunked /call answers, its extra fields, and its errors (FastAPI's 422
// lists, the 308 of an unknown environment, `event: error`) turned into readable OrsClientErrors.
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createOrsClient, type OrsClient } from "@/lib/ors/client";
import type { RunToolOutput, ToolOutput } from "@/lib/ors/protocol";
import { type RunningReferenceServer, startReferenceServer } from "../../fixtures/reference-server/spawn";
import { callWithEvents } from "../../support/calls";
import { rejection } from "./helpers";

const FIXTURE = JSON.parse(
  readFileSync(new URL("../../fixtures/pydantic-tool-schemas.json", import.meta.url), "utf8"),
) as { tools: Array<{ name: string; description: string; input_schema: unknown }> };

const WHEAT = { crop: "wheat", level: "medium" };
const PLAN = { slot_1: WHEAT, slot_2: WHEAT, slot_3: WHEAT, slot_4: WHEAT };

let ref: RunningReferenceServer;
let ors: OrsClient;

beforeAll(async () => {
  // Every field our schemas do not know, in tools and tool outputs too: a lenient reader drops them.
  ref = await startReferenceServer({ pingMs: 100, extraFields: "all" });
  ors = createOrsClient({ baseUrl: ref.url });
});
afterAll(async () => {
  await ref?.stop();
});

function output(result: RunToolOutput): ToolOutput {
  if (!result.ok) throw new Error(`tool error: ${result.error}`);
  return result.output;
}

const firstText = (out: ToolOutput) => (out.blocks[0] as { text: string }).text;

async function episode(env: string, split = "train", index = 0) {
  const { sid } = await ors.createSession();
  await ors.create(sid, { env_name: env, split, index });
  const prompt = await ors.prompt(env, sid);
  return { sid, prompt };
}

describe("the typed client on the reference-shaped server", () => {
  it("discovers everything, accepting the fields it does not know", async () => {
    expect(await ors.health()).toEqual({ status: "ok" }); // its `version` is not ours to keep
    expect(await ors.listEnvironments()).toEqual(["farmplanner", "coffeeshop", "triagedesk", "canvas"]);
    const served = (await Promise.all((await ors.listEnvironments()).map((e) => ors.tools(e)))).flatMap(
      (t) => t.tools,
    );
    expect(served.sort((a, b) => a.name.localeCompare(b.name))).toEqual(
      [...FIXTURE.tools].sort((a, b) => a.name.localeCompare(b.name)),
    );
    expect(await ors.splits("coffeeshop")).toEqual([
      { name: "train", type: "train" },
      { name: "holiday", type: "validation" },
    ]);
    const tasks = await ors.tasks("coffeeshop", "train"); // the answer carries a `split` too
    expect(tasks.env_name).toBe("coffeeshop");
    expect(tasks.tasks.map((t) => t.id)).toEqual(["cafe-weekend", "cafe-week"]);
    expect((await ors.numTasks("farmplanner", "train")).num_tasks).toBe(3);
    expect((await ors.task("farmplanner", "train", 1)).task.id).toBe("farm-drought");
    expect((await ors.taskRange("farmplanner", "train", 1, 3)).tasks.map((t) => t.id)).toEqual([
      "farm-drought",
      "farm-long",
    ]);
  });

  it("plays the farm to the end: SSE create_session, prompt, three plans, rewards and finished", async () => {
    const { sid, prompt } = await episode("farmplanner");
    expect(sid).toMatch(/^[0-9a-f-]{36}$/);
    expect(prompt).toEqual([{ type: "text", text: expect.stringContaining("(world 1)"), detail: null }]);
    const steps: Array<[number | null | undefined, boolean]> = [];
    for (let i = 0; i < 3; i++) {
      const out = output(await ors.callTool("farmplanner", sid, { name: "plan", input: PLAN }));
      steps.push([out.reward, out.finished]);
      expect(firstText(out).split("\n")).toContain(`step: ${i + 1} of 3`);
      expect(out.metadata).toMatchObject({ world: 1, step: i + 1 });
    }
    expect(steps).toEqual([
      [1.6, false],
      [1.6, false],
      [1.6, true],
    ]);
    const state = output(await ors.callTool("farmplanner", sid, { name: "view_state", input: {} }));
    expect(state.reward).toBeNull();
    expect(firstText(state)).toContain("  slot_1  wheat  medium          20");
    expect(await ors.delete(sid)).toEqual({ sid });
  });

  it("reassembles results cut every 4096 characters, pieces starting with spaces included", async () => {
    const { sid } = await episode("farmplanner");
    const { out: answer, events } = await callWithEvents(ors, "farmplanner", sid, {
      name: "observe",
      input: {},
    });
    const out = output(answer);
    const pieces = events.filter((e) => e.type === "chunk" || e.type === "end");
    expect(pieces.length).toBeGreaterThanOrEqual(3);
    expect(pieces.some((e) => e.data?.startsWith(" "))).toBe(true);
    const lines = firstText(out).split("\n");
    const rows = lines.filter((l) => l.startsWith("row "));
    expect(rows).toHaveLength(96);
    // Not one space lost at a cut: every row keeps its exact shape.
    for (const row of rows) expect(row).toMatch(/^row \d\d \|( {2}[.~]){24} {2}\|$/);
    expect(out.metadata).toMatchObject({ rows: 96, characters: firstText(out).length });
  });

  it("sees keep-alive pings while a tool runs", async () => {
    const { sid } = await episode("canvas");
    const { out: answer, events } = await callWithEvents(ors, "canvas", sid, {
      name: "battery",
      input: { action: "wait", power_mw: 0.5 },
    });
    const out = output(answer);
    expect(firstText(out)).toContain("waited: 0.5 s");
    expect(events.filter((e) => e.type === "ping").length).toBeGreaterThanOrEqual(2);
  });

  it("reads negative rewards, rewards above 1 and rewards after finished (coffeeshop)", async () => {
    const { sid } = await episode("coffeeshop");
    const buy = output(
      await ors.callTool("coffeeshop", sid, { name: "buy", input: { item_id: "espresso", quantity: 30 } }),
    );
    expect(buy.reward).toBe(-0.15);
    const sales: Array<[number | null | undefined, boolean]> = [];
    for (const item_id of ["espresso", "espresso", "croissant"]) {
      const out = output(
        await ors.callTool("coffeeshop", sid, { name: "set_price", input: { item_id, price: 3 } }),
      );
      sales.push([out.reward, out.finished]);
      expect(firstText(out)).toMatch(/^## ☕ Day \d/);
    }
    expect(sales).toEqual([
      [1.8, false],
      [0.6, true],
      [0.48, true],
    ]);
  });

  it("gets the reference's tool errors: {ok: false} for bad input, OrsClientError for a raising tool", async () => {
    const { sid } = await episode("canvas");
    const bad = await ors.callTool("canvas", sid, { name: "draw", input: { shape: { kind: "circle" } } });
    expect(bad.ok).toBe(false);
    if (!bad.ok)
      expect(bad.error).toMatch(
        /^Tool input validation error: \[\{'type': 'missing', 'loc': \('shape', 'center'\)/,
      );
    const err = await rejection(
      ors.callTool("canvas", sid, { name: "battery", input: { action: "explode" } }),
    );
    expect([err.kind, err.detail]).toEqual([
      "stream",
      "unknown battery action 'explode'; expected charge, discharge, idle or wait",
    ]);
    const unknown = await rejection(
      ors.callTool("canvas", sid, { name: "battery", input: {}, task_id: "f".repeat(32) }),
    );
    expect([unknown.kind, unknown.detail]).toEqual(["stream", "unknown task_id"]);
  });

  it("turns FastAPI's 422 lists and other failures into readable errors", async () => {
    const { sid } = await ors.createSession();
    const neither = await rejection(ors.create(sid, { env_name: "farmplanner" }));
    expect([neither.kind, neither.status, neither.detail]).toEqual([
      "http",
      422,
      "body: Value error, Provide either task_spec or both split and index, not both/neither",
    ]);
    const fractional = await rejection(ors.task("farmplanner", "train", 1.5));
    expect([fractional.status, fractional.detail]).toEqual([
      422,
      "body.index: Input should be a valid integer, got a number with a fractional part",
    ]);
    const index = await rejection(ors.task("farmplanner", "train", 9));
    expect([index.status, index.detail]).toEqual([400, "Invalid index"]);
    // An unknown environment is redirected (308) to the default one, where no such route exists.
    const env = await rejection(ors.tools("nosuchenv"));
    expect([env.kind, env.status, env.detail]).toEqual(["http", 404, "Not Found"]);
    const gone = await rejection(ors.prompt("farmplanner", "never-created"));
    expect([gone.status, gone.detail]).toEqual([404, "Active environment not found"]);
    expect(await ors.delete("never-created")).toEqual({ sid: "never-created" });
    expect(await ors.deleteSession("never-created")).toEqual({ sid: "never-created" });
  });

  it("is counted on the server: one create, one prompt, one call for a one-step episode", async () => {
    await ref.resetStats();
    const { sid } = await episode("triagedesk");
    const out = output(
      await ors.callTool("triagedesk", sid, {
        name: "handoff",
        input: { patient_id: "P3", disposition: "transfer", notes: "Stroke pathway.\nCT booked." },
      }),
    );
    expect(out.reward).toBe(1);
    expect(firstText(out)).toContain("notes:\n  Stroke pathway.\n  CT booked.");
    const stats = await ref.stats();
    expect(stats.sessions[sid]).toEqual({ create: 1, prompt: 1, call: 1 });
    expect(stats.requests.create_session).toBe(1);
  });
});
