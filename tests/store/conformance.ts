// The conformance suite of the store contract (lib/store/types.ts): every implementation —
// the embedded SQLite one and PostgreSQL — must pass it unchanged. An implementation's test file
// calls `describeTrajectoryStore(name, open)` and `describeRunStore(name, open)` (./conformance-runs.ts).
import { afterEach, describe, expect, it, vi } from "vitest";
import {
  HOST_STOPPED_ERROR,
  INTERRUPTED_EPISODE_ERROR,
  INTERRUPTED_STEP_ERROR,
  type PlaygroundStore,
  RUN_STOPPED_ERROR,
  type StoreInstance,
  type TrajectoryStore,
} from "@/lib/store/types";
import type { NewExchange, Trajectory } from "@/lib/trajectory/schema";
import { step, trajectory } from "../episodes/helpers";

export interface OpenedStore {
  store: PlaygroundStore;
  /** Another handle on the same storage, for another process (closed by the suite). */
  as(instance: StoreInstance): Promise<PlaygroundStore>;
  /** Removes what the store wrote (after close). */
  cleanup?: () => Promise<void> | void;
}

export type OpenStore = (retention?: { maxCount: number; maxAgeDays: number }) => Promise<OpenedStore>;

/**
 * Opens stores for the tests of one describe block (without retention unless given) and closes
 * them, removing what they wrote, after each test.
 */
export function storesPerTest(openStore: OpenStore) {
  const opened: OpenedStore[] = [];
  afterEach(async () => {
    for (const o of opened.splice(0)) {
      await o.store.close();
      await o.cleanup?.();
    }
  });
  /** A store with its other handles (OpenedStore). */
  const opening = async (retention = { maxCount: 0, maxAgeDays: 0 }) => {
    const o = await openStore(retention);
    opened.push(o);
    return o;
  };
  return {
    opening,
    open: async (retention?: { maxCount: number; maxAgeDays: number }) => (await opening(retention)).store,
  };
}

export function describeTrajectoryStore(name: string, openStore: OpenStore): void {
  describe(`TrajectoryStore contract: ${name}`, () => {
    const opened: OpenedStore[] = [];
    const handles: PlaygroundStore[] = [];
    const open = async (retention = { maxCount: 0, maxAgeDays: 0 }) => {
      const o = await openStore(retention);
      opened.push(o);
      return o.store;
    };
    /** Handles on one storage, one per process named (the first opens it). */
    const processes = async (...ids: [string, string?][]) => {
      const o = await openStore({ maxCount: 0, maxAgeDays: 0 });
      opened.push(o);
      const out: PlaygroundStore[] = [];
      for (const [id, host] of ids) {
        const h = await o.as({ id, pid: 1_000_000 + out.length, host: host ?? "here" });
        handles.push(h);
        out.push(h);
      }
      return out;
    };
    afterEach(async () => {
      for (const h of handles.splice(0)) await h.close();
      for (const o of opened.splice(0)) {
        await o.store.close();
        await o.cleanup?.();
      }
    });

    it("writes a trajectory step by step and reads it back in the export format", async () => {
      const s = await open();
      const id = await s.create({
        server: "local",
        sid: "s1",
        env: "math",
        task: { split: "train", index: 2 },
        startedAt: 10,
      });
      await s.setPrompt(id, [{ type: "text", text: "hi" }], 11);
      expect(await s.hasPrompt(id)).toBe(true);
      await s.putStep(id, step(1, { ok: null, ended_at: null, latency_ms: null, reward: null, blocks: [] }));
      let t = (await s.get(id))!;
      expect(t.steps).toHaveLength(1);
      expect(t.steps[0]!.ok).toBeNull();
      expect(t.end_reason).toBeNull();
      expect((await s.findRunning("local", "s1"))?.id).toBe(id);
      await s.putStep(id, step(1, { reward: 0.5 }));
      await s.putStep(id, step(2, { reward: 1, finished: true }));
      expect(await s.end(id, "finished", 500)).toBe(true);
      expect(await s.end(id, "user_closed", 600)).toBe(false);
      t = (await s.get(id))!;
      expect(t).toMatchObject({
        format: "ors-trajectory/1",
        server: "local",
        sid: "s1",
        env: "math",
        task: { split: "train", index: 2 },
        prompt: [{ type: "text", text: "hi" }],
        total_reward: 1.5,
        end_reason: "finished",
        ended_at: 500,
      });
      expect(t.steps.map((x) => [x.index, x.reward, x.finished, x.ok])).toEqual([
        [1, 0.5, false, true],
        [2, 1, true, true],
      ]);
      expect(t.steps[0]!.events[0]).toEqual({ t: 1, kind: "event", event: "task_id", data: "task-1" });
      expect((await s.summary(id))?.num_steps).toBe(2);
      expect((await s.findBySession("local", "s1"))?.id).toBe(id);
      expect(await s.findRunning("local", "s1")).toBeNull();
      expect(await s.delete(id)).toBe(true);
      expect(await s.delete(id)).toBe(false);
      expect(await s.get(id)).toBeNull();
    });

    it("keeps steps after the end out of the total reward; records repeated prompts", async () => {
      const s = await open();
      const id = await s.create({
        server: "py",
        sid: "e",
        env: "farm",
        task: { split: "train", index: 0 },
        startedAt: 1,
      });
      await s.putStep(id, step(1, { reward: 2, finished: true }));
      await s.end(id, "finished", 200);
      await s.putStep(id, step(2, { reward: 5, after_end: true, started_at: 300, ended_at: 310 }));
      await s.addReprompt(id, 400, false);
      await s.addReprompt(id, 500, true);
      const t = (await s.get(id))!;
      expect(t.total_reward).toBe(2);
      expect(t.ended_at).toBe(200);
      expect(t.steps.map((x) => x.after_end ?? false)).toEqual([false, true]);
      expect(t.reprompts).toEqual([
        { at: 400, same: false },
        { at: 500, same: true },
      ]);
      expect((await s.summary(id))?.total_reward).toBe(2);
    });

    it("filters, searches, sorts and pages the list; iterates for export", async () => {
      const s = await open();
      await s.importMany([
        trajectory("a1", { env: "math", started_at: 100 }),
        trajectory("b2", {
          env: "guess",
          server: "second",
          started_at: 200,
          end_reason: "user_closed",
          task: { task_spec: { secret: 7 } },
          steps: [step(1, { reward: 0, blocks: [{ type: "text", text: "too low, banana" }] })],
        }),
        trajectory("c3", {
          env: "math",
          started_at: 300,
          end_reason: "timeout",
          steps: [step(1, { reward: 3 })],
        }),
      ]);
      const ids = async (f: Parameters<TrajectoryStore["list"]>[0]) =>
        (await s.list(f)).items.map((x) => x.id);
      expect(await ids({})).toEqual(["c3", "b2", "a1"]);
      expect(await ids({ order: "asc" })).toEqual(["a1", "b2", "c3"]);
      expect(await ids({ env: "math" })).toEqual(["c3", "a1"]);
      expect(await ids({ server: "second" })).toEqual(["b2"]);
      expect(await ids({ end_reason: "timeout" })).toEqual(["c3"]);
      expect(await ids({ min_reward: 1, max_reward: 2.5 })).toEqual(["a1"]);
      expect(await ids({ task: "train/3" })).toEqual(["c3", "a1"]);
      expect(await ids({ task: "secret" })).toEqual(["b2"]);
      expect(await ids({ q: "banana" })).toEqual(["b2"]);
      expect(await ids({ q: "100%" })).toEqual([]);
      expect(await ids({ sort: "total_reward", order: "desc" })).toEqual(["c3", "a1", "b2"]);
      expect(await ids({ limit: 1, offset: 1 })).toEqual(["b2"]);
      expect((await s.list({ limit: 1 })).total).toBe(3);
      const exported: string[] = [];
      for await (const t of s.iterate({ env: "math" })) exported.push(t.id);
      expect(exported).toEqual(["c3", "a1"]);
    });

    it("text holding a NUL character: ids and filters with one find nothing, a call's tool name with one is kept", async () => {
      // PostgreSQL's text holds no U+0000: such text is stored with U+FFFD in its place (lib/store/types.ts).
      const s = await open();
      const nul = "\u0000";
      expect(await s.get(`a${nul}b`)).toBeNull();
      expect(await s.summary(nul)).toBeNull();
      expect(await s.exchanges(nul)).toBeNull();
      expect(await s.findBySession(`lo${nul}cal`, nul)).toBeNull();
      expect(await s.delete(nul)).toBe(false);
      expect(await s.setGolden(nul, true)).toBe(false);
      expect(await s.getRun(nul)).toBeNull();
      for (const f of [{ server: nul }, { env: nul }, { q: nul }, { task: nul }, { run: nul }])
        expect(await s.list(f)).toEqual({ items: [], total: 0 });
      const id = await s.create({
        server: "local",
        sid: `s${nul}1`,
        env: `ma${nul}th`,
        task: null,
        startedAt: 10,
      });
      await s.putStep(id, step(1, { tool: `sub${nul}mit`, error: `bad${nul}`, ok: false }));
      const t = (await s.get(id))!;
      const kept = (text: string) => [text, text.replaceAll(nul, "\uFFFD")];
      expect(kept(`sub${nul}mit`)).toContain(t.steps[0]!.tool);
      expect(kept(`ma${nul}th`)).toContain(t.env);
      expect((await s.findRunning("local", `s${nul}1`))?.id).toBe(id);
      expect((await s.list({ env: `ma${nul}th` })).items.map((x) => x.id)).toEqual([id]);
    });

    it("imports all or nothing and skips ids that already exist", async () => {
      const s = await open();
      expect(await s.importMany([trajectory("x1")])).toEqual({ imported: ["x1"], skipped: [] });
      expect(await s.importMany([trajectory("x1"), trajectory("x2")])).toEqual({
        imported: ["x2"],
        skipped: ["x1"],
      });
      // A failure in the middle (a step without its tool) rolls back the whole batch.
      const bad = trajectory("x4");
      (bad.steps[1] as { tool: unknown }).tool = null;
      await expect(s.importMany([trajectory("x3"), bad])).rejects.toThrow();
      expect(await s.get("x3")).toBeNull();
      expect(await s.get("x4")).toBeNull();
      expect((await s.get("x1"))?.origin).toEqual({ kind: "import", from: "x1" });
      // An episode exported while running is stored as ended.
      await s.importMany([trajectory("run", { end_reason: null, ended_at: null })]);
      expect(await s.summary("run")).toMatchObject({ end_reason: "error" });
    });

    it("retention: a count cap and an age cap, never touching running episodes", async () => {
      const s = await open({ maxCount: 3, maxAgeDays: 1 });
      const now = Date.now();
      const running = await s.create({
        server: "local",
        sid: "r",
        env: "math",
        task: null,
        startedAt: now - 3 * 86_400_000,
      });
      const clock = vi.spyOn(Date, "now").mockReturnValue(now);
      try {
        for (let i = 0; i < 5; i++)
          await s.importMany([trajectory(`t${i}`, { started_at: now - (5 - i) * 1000 })]);
      } finally {
        clock.mockRestore();
      }
      expect((await s.list({})).total).toBe(3);
      expect(await s.get(running)).not.toBeNull();
      expect(await s.get("t0")).toBeNull();
      expect(await s.get("t4")).not.toBeNull();
      // The age cap counts from when a trajectory entered the store (an old import is kept), and the
      // count cap removes the first stored, even when it entered in the same millisecond as others.
      const again = vi.spyOn(Date, "now").mockReturnValue(now);
      try {
        await s.importMany([trajectory("old", { started_at: now - 2 * 86_400_000 })]);
      } finally {
        again.mockRestore();
      }
      expect(await s.get("old")).not.toBeNull();
      // ...and removes ended ones a day later, but never the running one.
      expect(await s.enforceRetention(now + 86_400_000 + 60_000)).toBe(2);
      expect((await s.list({})).items.map((x) => x.id)).toEqual([running]);
    });

    it("marks golden and unmarks; filters by it; imports keep it; exports carry it", async () => {
      const s = await open();
      await s.importMany([
        trajectory("g1", { started_at: 100 }),
        trajectory("g2", { started_at: 200, golden: true }),
        trajectory("g3", { started_at: 300 }),
      ]);
      const ids = async (golden?: boolean) => (await s.list({ golden })).items.map((x) => x.id);
      expect(await ids(true)).toEqual(["g2"]);
      expect((await s.get("g2"))?.golden).toBe(true);
      expect((await s.summary("g2"))?.golden).toBe(true);
      // Not golden: the field is absent (exports of ordinary trajectories are unchanged).
      expect(await s.get("g1")).not.toHaveProperty("golden");
      expect(await s.summary("g1")).not.toHaveProperty("golden");

      expect(await s.setGolden("g1", true)).toBe(true);
      expect(await s.setGolden("g1", true)).toBe(true); // idempotent
      expect(await ids(true)).toEqual(["g2", "g1"]);
      expect(await ids(false)).toEqual(["g3"]);
      expect(await ids(undefined)).toEqual(["g3", "g2", "g1"]);
      expect(await s.setGolden("g2", false)).toBe(true);
      expect(await ids(true)).toEqual(["g1"]);
      expect(await s.get("g2")).not.toHaveProperty("golden");
      expect(await s.setGolden("nope", true)).toBe(false);

      const exported: Trajectory[] = [];
      for await (const t of s.iterate({ golden: true })) exported.push(t);
      expect(exported.map((t) => [t.id, t.golden])).toEqual([["g1", true]]);
      // A new episode is never golden; marking one that is still running works.
      const live = await s.create({ server: "local", sid: "lv", env: "math", task: null, startedAt: 1 });
      expect((await s.summary(live))?.golden).toBeUndefined();
      expect(await s.setGolden(live, true)).toBe(true);
      expect((await s.summary(live))?.golden).toBe(true);
    });

    it("retention never removes a golden trajectory", async () => {
      const s = await open({ maxCount: 2, maxAgeDays: 1 });
      const now = Date.now();
      const clock = vi.spyOn(Date, "now").mockReturnValue(now);
      try {
        await s.importMany([trajectory("keep", { started_at: now - 10_000, golden: true })]);
        for (let i = 0; i < 3; i++)
          await s.importMany([trajectory(`t${i}`, { started_at: now - (5 - i) * 1000 })]);
      } finally {
        clock.mockRestore();
      }
      // The count cap removed the first stored ordinary ones, not the older golden one.
      expect((await s.list({})).items.map((x) => x.id).sort()).toEqual(["keep", "t2"]);
      // The age cap: a day later every ordinary one is gone, the golden one stays...
      expect(await s.enforceRetention(now + 86_400_000 + 60_000)).toBe(1);
      expect((await s.list({})).items.map((x) => x.id)).toEqual(["keep"]);
      // ...until it is unmarked.
      await s.setGolden("keep", false);
      expect(await s.enforceRetention(now + 86_400_000 + 60_000)).toBe(1);
      expect((await s.list({})).total).toBe(0);
    });

    it("sweeps idle running episodes to timeout", async () => {
      const s = await open();
      const id = await s.create({ server: "local", sid: "s", env: "math", task: null, startedAt: 1000 });
      await s.touch(id, 5000);
      expect(await s.sweepIdle(5000 + 999, 1000)).toEqual([]);
      expect(await s.sweepIdle(5000 + 1001, 1000)).toEqual([id]);
      expect(await s.summary(id)).toMatchObject({ end_reason: "timeout", ended_at: 6000 });
    });

    it("ends every running trajectory of one server (the built-in host after a restart)", async () => {
      const s = await open();
      const a = await s.create({ server: "local", sid: "a", env: "math", task: null, startedAt: 1 });
      const b = await s.create({ server: "py", sid: "b", env: "math", task: null, startedAt: 1 });
      expect(await s.endRunningOf("local", "error", 50, "lost")).toEqual([a]);
      expect(await s.summary(a)).toMatchObject({ end_reason: "error", error: "lost", ended_at: 50 });
      expect((await s.summary(b))?.end_reason).toBeNull();
      expect((await s.running()).map((x) => x.id)).toEqual([b]);
    });

    it("sets env once, origin, replay marks; lists a session's newest trajectory", async () => {
      const s = await open();
      const id = await s.create({ server: "py", sid: "z", env: null, task: null, startedAt: 1 });
      await s.setEnv(id, "farm");
      await s.setEnv(id, "other");
      await s.putStep(id, step(1));
      await s.setOrigin(id, { kind: "fork", from: "orig", step: 1 });
      await s.setStepReplay(id, 1, { of: "orig", step: 1, differs: ["reward"] });
      const t = (await s.get(id))!;
      expect(t.env).toBe("farm");
      expect(t.origin).toEqual({ kind: "fork", from: "orig", step: 1 });
      expect(t.steps[0]!.replay).toEqual({ of: "orig", step: 1, differs: ["reward"] });
      const newer = await s.create({ server: "py", sid: "z", env: "farm", task: null, startedAt: 5 });
      expect((await s.findBySession("py", "z"))?.id).toBe(newer);
    });

    it("keeps the total reward and the step count right as steps are written again", async () => {
      const s = await open();
      const id = await s.create({ server: "py", sid: "r", env: "dice", task: null, startedAt: 1 });
      const pending = { ok: null, ended_at: null, latency_ms: null, reward: null, blocks: [] };
      await s.putStep(id, step(1, pending));
      await s.putStep(id, step(1, { reward: 0.1 }));
      await s.putStep(id, step(2, pending));
      await s.putStep(id, step(2, { reward: 0.2 }));
      await s.putStep(id, step(3, pending));
      await s.putStep(id, step(3, { reward: 0 }));
      expect(await s.summary(id)).toMatchObject({ num_steps: 3, total_reward: 0.3 });
      // A step written again with another reward, one moved after the end, one without a reward.
      await s.putStep(id, step(2, { reward: -0.3 }));
      expect((await s.summary(id))?.total_reward).toBe(-0.2);
      await s.putStep(id, step(1, { reward: 0.1, after_end: true }));
      expect((await s.summary(id))?.total_reward).toBe(-0.3);
      await s.putStep(id, step(3, { reward: null }));
      await s.putStep(id, step(4, { reward: 5, after_end: true }));
      expect(await s.summary(id)).toMatchObject({ num_steps: 4, total_reward: -0.3 });
      expect((await s.get(id))?.total_reward).toBe(-0.3);
    });

    it("keeps a step's origin (a call replayed from the protocol log)", async () => {
      const s = await open();
      const id = await s.create({ server: "py", sid: "o", env: "dice", task: null, startedAt: 1 });
      await s.putStep(id, step(1));
      await s.putStep(id, step(2, { origin: { kind: "replay", exchange: 7, edited: true } }));
      const t = (await s.get(id))!;
      expect(t.steps[0]!.origin).toBeUndefined();
      expect(t.steps[1]!.origin).toEqual({ kind: "replay", exchange: 7, edited: true });
    });

    it("keeps each episode's protocol log in order, within its caps, and deletes it with the episode", async () => {
      const s = await open();
      const id = await s.create({ server: "py", sid: "p", env: "dice", task: null, startedAt: 1 });
      const big = { count: 100, chars: 1_000_000 };
      const sent = (n: number, over: Partial<NewExchange> = {}): NewExchange => ({
        at: 1_000 + n,
        ms: n / 2,
        method: "POST",
        path: "/dice/call",
        status: 200,
        request: {
          headers: { "x-session-id": "p", "content-type": "application/json", "x-api-key": "***" },
          body: `{"name":"echo","input":{"text":"${n}"}}`,
          size: 36,
        },
        response: {
          contentType: "text/event-stream",
          body: "event: end\ndata: {}\n\n",
          size: 4096,
          truncated: true,
        },
        ...over,
      });
      expect(await s.exchanges(id)).toEqual({ items: [], dropped: 0 });
      expect(await s.addExchange(id, sent(1), big)).toBe(1);
      expect(
        await s.addExchange(
          id,
          sent(2, {
            method: "GET",
            path: "/dice/prompt",
            response: { contentType: "application/json", body: "[]", size: 2 },
          }),
          big,
        ),
      ).toBe(2);
      expect(await s.addExchange(id, sent(3, { status: 410 }), big)).toBe(3);
      const log = (await s.exchanges(id))!;
      expect(log.dropped).toBe(0);
      expect(log.items.map((x) => [x.seq, x.method, x.path, x.status])).toEqual([
        [1, "POST", "/dice/call", 200],
        [2, "GET", "/dice/prompt", 200],
        [3, "POST", "/dice/call", 410],
      ]);
      expect(log.items[0]).toEqual({ seq: 1, ...sent(1) });
      expect(log.items[1]!.response).toEqual({ contentType: "application/json", body: "[]", size: 2 });
      expect((await s.exchanges(id, { after: 2 }))!.items.map((x) => x.seq)).toEqual([3]);
      // Beyond the caps the oldest are kept and the rest counted: by count, then by characters.
      expect(await s.addExchange(id, sent(4), { count: 3, chars: 1_000_000 })).toBeNull();
      expect(
        await s.addExchange(
          id,
          sent(5, { response: { contentType: "x", body: "y".repeat(5000), size: 5000 } }),
          { count: 100, chars: 1000 },
        ),
      ).toBeNull();
      expect(await s.addExchange(id, sent(6), big)).toBe(4);
      expect(await s.exchanges(id)).toMatchObject({ dropped: 2 });
      expect((await s.exchanges(id))!.items.map((x) => x.at)).toEqual([1001, 1002, 1003, 1006]);
      // Not part of the trajectory's export format.
      expect(Object.keys((await s.get(id))!)).not.toContain("exchanges");
      // Gone with the episode: an episode under the same id starts a new log.
      expect(await s.addExchange("nope", sent(1), big)).toBeNull();
      expect(await s.exchanges("nope")).toBeNull();
      expect(await s.delete(id)).toBe(true);
      expect(await s.exchanges(id)).toBeNull();
      await s.create({ id, server: "py", sid: "p2", env: "dice", task: null, startedAt: 2 });
      expect(await s.addExchange(id, sent(9), big)).toBe(1);
      expect(await s.exchanges(id)).toEqual({ items: [{ seq: 1, ...sent(9) }], dropped: 0 });
    });

    it("numbers the exchanges of one episode logged by several processes at once without a gap", async () => {
      const [a, b] = await processes(["one"], ["two"]);
      const id = await a!.create({ server: "py", sid: "q", env: "dice", task: null, startedAt: 1 });
      const limit = { count: 15, chars: 1_000_000 };
      const x = (n: number): NewExchange => ({
        at: n,
        ms: 1,
        method: "POST",
        path: "/ping",
        status: 200,
        request: { headers: {}, body: "", size: 0 },
        response: { contentType: "application/json", body: `{"n":${n}}`, size: 8 },
      });
      const seqs = await Promise.all(
        Array.from({ length: 20 }, (_, n) => (n % 2 ? a! : b!).addExchange(id, x(n), limit)),
      );
      expect(seqs.filter((q) => q !== null).sort((p, q) => p! - q!)).toEqual(
        Array.from({ length: 15 }, (_, i) => i + 1),
      );
      const log = (await b!.exchanges(id))!;
      expect(log.items.map((i) => i.seq)).toEqual(Array.from({ length: 15 }, (_, i) => i + 1));
      expect(log.dropped).toBe(5);
    });

    it("retention removes an episode's protocol log with it", async () => {
      const s = await open({ maxCount: 1, maxAgeDays: 0 });
      const old = await s.create({ server: "py", sid: "a", env: "dice", task: null, startedAt: 1 });
      const x: NewExchange = {
        at: 1,
        ms: 1,
        method: "POST",
        path: "/ping",
        status: 200,
        request: { headers: {}, body: "", size: 0 },
        response: { contentType: "application/json", body: "{}", size: 2 },
      };
      await s.addExchange(old, x, { count: 10, chars: 10_000 });
      await s.end(old, "user_closed", 2);
      await s.create({ server: "py", sid: "b", env: "dice", task: null, startedAt: 3 });
      expect(await s.exchanges(old)).toBeNull();
      await s.create({ id: old, server: "py", sid: "c", env: "dice", task: null, startedAt: 4 });
      expect(await s.addExchange(old, x, { count: 10, chars: 10_000 })).toBe(1);
    });

    it("tags a run's episodes, keeps the tools they were played with, who chose each call, the last words", async () => {
      const s = await open();
      const tools = [{ name: "submit", description: "Answer", input_schema: { type: "object" } }];
      const run = { id: "run-1", task_index: 7, repeat: 2 };
      const a = await s.create({
        server: "local",
        sid: "a",
        env: "math",
        task: null,
        startedAt: 1,
        run,
        tools,
      });
      const b = await s.create({ server: "local", sid: "b", env: "math", task: null, startedAt: 2, tools });
      const c = await s.create({ server: "local", sid: "c", env: "math", task: null, startedAt: 3 });
      const agent = {
        policy: "model",
        model: "m",
        turn: 1,
        call_id: "call_9",
        message: "I will answer 4.",
        usage: { prompt_tokens: 12, completion_tokens: 3 },
      };
      await s.putStep(a, step(1, { agent }));
      await s.setAgentEnd(a, {
        reason: "no_tool_call",
        message: "done",
        usage: { prompt_tokens: 1, completion_tokens: 2 },
      });
      const t = (await s.get(a))!;
      expect(t.run).toEqual(run);
      expect(t.tools).toEqual(tools);
      expect(t.steps[0]!.agent).toEqual(agent);
      expect(t.agent_end).toEqual({
        reason: "no_tool_call",
        message: "done",
        usage: { prompt_tokens: 1, completion_tokens: 2 },
      });
      expect((await s.summary(a))?.run).toEqual(run);
      expect((await s.get(b))?.tools).toEqual(tools);
      // Without: the fields are absent (exports of other trajectories unchanged).
      const plain = (await s.get(c))!;
      for (const k of ["run", "tools", "agent_end"]) expect(plain).not.toHaveProperty(k);
      expect((await s.summary(c))!).not.toHaveProperty("run");
      // The tools an episode asked for later replace what it started with.
      const other = [{ name: "guess", description: "Guess", input_schema: null }];
      await s.setTools(b, other);
      expect((await s.get(b))?.tools).toEqual(other);
      expect((await s.get(a))?.tools).toEqual(tools);
      // The run filter; an import keeps every field.
      expect((await s.list({ run: "run-1" })).items.map((x) => x.id)).toEqual([a]);
      const exported = (await s.get(a))!;
      await s.delete(a);
      await s.importMany([exported]);
      expect(await s.get(a)).toMatchObject({ run, tools, agent_end: exported.agent_end });
      expect((await s.get(a))?.steps[0]?.agent).toEqual(agent);
    });

    it("tags an episode with the client that played it, in the trajectory, its summary and an import", async () => {
      const s = await open();
      const client = { name: "claude-code", version: "2.0.1" };
      const a = await s.create({ server: "local", sid: "a", env: "math", task: null, startedAt: 1, client });
      const b = await s.create({ server: "local", sid: "b", env: "math", task: null, startedAt: 2 });
      expect((await s.get(a))?.client).toEqual(client);
      expect((await s.summary(a))?.client).toEqual(client);
      expect((await s.list({})).items.find((x) => x.id === a)?.client).toEqual(client);
      expect(await s.get(b)).not.toHaveProperty("client");
      expect(await s.summary(b)).not.toHaveProperty("client");
      await s.end(a, "finished", 5, null);
      const exported = (await s.get(a))!;
      await s.delete(a);
      await s.importMany([exported]);
      expect((await s.get(a))?.client).toEqual(client);
    });

    it("the built-in host is each process's own: its running episodes are found and ended there only", async () => {
      const [a, b] = await processes(["a"], ["b"]);
      const ofA = await a.create({ server: "local", sid: "l", env: "math", task: null, startedAt: 1 });
      const ofB = await b.create({ server: "local", sid: "l", env: "math", task: null, startedAt: 2 });
      const shared = await a.create({ server: "py", sid: "p", env: "math", task: null, startedAt: 3 });
      expect((await a.findRunning("local", "l"))?.id).toBe(ofA);
      expect((await b.findRunning("local", "l"))?.id).toBe(ofB);
      // Another server's sessions are everyone's.
      expect((await b.findRunning("py", "p"))?.id).toBe(shared);
      // B restarting its host ends B's episode only.
      expect(await b.endRunningOf("local", "error", 5, "restarted")).toEqual([ofB]);
      expect((await a.summary(ofA))?.end_reason).toBeNull();
      expect(await b.endRunningOf("py", "error", 6, "gone")).toEqual([shared]);
    });

    it("lists the calls another process carries as in flight there", async () => {
      const [a, b] = await processes(["a"], ["b"]);
      const id = await a.create({ server: "py", sid: "s", env: "math", task: null, startedAt: 1 });
      const pending = { ok: null, ended_at: null, latency_ms: null, reward: null, blocks: [] };
      await a.putStep(id, step(1));
      await a.putStep(id, step(2, pending));
      // The session's next request went through B (another replica): its call is B's.
      await b.putStep(id, step(3, pending));
      expect(await a.inflightElsewhere(id)).toEqual([3]);
      expect(await b.inflightElsewhere(id)).toEqual([2]);
      await b.putStep(id, step(3));
      expect(await a.inflightElsewhere(id)).toEqual([]);
    });

    it("after a crash: the dead processes' calls in flight are cut, their host's episodes and their runs' ended, the living ones' kept", async () => {
      const [s, dead, stale] = await processes(["self"], ["dead"], ["stale", "elsewhere"]);
      await dead.beat(1_000);
      await stale.beat(1_000);
      await s.beat(1_000);
      await s.beat(100_000);
      const pending = { ok: null, ended_at: null, latency_ms: null, reward: null, blocks: [] };
      const mk = (by: PlaygroundStore, server: string, sid: string) =>
        by.create({ server, sid, env: "math", task: null, startedAt: 1 });
      const local = await mk(dead, "local", "l");
      const inflight = await mk(dead, "py", "i");
      const quiet = await mk(dead, "py", "q");
      const staleOne = await mk(stale, "py", "s");
      const mine = await mk(s, "py", "m");
      for (const [by, id] of [
        [dead, local],
        [dead, inflight],
        [stale, staleOne],
        [s, mine],
      ] as const)
        await by.putStep(id, step(1, pending));
      await dead.putStep(quiet, step(1));
      // A session played through both: the dead one's call is cut, the living one's kept.
      const mixed = await mk(s, "py", "x");
      await s.putStep(mixed, step(1, pending));
      await dead.putStep(mixed, step(2, pending));
      expect(await s.inflightElsewhere(mixed)).toEqual([2]);
      // A run the dead one was playing: one episode finished (not yet written so), one in a call,
      // one not started; and a run the living one plays.
      const run = await dead.createRun({
        server: "py",
        env: "math",
        split: "train",
        tasks: [0, 1, 2],
        repeats: 1,
        config: {},
        createdAt: 1,
        instance: "dead",
      });
      await dead.setRunStatus(run.id, "running", 2, { from: ["queued"], instance: "dead" });
      const tag = (i: number) => ({ id: run.id, task_index: i, repeat: 0 });
      const ep = async (i: number) => {
        const id = await dead.create({
          server: "py",
          sid: `r${i}`,
          env: "math",
          task: null,
          startedAt: 3,
          run: tag(i),
        });
        expect(
          await dead.claimEpisode(run.id, { taskIndex: i, repeat: 0 }, "dead", {
            status: "running",
            trajectoryId: id,
            startedAt: 3,
          }),
        ).toBe(true);
        return id;
      };
      const played = await ep(0);
      await dead.putStep(played, step(1, { reward: 0.5, finished: true }));
      await dead.end(played, "finished", 1_300);
      const playing = await ep(1);
      await dead.putStep(playing, step(1, pending));
      const mineRun = await s.createRun({
        server: "py",
        env: "math",
        split: "train",
        tasks: [0],
        repeats: 1,
        config: {},
        createdAt: 1,
        instance: "self",
      });
      await s.setRunStatus(mineRun.id, "running", 2, { from: ["queued"], instance: "self" });

      // `dead`'s pid is gone; `stale` has not renewed its lease for longer than staleMs.
      const r = await s.recoverOrphans(100_000, {
        everyMs: 10_000,
        staleMs: 60_000,
        alive: (i) => i.id !== "dead",
      });
      expect(r.runs).toEqual([run.id]);
      expect(r.steps).toEqual(
        [
          { id: local, index: 1 },
          { id: inflight, index: 1 },
          { id: staleOne, index: 1 },
          { id: mixed, index: 2 },
          { id: playing, index: 1 },
        ].sort((a, b) => (a.id === b.id ? a.index - b.index : a.id < b.id ? -1 : 1)),
      );
      expect(r.ended.map((e) => [e.id, e.reason, e.error, e.at]).sort()).toEqual(
        [
          [local, "error", HOST_STOPPED_ERROR, 100_000],
          [playing, "interrupted", INTERRUPTED_EPISODE_ERROR, 100_000],
        ].sort(),
      );
      expect(await s.summary(local)).toMatchObject({ end_reason: "error", error: HOST_STOPPED_ERROR });
      const i = (await s.get(inflight))!;
      expect(i.steps[0]).toMatchObject({ ok: false, error: INTERRUPTED_STEP_ERROR, ended_at: null });
      // Its session may live on a server that did not die: a client may still go on with it.
      expect(i.end_reason).toBeNull();
      expect((await s.summary(staleOne))?.end_reason).toBeNull();
      expect((await s.summary(quiet))?.end_reason).toBeNull();
      expect((await s.get(quiet))?.steps[0]?.ok).toBe(true);
      expect((await s.get(mixed))?.steps.map((x) => x.ok)).toEqual([null, false]);
      expect(await s.inflightElsewhere(mixed)).toEqual([]);
      // This process's own episode, in flight, is untouched.
      expect((await s.get(mine))?.steps[0]?.ok).toBeNull();
      expect((await s.summary(mine))?.end_reason).toBeNull();
      // The run: interrupted; the finished episode done once and for all, the one playing interrupted.
      expect(await s.getRun(run.id)).toMatchObject({
        status: "interrupted",
        error: RUN_STOPPED_ERROR,
        endedAt: 100_000,
      });
      expect((await s.runEpisodes(run.id)).map((e) => [e.taskIndex, e.status, e.reward, e.finished])).toEqual(
        [
          [0, "done", 0.5, true],
          [1, "interrupted", null, null],
          [2, "pending", null, null],
        ],
      );
      expect(await s.pendingEpisodes(run.id)).toEqual([
        { taskIndex: 1, repeat: 0 },
        { taskIndex: 2, repeat: 0 },
      ]);
      expect(await s.summary(playing)).toMatchObject({ end_reason: "interrupted" });
      expect((await s.getRun(mineRun.id))?.status).toBe("running");
      // The dead are forgotten: recovering again changes nothing.
      expect(
        await s.recoverOrphans(100_001, { everyMs: 10_000, staleMs: 60_000, alive: () => false }),
      ).toEqual({ ended: [], steps: [], runs: [] });
    });
  });
}
