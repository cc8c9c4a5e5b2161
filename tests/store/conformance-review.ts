// The conformance suite of the ReviewStore half of the store contract (lib/store/types.ts): label
// sets, labels (and the labels a trajectory carries through get and import), review queues with
// their assignments and progress, share links and their players. Every implementation passes it
// unchanged (tests/store/sqlite.test.ts, tests/store/postgres.test.ts).
import { describe, expect, it } from "vitest";
import type { PlaygroundStore } from "@/lib/store/types";
import { trajectory } from "../episodes/helpers";
import { type OpenStore, storesPerTest } from "./conformance";

const SCHEMA = {
  type: "object",
  properties: {
    correct: { type: "boolean" },
    failure: { type: "string", enum: ["none", "format", "wrong"] },
    note: { type: "string" },
  },
  required: ["correct"],
};

/** The label set the tests create unless they say otherwise (read back as it was given, with its id). */
const VERDICT_SET = {
  server: "local",
  env: "math",
  name: "verdict",
  target: "episode",
  schema: SCHEMA,
  verdict: "correct",
  createdAt: 100,
} as const;

export function describeReviewStore(name: string, openStore: OpenStore): void {
  describe(`ReviewStore contract: ${name}`, () => {
    const { open } = storesPerTest(openStore);

    const newSet = (
      s: PlaygroundStore,
      over: Partial<Parameters<PlaygroundStore["createLabelSet"]>[0]> = {},
    ) => s.createLabelSet({ ...VERDICT_SET, ...over });

    it("creates, reads, lists (newest first, by environment) and deletes label sets", async () => {
      const s = await open();
      const a = await newSet(s);
      expect(a).toEqual({ id: a.id, ...VERDICT_SET });
      const b = await newSet(s, {
        id: "fixed",
        env: "guess",
        name: "steps",
        target: "step",
        verdict: null,
        createdAt: 200,
      });
      expect(b.id).toBe("fixed");
      expect(await s.getLabelSet(a.id)).toEqual(a);
      expect(await s.getLabelSet("nope")).toBeNull();
      expect((await s.listLabelSets()).map((x) => x.id)).toEqual([b.id, a.id]);
      expect((await s.listLabelSets({ env: "math" })).map((x) => x.id)).toEqual([a.id]);
      expect(await s.listLabelSets({ server: "py" })).toEqual([]);
      expect(await s.deleteLabelSet(b.id)).toBe(true);
      expect(await s.deleteLabelSet(b.id)).toBe(false);
      expect((await s.listLabelSets()).map((x) => x.id)).toEqual([a.id]);
    });

    it("writes a reviewer's label, replaces it, keeps episode and step labels apart, filters and deletes", async () => {
      const s = await open();
      await s.importMany([trajectory("t1"), trajectory("t2")]);
      const set = await newSet(s);
      const key = { labelSet: set.id, trajectoryId: "t1", step: null, reviewer: "ann" };
      const first = await s.putLabel(key, { correct: true }, 1000);
      expect(first).toEqual({ ...key, value: { correct: true }, createdAt: 1000, updatedAt: 1000 });
      const again = await s.putLabel(key, { correct: false, note: "misread" }, 2000);
      expect(again).toEqual({
        ...key,
        value: { correct: false, note: "misread" },
        createdAt: 1000,
        updatedAt: 2000,
      });
      await s.putLabel({ ...key, step: 2 }, { correct: true }, 2100);
      await s.putLabel({ ...key, reviewer: "bob" }, { correct: true }, 2200);
      await s.putLabel({ ...key, trajectoryId: "t2" }, { correct: true }, 2300);
      expect(await s.putLabel({ ...key, labelSet: "nope" }, { correct: true }, 1)).toBeNull();
      expect(await s.putLabel({ ...key, trajectoryId: "nope" }, { correct: true }, 1)).toBeNull();

      const all = await s.listLabels({ labelSet: set.id });
      expect(all.map((l) => [l.trajectoryId, l.step, l.reviewer])).toEqual([
        ["t1", null, "ann"],
        ["t1", null, "bob"],
        ["t1", 2, "ann"],
        ["t2", null, "ann"],
      ]);
      expect((await s.listLabels({ trajectoryId: "t1", reviewer: "ann" })).map((l) => l.step)).toEqual([
        null,
        2,
      ]);
      expect(await s.listLabels({ reviewer: "carl" })).toEqual([]);
      expect(await s.deleteLabel({ ...key, step: 2 })).toBe(true);
      expect(await s.deleteLabel({ ...key, step: 2 })).toBe(false);
      // A trajectory deleted takes its labels with it.
      await s.delete("t2");
      expect((await s.listLabels({ labelSet: set.id })).map((l) => l.trajectoryId)).toEqual(["t1", "t1"]);
      // So does its label set.
      await s.deleteLabelSet(set.id);
      expect(await s.listLabels({})).toEqual([]);
    });

    it("a trajectory carries its labels with their sets; an import brings them, sets included", async () => {
      const s = await open();
      await s.importMany([trajectory("t1"), trajectory("plain")]);
      const set = await newSet(s, { id: "lsA" });
      await s.putLabel(
        { labelSet: set.id, trajectoryId: "t1", step: null, reviewer: "ann" },
        { correct: false },
        10,
      );
      await s.putLabel(
        { labelSet: set.id, trajectoryId: "t1", step: 1, reviewer: "ann" },
        { correct: true },
        11,
      );
      expect((await s.get("plain"))!.labels).toBeUndefined();
      const t = (await s.get("t1"))!;
      const ref = { id: "lsA", name: "verdict", target: "episode", schema: SCHEMA, verdict: "correct" };
      expect(t.labels).toEqual([
        { set: ref, step: null, reviewer: "ann", value: { correct: false }, created_at: 10, updated_at: 10 },
        { set: ref, step: 1, reviewer: "ann", value: { correct: true }, created_at: 11, updated_at: 11 },
      ]);

      const other = await open();
      expect(await other.importMany([t])).toEqual({ imported: ["t1"], skipped: [] });
      expect((await other.get("t1"))!.labels).toEqual(t.labels);
      expect(await other.getLabelSet("lsA")).toMatchObject({ server: "local", env: "math", name: "verdict" });
      // Imported again: skipped, labels unchanged.
      expect(await other.importMany([{ ...t, labels: [] }])).toEqual({ imported: [], skipped: ["t1"] });
      expect((await other.get("t1"))!.labels).toHaveLength(2);
    });

    it("retention keeps labelled trajectories (they count towards the cap)", async () => {
      const s = await open({ maxCount: 2, maxAgeDays: 0 });
      await s.importMany([trajectory("old", { started_at: 1 })]);
      const set = await newSet(s);
      await s.putLabel(
        { labelSet: set.id, trajectoryId: "old", step: null, reviewer: "ann" },
        { correct: true },
        5,
      );
      // Stored after "old": the first of them is the oldest one retention may remove.
      await s.importMany([trajectory("new1", { started_at: 2 })]);
      await s.importMany([trajectory("new2", { started_at: 3 })]);
      await s.enforceRetention(Date.now());
      expect((await s.list({ sort: "started_at", order: "asc" })).items.map((t) => t.id)).toEqual([
        "old",
        "new2",
      ]);
    });

    it("stores a queue with its assignments; lists each reviewer's items, progress, and what a deletion removes", async () => {
      const s = await open();
      await s.importMany(["a", "b", "c"].map((id) => trajectory(id)));
      const set = await newSet(s);
      const q = await s.createQueue({
        name: "review run R",
        labelSet: set.id,
        runId: "rR",
        blind: true,
        successAt: 1,
        items: [
          { trajectoryId: "a", reviewers: ["ann", "bob"] },
          { trajectoryId: "b", reviewers: ["bob"] },
          { trajectoryId: "c", reviewers: ["ann", "ann"] },
        ],
        createdAt: 500,
      });
      expect(q).toEqual({
        id: q.id,
        name: "review run R",
        labelSet: set.id,
        runId: "rR",
        blind: true,
        successAt: 1,
        reviewers: ["ann", "bob"],
        size: 3,
        createdAt: 500,
      });
      expect(await s.getQueue(q.id)).toEqual(q);
      expect(await s.getQueue("nope")).toBeNull();
      const other = await s.createQueue({
        name: "second",
        labelSet: set.id,
        runId: null,
        blind: false,
        successAt: 0.5,
        items: [{ trajectoryId: "c", reviewers: ["carl"] }],
        createdAt: 600,
      });
      expect((await s.listQueues()).map((x) => x.id)).toEqual([other.id, q.id]);
      expect((await s.listQueues({ runId: "rR" })).map((x) => x.id)).toEqual([q.id]);
      expect((await s.listQueues({ labelSet: "nope" })).map((x) => x.id)).toEqual([]);

      await s.putLabel(
        { labelSet: set.id, trajectoryId: "a", step: null, reviewer: "ann" },
        { correct: true },
        1,
      );
      // A label on a step counts as having labelled the episode; another set's labels do not.
      await s.putLabel(
        { labelSet: set.id, trajectoryId: "b", step: 1, reviewer: "bob" },
        { correct: true },
        2,
      );
      const elsewhere = await newSet(s, { name: "other" });
      await s.putLabel(
        { labelSet: elsewhere.id, trajectoryId: "c", step: null, reviewer: "ann" },
        { correct: true },
        3,
      );
      expect(await s.queueItems(q.id, { reviewer: "ann" })).toEqual([
        { position: 0, trajectoryId: "a", reviewer: "ann", labelled: true },
        { position: 2, trajectoryId: "c", reviewer: "ann", labelled: false },
      ]);
      expect((await s.queueItems(q.id)).map((i) => [i.position, i.reviewer, i.labelled])).toEqual([
        [0, "ann", true],
        [0, "bob", false],
        [1, "bob", true],
        [2, "ann", false],
      ]);
      expect(await s.queueProgress(q.id)).toEqual([
        { reviewer: "ann", assigned: 2, labelled: 1 },
        { reviewer: "bob", assigned: 2, labelled: 1 },
      ]);
      expect((await s.listLabels({ queue: q.id })).map((l) => [l.trajectoryId, l.reviewer])).toEqual([
        ["a", "ann"],
        ["b", "bob"],
      ]);
      await s.delete("a");
      expect((await s.getQueue(q.id))!.size).toBe(2);
      expect(await s.queueProgress(q.id)).toEqual([
        { reviewer: "ann", assigned: 1, labelled: 0 },
        { reviewer: "bob", assigned: 1, labelled: 1 },
      ]);
      expect(await s.deleteQueue(q.id)).toBe(true);
      expect(await s.deleteQueue(q.id)).toBe(false);
      expect(await s.queueItems(q.id)).toEqual([]);
      expect(await s.queueProgress(q.id)).toEqual([]);
    });

    it("refuses a queue on an unknown label set or episode, keeping nothing of it", async () => {
      const s = await open();
      await s.importMany([trajectory("a")]);
      const set = await newSet(s);
      const base = { name: "q", runId: null, blind: true, successAt: 1, createdAt: 1 };
      await expect(
        s.createQueue({ ...base, labelSet: "nope", items: [{ trajectoryId: "a", reviewers: ["ann"] }] }),
      ).rejects.toThrow();
      await expect(
        s.createQueue({
          ...base,
          labelSet: set.id,
          items: [
            { trajectoryId: "a", reviewers: ["ann"] },
            { trajectoryId: "gone", reviewers: ["ann"] },
          ],
        }),
      ).rejects.toThrow();
      expect(await s.listQueues()).toEqual([]);
    });

    it("creates share links, lists them newest first, revokes once, and records each player's run once", async () => {
      const s = await open();
      const link = {
        token: "tok-1",
        server: "local",
        env: "math",
        split: "train",
        tasks: [4, 0, 2],
        expiresAt: 9_000,
        note: "for the lab",
        createdAt: 100,
      };
      expect(await s.createShare(link)).toEqual({ ...link, revokedAt: null });
      await s.createShare({
        ...link,
        token: "tok-2",
        env: "guess",
        expiresAt: null,
        note: null,
        createdAt: 200,
      });
      await expect(s.createShare(link)).rejects.toThrow();
      expect(await s.getShare("tok-1")).toEqual({ ...link, revokedAt: null });
      expect(await s.getShare("nope")).toBeNull();
      expect((await s.listShares()).map((x) => x.token)).toEqual(["tok-2", "tok-1"]);
      expect((await s.listShares({ env: "math" })).map((x) => x.token)).toEqual(["tok-1"]);
      expect(await s.revokeShare("tok-1", 700)).toBe(true);
      expect(await s.revokeShare("tok-1", 800)).toBe(false);
      expect(await s.revokeShare("nope", 800)).toBe(false);
      expect((await s.getShare("tok-1"))!.revokedAt).toBe(700);

      expect(await s.sharePlayer("tok-2", "Ada")).toBeNull();
      expect(await s.addSharePlayer({ token: "tok-2", player: "Ada", runId: "r1", createdAt: 10 })).toBe(
        true,
      );
      expect(await s.addSharePlayer({ token: "tok-2", player: "Ada", runId: "r2", createdAt: 11 })).toBe(
        false,
      );
      expect(await s.addSharePlayer({ token: "tok-2", player: "Bo", runId: "r3", createdAt: 12 })).toBe(true);
      expect(await s.sharePlayer("tok-2", "Ada")).toEqual({
        token: "tok-2",
        player: "Ada",
        runId: "r1",
        createdAt: 10,
      });
      expect((await s.sharePlayers("tok-2")).map((p) => [p.player, p.runId])).toEqual([
        ["Ada", "r1"],
        ["Bo", "r3"],
      ]);
      expect(await s.sharePlayers("tok-1")).toEqual([]);
    });
  });
}
