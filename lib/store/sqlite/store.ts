// The embedded store: the PlaygroundStore contract (../types.ts) over one SQLite file — trajectories
// written step by step, list filters, import, retention, leases and recovery after a crash — and
// runs (./runs.ts) and reviews (./review.ts) beside them. better-sqlite3 is synchronous and fast; the methods are async
// only to honour the contract. One per process (lib/playground.ts).
import "server-only";
import { createHash } from "node:crypto";
import os from "node:os";
import path from "node:path";
import type { Block, ToolSpec } from "@/lib/ors/protocol";
import type {
  AgentEnd,
  EndReason,
  ExchangeList,
  NewExchange,
  Trajectory,
  TrajectoryFilter,
  TrajectoryOrigin,
  TrajectoryStep,
  TrajectorySummary,
} from "@/lib/trajectory/schema";
import {
  DEFAULT_RETENTION,
  importedTrajectoryRow,
  insertOf,
  newTrajectoryId,
  newTrajectoryRow,
  orderByOf,
  type StepRow,
  type TrajRow,
  toStep,
  toSummary,
  toTrajectory,
  whereOf,
} from "../rows";
import type {
  BatchWrites,
  ExchangeLimit,
  NewTrajectory,
  OrphanRecovery,
  PlaygroundStore,
  RecoveredOrphans,
  RetentionOptions,
  StoreInstance,
} from "../types";
import { type Db, dataDir, openDb, type Statements, statementCache } from "./db";
import { addExchange, listExchanges } from "./exchanges";
import { recoverOrphans } from "./recovery";
import { importLabels, SqliteReviewStore, trajectoryLabels } from "./review";
import { writeBatch, writeStep } from "./steps";

/** A store handle's instance when none is given: this process. */
export function processInstance(id: string): StoreInstance {
  return { id, pid: process.pid, host: os.hostname() };
}

/**
 * Trajectories that retention never removes: running, golden, labelled (people's work), or a run's
 * episodes (kept with the run).
 */
const RETAINED =
  "end_reason IS NULL OR golden = 1 OR (run_id IS NOT NULL AND run_id IN (SELECT id FROM runs)) OR id IN (SELECT trajectory_id FROM labels)";

export class SqliteTrajectoryStore extends SqliteReviewStore implements PlaygroundStore {
  readonly db: Db;
  readonly retention: RetentionOptions;
  protected readonly sql: Statements;

  readonly instance: StoreInstance;

  constructor(db: Db, retention: RetentionOptions, instance: StoreInstance) {
    super();
    this.db = db;
    this.retention = retention;
    this.instance = instance;
    this.sql = statementCache(db);
  }

  async close(): Promise<void> {
    this.db.close();
  }

  /** Starts a trajectory (no steps yet); enforces retention. Returns its id. */
  async create(t: NewTrajectory): Promise<string> {
    const id = t.id ?? newTrajectoryId();
    const tools = t.tools ? this.toolSet(t.tools) : null;
    const row = insertOf("trajectories", newTrajectoryRow(id, t, this.instance.id, tools), false);
    this.sql(row.sql).run(...row.values);
    // A run's episode does not count towards the cap: nothing to remove for it.
    if (!t.run) this.retain(Date.now());
    return id;
  }

  /** Tool sets known to be stored (a few distinct sets serve thousands of episodes). */
  private readonly toolSets = new Map<string, string>();

  /** Stores a set of tool specs once; returns its key. */
  private toolSet(tools: ToolSpec[]): string {
    const json = JSON.stringify(tools);
    const known = this.toolSets.get(json);
    if (known) return known;
    const hash = createHash("sha256").update(json).digest("base64url");
    this.sql("INSERT OR IGNORE INTO tool_sets (hash, tools_json) VALUES (?, ?)").run(hash, json);
    if (this.toolSets.size > 64) this.toolSets.clear();
    this.toolSets.set(json, hash);
    return hash;
  }

  async setTools(id: string, tools: ToolSpec[]): Promise<void> {
    // No write when the episode already has this set (it usually started with it).
    this.sql("UPDATE trajectories SET tools_hash = ? WHERE id = ? AND tools_hash IS NOT ?").run(
      this.toolSet(tools),
      id,
      this.toolSet(tools),
    );
  }

  async batch<T>(fn: () => Promise<T>): Promise<T> {
    // Nested (a batch already open, or a transaction): the outer one commits.
    if (this.db.inTransaction) return fn();
    // Prepared once (exec would parse them at every batch).
    this.sql("BEGIN").run();
    try {
      return await fn();
    } finally {
      if (this.db.inTransaction) this.sql("COMMIT").run();
    }
  }

  async addExchange(id: string, x: NewExchange, limit: ExchangeLimit): Promise<number | null> {
    return addExchange(this.db, this.sql, id, x, limit);
  }

  async writeBatch(w: BatchWrites): Promise<(number | null)[]> {
    return writeBatch(this.db, this.sql, w, this.instance.id);
  }

  async exchanges(id: string, o: { after?: number } = {}): Promise<ExchangeList | null> {
    return listExchanges(this.sql, id, o.after);
  }

  async setAgentEnd(id: string, end: AgentEnd): Promise<void> {
    this.sql("UPDATE trajectories SET agent_end_json = ? WHERE id = ?").run(JSON.stringify(end), id);
  }

  async setPrompt(id: string, blocks: Block[], at: number): Promise<void> {
    this.sql(
      "UPDATE trajectories SET prompt_json = ?, last_activity_at = MAX(last_activity_at, ?) WHERE id = ?",
    ).run(JSON.stringify(blocks), at, id);
  }

  async addReprompt(id: string, at: number, same: boolean): Promise<void> {
    this.sql(
      `UPDATE trajectories SET
           reprompts_json = json_insert(COALESCE(reprompts_json, '[]'), '$[#]', json(?)),
           last_activity_at = MAX(last_activity_at, ?)
         WHERE id = ?`,
    ).run(JSON.stringify({ at, same }), at, id);
  }

  async hasPrompt(id: string): Promise<boolean> {
    return !!this.sql("SELECT 1 FROM trajectories WHERE id = ? AND prompt_json IS NOT NULL").get(id);
  }

  async promptOf(id: string): Promise<Block[] | null> {
    const json = this.sql("SELECT prompt_json FROM trajectories WHERE id = ?").pluck().get(id);
    return typeof json === "string" ? (JSON.parse(json) as Block[]) : null;
  }

  async setEnv(id: string, env: string): Promise<void> {
    this.sql("UPDATE trajectories SET env = ? WHERE id = ? AND env IS NULL").run(env, id);
  }

  async setOrigin(id: string, origin: TrajectoryOrigin): Promise<void> {
    this.sql("UPDATE trajectories SET origin_json = ? WHERE id = ?").run(JSON.stringify(origin), id);
  }

  async setGolden(id: string, golden: boolean): Promise<boolean> {
    return this.sql("UPDATE trajectories SET golden = ? WHERE id = ?").run(golden ? 1 : 0, id).changes > 0;
  }

  async touch(id: string, at: number): Promise<void> {
    this.sql("UPDATE trajectories SET last_activity_at = MAX(last_activity_at, ?) WHERE id = ?").run(at, id);
  }

  /** Writes a step (insert or replace) and refreshes the trajectory's counters. */
  async putStep(id: string, step: TrajectoryStep): Promise<void> {
    this.writeStep(id, step, this.instance.id);
  }

  /** `instance`: whose relay carries the call (null for imports). */
  private writeStep(id: string, step: TrajectoryStep, instance: string | null): void {
    writeStep(this.db, this.sql, id, step, instance);
  }

  async setStepReplay(id: string, index: number, mark: TrajectoryStep["replay"]): Promise<void> {
    this.sql("UPDATE steps SET replay_json = ? WHERE trajectory_id = ? AND idx = ?").run(
      mark ? JSON.stringify(mark) : null,
      id,
      index,
    );
  }

  /** Ends a running trajectory. Returns false when it had already ended (nothing changes). */
  async end(id: string, reason: EndReason, at: number, error: string | null = null): Promise<boolean> {
    return this.endSync(id, reason, at, error);
  }

  private endSync(id: string, reason: EndReason, at: number, error: string | null): boolean {
    const r = this.sql(
      "UPDATE trajectories SET end_reason = ?, ended_at = ?, error = ? WHERE id = ? AND end_reason IS NULL",
    ).run(reason, at, error, id);
    return r.changes > 0;
  }

  /** Ends every running trajectory of a server (for `local`, this instance's only). */
  async endRunningOf(server: string, reason: EndReason, at: number, error: string | null): Promise<string[]> {
    const ids = (
      this.sql(
        `SELECT id FROM trajectories WHERE server = @server AND end_reason IS NULL
           AND (@server != 'local' OR instance_id IS @self)`,
      ).all({ server, self: this.instance.id }) as { id: string }[]
    ).map((r) => r.id);
    return ids.filter((id) => this.endSync(id, reason, at, error));
  }

  /** The running trajectory of a session (the newest, if several; for `local`, this instance's), or null. */
  async findRunning(server: string, sid: string): Promise<TrajectorySummary | null> {
    const r = this.sql(
      `SELECT * FROM trajectories WHERE server = @server AND sid = @sid AND end_reason IS NULL
         AND (@server != 'local' OR instance_id IS @self)
       ORDER BY started_at DESC, rowid DESC LIMIT 1`,
    ).get({ server, sid, self: this.instance.id }) as TrajRow | undefined;
    return r ? toSummary(r) : null;
  }

  async findRunningMany(
    sessions: { server: string; sid: string }[],
  ): Promise<Map<string, TrajectorySummary>> {
    const found = new Map<string, TrajectorySummary>();
    for (const { server, sid } of sessions) {
      const t = await this.findRunning(server, sid);
      if (t) found.set(`${server}\n${sid}`, t);
    }
    return found;
  }

  async inflightElsewhere(id: string): Promise<number[]> {
    return this.sql(
      `SELECT idx FROM steps WHERE trajectory_id = ? AND ok IS NULL AND instance_id IS NOT NULL
         AND instance_id != ? ORDER BY idx`,
    )
      .pluck()
      .all(id, this.instance.id) as number[];
  }

  /** The newest trajectory of a session, running or ended (imports excluded), or null. */
  async findBySession(server: string, sid: string): Promise<TrajectorySummary | null> {
    const r = this.sql(
      `SELECT * FROM trajectories WHERE server = ? AND sid = ?
           AND (origin_json IS NULL OR json_extract(origin_json, '$.kind') != 'import')
         ORDER BY started_at DESC LIMIT 1`,
    ).get(server, sid) as TrajRow | undefined;
    return r ? toSummary(r) : null;
  }

  async summary(id: string): Promise<TrajectorySummary | null> {
    const r = this.sql("SELECT * FROM trajectories WHERE id = ?").get(id) as TrajRow | undefined;
    return r ? toSummary(r) : null;
  }

  /** A whole trajectory in the export format, or null. */
  async get(id: string): Promise<Trajectory | null> {
    return this.getSync(id);
  }

  private getSync(id: string): Trajectory | null {
    const r = this.sql("SELECT * FROM trajectories WHERE id = ?").get(id) as TrajRow | undefined;
    return r ? this.hydrate(r) : null;
  }

  private hydrate(r: TrajRow): Trajectory {
    const steps = (
      this.sql("SELECT * FROM steps WHERE trajectory_id = ? ORDER BY idx").all(r.id) as StepRow[]
    ).map(toStep);
    const tools = r.tools_hash
      ? this.sql("SELECT tools_json FROM tool_sets WHERE hash = ?").pluck().get(r.tools_hash)
      : null;
    const t = toTrajectory(r, steps, typeof tools === "string" ? (JSON.parse(tools) as ToolSpec[]) : null);
    const labels = trajectoryLabels(this.sql, r.id);
    if (labels.length) t.labels = labels;
    return t;
  }

  /** Summaries matching the filters, newest first by default, with the total count. */
  async list(f: TrajectoryFilter = {}): Promise<{ items: TrajectorySummary[]; total: number }> {
    const { sql, params } = whereOf(f);
    const total = (this.sql(`SELECT COUNT(*) AS n FROM trajectories ${sql}`).get(params) as { n: number }).n;
    const rows = this.sql(
      `SELECT * FROM trajectories ${sql} ${orderByOf(f)} LIMIT @limit OFFSET @offset`,
    ).all({ ...params, limit: f.limit ?? 200, offset: f.offset ?? 0 }) as TrajRow[];
    return { items: rows.map(toSummary), total };
  }

  /** Every matching trajectory in the export format, one at a time (for JSONL export). */
  async *iterate(f: TrajectoryFilter = {}): AsyncGenerator<Trajectory> {
    const { sql, params } = whereOf(f);
    const ids = this.sql(
      `SELECT id FROM trajectories ${sql} ${orderByOf(f)} LIMIT @limit OFFSET @offset`,
    ).all({ ...params, limit: f.limit ?? -1, offset: f.offset ?? 0 }) as { id: string }[];
    for (const { id } of ids) {
      const t = this.getSync(id);
      if (t) yield t;
    }
  }

  /** Running trajectories (no end reason yet), newest activity first. */
  async running(): Promise<TrajectorySummary[]> {
    return (
      this.sql(
        "SELECT * FROM trajectories WHERE end_reason IS NULL ORDER BY last_activity_at DESC LIMIT 500",
      ).all() as TrajRow[]
    ).map(toSummary);
  }

  /**
   * Imports trajectories in one transaction: all or nothing. Ids that already exist are skipped
   * (importing the same file twice is a no-op). Imports are marked `origin.kind = "import"` unless
   * they carry an origin; a trajectory exported while running is stored as ended with `error`.
   */
  async importMany(trajectories: Trajectory[]): Promise<{ imported: string[]; skipped: string[] }> {
    const imported: string[] = [];
    const skipped: string[] = [];
    const exists = this.sql("SELECT 1 FROM trajectories WHERE id = ?");
    const tx = this.db.transaction(() => {
      for (const t of trajectories) {
        if (exists.get(t.id)) {
          skipped.push(t.id);
          continue;
        }
        const tools = t.tools ? this.toolSet(t.tools) : null;
        const row = insertOf("trajectories", importedTrajectoryRow(t, tools), false);
        this.sql(row.sql).run(...row.values);
        for (const s of t.steps) this.writeStep(t.id, s, null);
        importLabels(this.sql, t);
        imported.push(t.id);
      }
    });
    tx();
    if (imported.length) this.retain(Date.now());
    return { imported, skipped };
  }

  async delete(id: string): Promise<boolean> {
    return this.sql("DELETE FROM trajectories WHERE id = ?").run(id).changes > 0;
  }

  /**
   * Deletes ended trajectories beyond the count cap (first stored first; ties within a millisecond
   * by insertion order) and those stored longer ago than the age cap (an import's age counts from
   * its import). Running ones are never deleted, nor golden ones (they are regression tests'
   * references, kept until unmarked), nor labelled ones; they count towards the cap all the same. A run's episodes
   * are kept as long as their run (deleting the run deletes them) and do not count.
   */
  async enforceRetention(now: number): Promise<number> {
    return this.retain(now);
  }

  private retain(now: number): number {
    let removed = 0;
    const { maxAgeDays, maxCount } = this.retention;
    if (maxAgeDays > 0) {
      const cutoff = now - maxAgeDays * 86_400_000;
      removed += this.sql(
        `DELETE FROM trajectories WHERE NOT (${RETAINED}) AND COALESCE(stored_at, started_at) < ?`,
      ).run(cutoff).changes;
    }
    if (maxCount > 0) {
      const n = this.sql(
        "SELECT COUNT(*) FROM trajectories WHERE run_id IS NULL OR run_id NOT IN (SELECT id FROM runs)",
      )
        .pluck()
        .get() as number;
      if (n > maxCount) {
        removed += this.sql(
          `DELETE FROM trajectories WHERE id IN (
               SELECT id FROM trajectories WHERE NOT (${RETAINED})
               ORDER BY COALESCE(stored_at, started_at) ASC, rowid ASC LIMIT ?)`,
        ).run(n - maxCount).changes;
      }
    }
    return removed;
  }

  /** Ends as `timeout` every running trajectory with no activity for longer than `idleMs`. */
  async sweepIdle(now: number, idleMs: number): Promise<string[]> {
    const rows = this.sql(
      "SELECT id, last_activity_at FROM trajectories WHERE end_reason IS NULL AND last_activity_at < ?",
    ).all(now - idleMs) as { id: string; last_activity_at: number }[];
    const ended: string[] = [];
    for (const r of rows) {
      if (
        this.endSync(
          r.id,
          "timeout",
          r.last_activity_at + idleMs,
          "no activity for longer than the idle timeout",
        )
      )
        ended.push(r.id);
    }
    return ended;
  }

  async beat(at: number): Promise<void> {
    const i = this.instance;
    this.sql(
      `INSERT INTO instances (id, pid, host, started_at, beat_at) VALUES (?, ?, ?, ?, ?)
         ON CONFLICT(id) DO UPDATE SET beat_at = MAX(beat_at, excluded.beat_at)`,
    ).run(i.id, i.pid, i.host, at, at);
  }

  async recoverOrphans(at: number, o: OrphanRecovery): Promise<RecoveredOrphans> {
    return recoverOrphans(
      this.db,
      this.sql,
      at,
      { ...o, self: this.instance.id },
      (id, reason, when, error) => this.endSync(id, reason, when, error),
    );
  }
}

/**
 * Opens a store on a file (tests) or in a data directory, for `instance` (default: this process,
 * under a new id).
 */
export function openStore(
  opts: { file?: string; dir?: string; retention?: RetentionOptions; instance?: StoreInstance } = {},
): SqliteTrajectoryStore {
  const file = opts.file ?? path.join(opts.dir ?? dataDir({}), "trajectories.sqlite");
  return new SqliteTrajectoryStore(
    openDb(file),
    opts.retention ?? DEFAULT_RETENTION,
    opts.instance ?? processInstance(`i${newTrajectoryId()}`),
  );
}
