// The store contract's batch of writes (`writeBatch`, lib/store/types.ts), part of the conformance
// suite (./conformance.ts): many steps and protocol log entries written at once read back exactly as
// `putStep` and `addExchange` one by one would leave them — counters, totals, numbering, caps — and
// those of a trajectory that is gone are skipped without failing the rest.
import { describe, expect, it } from "vitest";
import type { NewExchange } from "@/lib/trajectory/schema";
import { step } from "../episodes/helpers";
import { type OpenStore, storesPerTest } from "./conformance";

const exchange = (n: number, body = `{"n":${n}}`): NewExchange => ({
  at: 1_000 + n,
  ms: 1,
  method: "POST",
  path: "/dice/call",
  status: 200,
  request: { headers: { "x-session-id": "s" }, body, size: body.length },
  response: { contentType: "text/event-stream", body: "event: end\ndata: {}\n\n", size: 21 },
});

export function describeBatchWrites(name: string, openStore: OpenStore): void {
  describe(`TrajectoryStore contract, writes in batches: ${name}`, () => {
    const { open, opening } = storesPerTest(openStore);

    it("writes a batch as one write after another would: steps, counters, totals, the protocol log", async () => {
      const s = await open();
      const a = await s.create({ server: "py", sid: "a", env: "dice", task: null, startedAt: 1 });
      const b = await s.create({ server: "py", sid: "b", env: "dice", task: null, startedAt: 1 });
      const limit = { count: 100, chars: 1_000_000 };
      // What a batch holds: steps already written (their pending start) and new ones, rewarded or not.
      const pending = { ok: null, ended_at: null, latency_ms: null, reward: null, blocks: [] };
      await s.putStep(a, step(1, { reward: 0.1 }));
      await s.putStep(a, step(2, pending));
      expect(await s.addExchange(a, exchange(0), limit)).toBe(1);
      const seqs = await s.writeBatch({
        steps: [
          { id: a, step: step(2, { reward: 0.2 }) },
          { id: b, step: step(1, pending) },
          { id: a, step: step(3, pending) },
          { id: b, step: step(1, { reward: 0, ended_at: 9_000 }) },
          { id: a, step: step(3, { reward: 0.3 }) },
          { id: a, step: step(4, { reward: 7, after_end: true }) },
        ],
        exchanges: [
          { id: a, exchange: exchange(1), limit },
          { id: b, exchange: exchange(2), limit },
          { id: a, exchange: exchange(3), limit },
        ],
      });
      expect(seqs).toEqual([2, 1, 3]);
      expect(await s.summary(a)).toMatchObject({ num_steps: 4, total_reward: 0.6 });
      expect(await s.summary(b)).toMatchObject({ num_steps: 1, total_reward: 0, last_activity_at: 9_000 });
      const ta = (await s.get(a))!;
      expect(ta.steps).toMatchObject([
        step(1, { reward: 0.1 }),
        step(2, { reward: 0.2 }),
        step(3, { reward: 0.3 }),
        step(4, { reward: 7, after_end: true }),
      ]);
      expect((await s.get(b))!.steps).toMatchObject([step(1, { reward: 0, ended_at: 9_000 })]);
      expect((await s.exchanges(a))!.items.map((x) => [x.seq, x.at])).toEqual([
        [1, 1000],
        [2, 1001],
        [3, 1003],
      ]);
      expect((await s.exchanges(a))!.items[1]).toEqual({ seq: 2, ...exchange(1) });
      // A step written again changes the total; the same one again changes nothing.
      await s.writeBatch({ steps: [{ id: a, step: step(1, { reward: -1 }) }], exchanges: [] });
      await s.writeBatch({ steps: [{ id: a, step: step(1, { reward: -1 }) }], exchanges: [] });
      expect(await s.summary(a)).toMatchObject({ num_steps: 4, total_reward: -0.5 });
    });

    it("keeps the protocol log's caps across a batch, and skips what belongs to no trajectory", async () => {
      const s = await open();
      const id = await s.create({ server: "py", sid: "c", env: "dice", task: null, startedAt: 1 });
      const three = { count: 3, chars: 1_000_000 };
      expect(await s.addExchange(id, exchange(0), three)).toBe(1);
      const seqs = await s.writeBatch({
        steps: [
          { id: "gone", step: step(1) },
          { id, step: step(1) },
        ],
        exchanges: [
          { id, exchange: exchange(1), limit: three },
          { id: "gone", exchange: exchange(2), limit: three },
          { id, exchange: exchange(3, "x".repeat(5_000)), limit: { count: 100, chars: 1_000 } },
          { id, exchange: exchange(4), limit: three },
          { id, exchange: exchange(5), limit: three },
        ],
      });
      expect(seqs).toEqual([2, null, null, 3, null]);
      expect(await s.exchanges(id)).toMatchObject({ dropped: 2 });
      expect((await s.exchanges(id))!.items.map((x) => x.at)).toEqual([1000, 1001, 1004]);
      expect((await s.get(id))!.steps).toHaveLength(1);
      expect(await s.get("gone")).toBeNull();
      expect(await s.writeBatch({ steps: [], exchanges: [] })).toEqual([]);
    });

    it("finds the running trajectories of many sessions at once, as findRunning one by one", async () => {
      const o = await opening({ maxCount: 0, maxAgeDays: 0 });
      const s = o.store;
      const other = await o.as({ id: "other-process", pid: 1_000_001, host: "here" });
      try {
        const old = await s.create({ server: "py", sid: "a", env: "dice", task: null, startedAt: 1 });
        const newer = await s.create({ server: "py", sid: "a", env: "dice", task: null, startedAt: 2 });
        const ended = await s.create({ server: "py", sid: "b", env: "dice", task: null, startedAt: 1 });
        await s.end(ended, "finished", 3);
        const mine = await s.create({ server: "local", sid: "c", env: "dice", task: null, startedAt: 1 });
        await other.create({ server: "local", sid: "d", env: "dice", task: null, startedAt: 1 });
        const sessions = ["a", "b", "c", "d", "e"].map((sid) => ({
          server: sid < "c" ? "py" : "local",
          sid,
        }));
        const found = await s.findRunningMany(sessions);
        expect(new Map([...found].map(([k, t]) => [k, t.id]))).toEqual(
          new Map([
            ["py\na", newer],
            ["local\nc", mine],
          ]),
        );
        for (const { server, sid } of sessions)
          expect(found.get(`${server}\n${sid}`) ?? null).toEqual(await s.findRunning(server, sid));
        expect(old).not.toBe(newer);
        expect(await s.findRunningMany([])).toEqual(new Map());
      } finally {
        await other.close();
      }
    });

    it("reads a trajectory's prompt alone", async () => {
      const s = await open();
      const id = await s.create({ server: "py", sid: "p", env: "dice", task: null, startedAt: 1 });
      expect(await s.promptOf(id)).toBeNull();
      const blocks = [{ type: "text" as const, text: "Roll.\n\n**Twice**" }];
      await s.setPrompt(id, blocks, 2);
      await s.putStep(id, step(1));
      expect(await s.promptOf(id)).toEqual(blocks);
      expect(await s.promptOf("nope")).toBeNull();
    });

    it("records a call whose tool name and error hold a NUL character", async () => {
      const s = await open();
      const id = await s.create({ server: "py", sid: "n", env: "dice", task: null, startedAt: 1 });
      await s.writeBatch({
        steps: [{ id, step: step(1, { tool: "a\u0000b", ok: false, error: "bad\u0000" }) }],
        exchanges: [
          { id, exchange: { ...exchange(1), path: "/x\u0000/call" }, limit: { count: 9, chars: 99_999 } },
        ],
      });
      await s.putStep(id, step(2, { tool: "c\u0000" }));
      const steps = (await s.get(id))!.steps;
      // PostgreSQL's text cannot hold NUL: it reads as U+FFFD there.
      const plain = (t: string | null) => t?.replaceAll("\uFFFD", "\u0000");
      expect(steps.map((x) => plain(x.tool))).toEqual(["a\u0000b", "c\u0000"]);
      expect(plain(steps[0]!.error)).toBe("bad\u0000");
      expect(plain((await s.exchanges(id))!.items[0]!.path)).toBe("/x\u0000/call");
    });
  });
}
