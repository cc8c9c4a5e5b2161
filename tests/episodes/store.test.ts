// The trajectory store on a real SQLite file in a temp dir: CRUD, step writes, filters,
// retention, migrations on a reopened file, import all-or-nothing.
import fs from "node:fs";
import path from "node:path";
import Database from "better-sqlite3";
import { afterEach, describe, expect, it, vi } from "vitest";
import { MIGRATIONS, migrate, openDb, SCHEMA_VERSION, schemaVersion } from "@/lib/episodes/store/db";
import { openStore, type TrajectoryStore } from "@/lib/episodes/store/sqlite";
import { step, tempDir, trajectory } from "./helpers";

const open: TrajectoryStore[] = [];
function store(dir = tempDir(), retention = { maxCount: 0, maxAgeDays: 0 }) {
  const s = openStore({ dir, retention });
  open.push(s);
  return s;
}
afterEach(() => {
  for (const s of open.splice(0)) if (s.db.open) s.close();
});

describe("store", () => {
  it("creates the data dir and the file on first use, in WAL mode", () => {
    const dir = path.join(tempDir(), "nested", "data");
    const s = store(dir);
    expect(fs.existsSync(path.join(dir, "trajectories.sqlite"))).toBe(true);
    expect(s.db.pragma("journal_mode", { simple: true })).toBe("wal");
    expect(schemaVersion(s.db)).toBe(SCHEMA_VERSION);
  });

  it("writes a trajectory step by step and reads it back in the export format", () => {
    const s = store();
    const id = s.create({
      server: "local",
      sid: "s1",
      env: "math",
      task: { split: "train", index: 2 },
      startedAt: 10,
    });
    s.setPrompt(id, [{ type: "text", text: "hi" }], 11);
    s.putStep(id, step(1, { ok: null, ended_at: null, latency_ms: null, reward: null, blocks: [] }));
    let t = s.get(id)!;
    expect(t.steps).toHaveLength(1);
    expect(t.steps[0].ok).toBeNull();
    expect(t.end_reason).toBeNull();
    s.putStep(id, step(1, { reward: 0.5 }));
    s.putStep(id, step(2, { reward: 1, finished: true }));
    expect(s.end(id, "finished", 500)).toBe(true);
    expect(s.end(id, "user_closed", 600)).toBe(false);
    t = s.get(id)!;
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
    expect(t.steps[0].events[0]).toEqual({ t: 1, kind: "event", event: "task_id", data: "task-1" });
    expect(s.findBySession("local", "s1")?.id).toBe(id);
    expect(s.findRunning("local", "s1")).toBeNull();
    expect(s.delete(id)).toBe(true);
    expect(s.get(id)).toBeNull();
  });

  it("filters, searches and sorts the list", () => {
    const s = store();
    s.importMany([
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
    const ids = (f: Parameters<TrajectoryStore["list"]>[0]) => s.list(f).items.map((x) => x.id);
    expect(ids({})).toEqual(["c3", "b2", "a1"]);
    expect(ids({ order: "asc" })).toEqual(["a1", "b2", "c3"]);
    expect(ids({ env: "math" })).toEqual(["c3", "a1"]);
    expect(ids({ server: "second" })).toEqual(["b2"]);
    expect(ids({ end_reason: "timeout" })).toEqual(["c3"]);
    expect(ids({ min_reward: 1, max_reward: 2.5 })).toEqual(["a1"]);
    expect(ids({ task: "train/3" })).toEqual(["c3", "a1"]);
    expect(ids({ task: "secret" })).toEqual(["b2"]);
    expect(ids({ q: "banana" })).toEqual(["b2"]);
    expect(ids({ q: "100%" })).toEqual([]);
    expect(ids({ sort: "total_reward", order: "desc" })).toEqual(["c3", "a1", "b2"]);
    expect(ids({ limit: 1, offset: 1 })).toEqual(["b2"]);
    expect(s.list({ limit: 1 }).total).toBe(3);
    expect([...s.iterate({ env: "math" })].map((t) => t.id)).toEqual(["c3", "a1"]);
  });

  it("imports all or nothing and skips ids that already exist", () => {
    const s = store();
    expect(s.importMany([trajectory("x1")])).toEqual({ imported: ["x1"], skipped: [] });
    expect(s.importMany([trajectory("x1"), trajectory("x2")])).toEqual({ imported: ["x2"], skipped: ["x1"] });
    // A failure in the middle (a step with a NOT NULL column missing) rolls back the whole batch.
    const bad = trajectory("x4");
    (bad.steps[1] as { tool: unknown }).tool = null;
    expect(() => s.importMany([trajectory("x3"), bad])).toThrow();
    expect(s.get("x3")).toBeNull();
    expect(s.get("x4")).toBeNull();
    expect(s.get("x1")?.origin).toEqual({ kind: "import", from: "x1" });
  });

  it("retention: a count cap and an age cap, never touching running episodes", () => {
    const dir = tempDir();
    const s = store(dir, { maxCount: 3, maxAgeDays: 1 });
    const now = Date.now();
    const running = s.create({
      server: "local",
      sid: "r",
      env: "math",
      task: null,
      startedAt: now - 3 * 86_400_000,
    });
    vi.spyOn(Date, "now").mockReturnValue(now);
    for (let i = 0; i < 5; i++) {
      s.importMany([trajectory(`t${i}`, { started_at: now - (5 - i) * 1000 })]);
    }
    vi.restoreAllMocks();
    expect(s.list({}).total).toBe(3);
    expect(s.get(running)).not.toBeNull();
    expect(s.get("t0")).toBeNull();
    expect(s.get("t4")).not.toBeNull();
    // The age cap counts from when a trajectory entered the store (an old import is kept), and the
    // count cap removes the first stored, even when it entered in the same millisecond as others.
    const clock = vi.spyOn(Date, "now").mockReturnValue(now);
    s.importMany([trajectory("old", { started_at: now - 2 * 86_400_000 })]);
    clock.mockRestore();
    expect(s.get("old")).not.toBeNull();
    // ...and removes ended ones a day later, but never the running one.
    expect(s.enforceRetention(now + 86_400_000 + 60_000)).toBe(2);
    expect(s.list({}).items.map((x) => x.id)).toEqual([running]);
  });

  it("sweeps idle running episodes to timeout", () => {
    const s = store();
    const id = s.create({ server: "local", sid: "s", env: "math", task: null, startedAt: 1000 });
    s.touch(id, 5000);
    expect(s.sweepIdle(5000 + 999, 1000)).toEqual([]);
    expect(s.sweepIdle(5000 + 1001, 1000)).toEqual([id]);
    expect(s.summary(id)).toMatchObject({ end_reason: "timeout", ended_at: 6000 });
  });

  it("ends every running trajectory of one server (the built-in host after a restart)", () => {
    const s = store();
    const a = s.create({ server: "local", sid: "a", env: "math", task: null, startedAt: 1 });
    const b = s.create({ server: "py", sid: "b", env: "math", task: null, startedAt: 1 });
    expect(s.endRunningOf("local", "error", 50, "lost")).toEqual([a]);
    expect(s.summary(a)).toMatchObject({ end_reason: "error", error: "lost", ended_at: 50 });
    expect(s.summary(b)?.end_reason).toBeNull();
  });

  it("migrates an older file on reopen and keeps its data", () => {
    const file = path.join(tempDir(), "old.sqlite");
    const v1 = new Database(file);
    migrate(v1, MIGRATIONS.slice(0, 1));
    v1.prepare(
      "INSERT INTO trajectories (id, server, task_label, started_at, last_activity_at) VALUES ('keep', 'local', 'unknown', 1, 1)",
    ).run();
    expect(schemaVersion(v1)).toBe(1);
    v1.close();
    const db = openDb(file);
    expect(schemaVersion(db)).toBe(SCHEMA_VERSION);
    const indexes = db.prepare("SELECT name FROM sqlite_master WHERE type = 'index'").all() as {
      name: string;
    }[];
    expect(indexes.map((i) => i.name)).toContain("trajectories_session");
    db.close();
    const s = store(path.dirname(file));
    s.close();
    const again = openStore({ file, retention: { maxCount: 0, maxAgeDays: 0 } });
    open.push(again);
    expect(again.summary("keep")?.server).toBe("local");
  });

  it("refuses a file from a newer build", () => {
    const file = path.join(tempDir(), "new.sqlite");
    const db = openDb(file);
    db.prepare("UPDATE schema_version SET version = 99").run();
    db.close();
    expect(() => openDb(file)).toThrow(/schema version 99/);
  });
});
