// The embedded SQLite store on real files in temp dirs: the TrajectoryStore contract (conformance
// suite), plus what is SQLite's own: WAL mode, migrations of an older file, refusing a newer one.
import fs from "node:fs";
import path from "node:path";
import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { MIGRATIONS, migrate, openDb, SCHEMA_VERSION, schemaVersion } from "@/lib/store/sqlite/db";
import { openStore } from "@/lib/store/sqlite/store";
import { INTERRUPTED_STEP_ERROR } from "@/lib/store/types";
import { tempDir } from "../episodes/helpers";
import { describeTrajectoryStore, type OpenStore } from "./conformance";
import { describeReviewStore } from "./conformance-review";
import { describeRunStore } from "./conformance-runs";
import { describeBatchWrites } from "./conformance-writes";

const openSqlite: OpenStore = async (retention) => {
  const dir = tempDir();
  return {
    store: openStore({ dir, retention }),
    as: async (instance) => openStore({ dir, retention, instance }),
    cleanup: () => fs.rmSync(dir, { recursive: true, force: true }),
  };
};

describeTrajectoryStore("SQLite", openSqlite);
describeBatchWrites("SQLite", openSqlite);
describeRunStore("SQLite", openSqlite);
describeReviewStore("SQLite", openSqlite);

describe("SQLite file", () => {
  it("creates the data dir and the file on first use, in WAL mode", async () => {
    const dir = path.join(tempDir(), "nested", "data");
    const s = openStore({ dir, retention: { maxCount: 0, maxAgeDays: 0 } });
    expect(fs.existsSync(path.join(dir, "trajectories.sqlite"))).toBe(true);
    expect(s.db.pragma("journal_mode", { simple: true })).toBe("wal");
    expect(schemaVersion(s.db)).toBe(SCHEMA_VERSION);
    await s.close();
  });

  it("migrates an older file on reopen and keeps its data", async () => {
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
    const again = openStore({ file, retention: { maxCount: 0, maxAgeDays: 0 } });
    expect((await again.summary("keep"))?.server).toBe("local");
    expect((await again.get("keep"))?.steps).toEqual([]);
    await again.close();
  });

  it("refuses a file from a newer build", () => {
    const file = path.join(tempDir(), "new.sqlite");
    const db = openDb(file);
    db.prepare("UPDATE schema_version SET version = 99").run();
    db.close();
    expect(() => openDb(file)).toThrow(/schema version 99/);
  });

  it("episodes recorded before instances existed (an older file) are recovered as a dead process's", async () => {
    const file = path.join(tempDir(), "legacy.sqlite");
    const db = new Database(file);
    migrate(db, MIGRATIONS.slice(0, 6));
    const insert = db.prepare(
      "INSERT INTO trajectories (id, server, sid, task_label, started_at, last_activity_at) VALUES (?, ?, ?, 'unknown', 1, 1)",
    );
    insert.run("onLocal", "local", "l");
    insert.run("onPy", "py", "p");
    db.prepare(
      `INSERT INTO steps (trajectory_id, idx, tool, input_json, started_at, blocks_json, events_json)
       VALUES ('onPy', 1, 'wait', '{}', 1, '[]', '[]')`,
    ).run();
    db.close();
    const s = openStore({ file, retention: { maxCount: 0, maxAgeDays: 0 } });
    const r = await s.recoverOrphans(10, { everyMs: 5_000, staleMs: 60_000, alive: () => true });
    expect(r.ended.map((e) => [e.id, e.reason])).toEqual([["onLocal", "error"]]);
    expect(r.steps).toEqual([{ id: "onPy", index: 1 }]);
    expect((await s.get("onPy"))?.steps[0]).toMatchObject({ ok: false, error: INTERRUPTED_STEP_ERROR });
    expect((await s.summary("onPy"))?.end_reason).toBeNull();
    await s.close();
  });
});
