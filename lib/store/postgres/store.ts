// The team-scale store: the PlaygroundStore contract (../types.ts) over PostgreSQL, shared by app
// replicas, with the SQLite store's rows and semantics (../rows.ts, ../sqlite/store.ts): trajectories here,
// runs in ./runs.ts, reviews in ./review.ts, leases and recovery in ./recovery.ts. Each trajectory and
// step names the instance (replica) that wrote it, so that replicas never end each other's live episodes.
import "server-only";
import { createHash } from "node:crypto";
import os from "node:os";
import type pg from "pg";
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
  type StepRow,
  type TrajRow,
  toStep,
  toSummary,
  toTrajectory,
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
import type { PostgresDatabase } from "./db";
import { addExchange, listExchanges } from "./exchanges";
import { beat, recoverOrphans } from "./recovery";
import { importLabels, PostgresReviewStore, trajectoryLabels } from "./review";
import { orderByOf, whereOf, writeStep } from "./rows";
import { pgValue, writeBatch } from "./write-batch";

// pg_try_advisory_xact_lock key: one replica applies retention at a time, the others skip it.
const RETENTION_LOCK = 0x4f525350_02;

/** Kept by retention whatever the caps: running, golden, labelled, or a run's episode (kept with its run). */
const RETAINED =
  "(end_reason IS NULL OR golden = 1 OR (run_id IS NOT NULL AND run_id IN (SELECT id FROM runs)) OR id IN (SELECT trajectory_id FROM labels))";

export class PostgresTrajectoryStore extends PostgresReviewStore implements PlaygroundStore {
  readonly db: PostgresDatabase;
  readonly retention: RetentionOptions;
  readonly instance: StoreInstance;

  constructor(db: PostgresDatabase, retention: RetentionOptions, instance: StoreInstance) {
    super();
    this.db = db;
    this.retention = retention;
    this.instance = instance;
  }

  private tx<T>(fn: (c: pg.PoolClient) => Promise<T>): Promise<T> {
    return this.db.transaction(fn);
  }

  async close(): Promise<void> {
    await this.db.close();
  }

  async create(t: NewTrajectory): Promise<string> {
    const id = t.id ?? newTrajectoryId();
    const tools = t.tools ? await this.toolSet(t.tools) : null;
    const row = insertOf("trajectories", newTrajectoryRow(id, t, this.instance.id, tools), true);
    await this.query(row.sql, row.values);
    // A run's episode does not count towards the cap: nothing to remove for it.
    if (!t.run) await this.retain(Date.now());
    return id;
  }

  /** Tool sets known to be stored (a few distinct sets serve thousands of episodes). */
  private readonly toolSets = new Map<string, string>();

  /** Stores a set of tool specs once (on `c`, in its transaction, when given); returns its key. */
  private async toolSet(tools: ToolSpec[], c?: pg.PoolClient): Promise<string> {
    const json = JSON.stringify(tools);
    const known = this.toolSets.get(json);
    if (known) return known;
    const hash = createHash("sha256").update(json).digest("base64url");
    const insert = "INSERT INTO tool_sets (hash, tools_json) VALUES ($1, $2) ON CONFLICT (hash) DO NOTHING";
    if (c) await c.query(insert, [hash, json]);
    else await this.query(insert, [hash, json]);
    // Remembered only once surely stored (not inside a transaction that may roll back).
    if (!c) {
      if (this.toolSets.size > 64) this.toolSets.clear();
      this.toolSets.set(json, hash);
    }
    return hash;
  }

  async setTools(id: string, tools: ToolSpec[]): Promise<void> {
    const hash = await this.toolSet(tools);
    await this.query(
      "UPDATE trajectories SET tools_hash = $1 WHERE id = $2 AND tools_hash IS DISTINCT FROM $1",
      [hash, id],
    );
  }

  async addExchange(id: string, x: NewExchange, limit: ExchangeLimit): Promise<number | null> {
    return addExchange(this.db, id, x, limit);
  }

  async writeBatch(w: BatchWrites): Promise<(number | null)[]> {
    return writeBatch(this.db, w, this.instance.id);
  }

  async exchanges(id: string, o: { after?: number } = {}): Promise<ExchangeList | null> {
    return listExchanges(this.db, id, o.after);
  }

  async setAgentEnd(id: string, end: AgentEnd): Promise<void> {
    await this.query("UPDATE trajectories SET agent_end_json = $1 WHERE id = $2", [JSON.stringify(end), id]);
  }

  async setPrompt(id: string, blocks: Block[], at: number): Promise<void> {
    await this.query(
      "UPDATE trajectories SET prompt_json = $1, last_activity_at = GREATEST(last_activity_at, $2) WHERE id = $3",
      [JSON.stringify(blocks), at, id],
    );
  }

  async addReprompt(id: string, at: number, same: boolean): Promise<void> {
    await this.query(
      `UPDATE trajectories SET
         reprompts_json = (COALESCE(reprompts_json, '[]')::jsonb || $1::jsonb)::text,
         last_activity_at = GREATEST(last_activity_at, $2)
       WHERE id = $3`,
      [JSON.stringify([{ at, same }]), at, id],
    );
  }

  async hasPrompt(id: string): Promise<boolean> {
    const r = await this.query("SELECT 1 FROM trajectories WHERE id = $1 AND prompt_json IS NOT NULL", [id]);
    return r.rowCount! > 0;
  }

  /** The recorded prompt alone (the episode page; the live feeds read it for other replicas' watchers). */
  async promptOf(id: string): Promise<Block[] | null> {
    const r = await this.query<{ prompt_json: string | null }>(
      "SELECT prompt_json FROM trajectories WHERE id = $1",
      [id],
    );
    const json = r.rows[0]?.prompt_json;
    return json ? (JSON.parse(json) as Block[]) : null;
  }

  async setEnv(id: string, env: string): Promise<void> {
    await this.query("UPDATE trajectories SET env = $1 WHERE id = $2 AND env IS NULL", [env, id]);
  }

  async setOrigin(id: string, origin: TrajectoryOrigin): Promise<void> {
    await this.query("UPDATE trajectories SET origin_json = $1 WHERE id = $2", [JSON.stringify(origin), id]);
  }

  async setGolden(id: string, golden: boolean): Promise<boolean> {
    const r = await this.query("UPDATE trajectories SET golden = $1 WHERE id = $2", [golden ? 1 : 0, id]);
    return r.rowCount! > 0;
  }

  async touch(id: string, at: number): Promise<void> {
    await this.query(
      "UPDATE trajectories SET last_activity_at = GREATEST(last_activity_at, $1) WHERE id = $2",
      [at, id],
    );
  }

  async putStep(id: string, step: TrajectoryStep): Promise<void> {
    // The recorder writes a step at each start and end of a call: three round trips, not six.
    await this.db.withClient(async (c) => {
      try {
        await writeStep(c, id, step, this.instance.id, { begin: true, commit: true });
      } catch (err) {
        await c.query("ROLLBACK").catch(() => {});
        throw err;
      }
    });
  }

  /** One step as stored (the live feeds read it for watchers on other replicas), or null. */
  async stepOf(id: string, index: number): Promise<TrajectoryStep | null> {
    const r = await this.query<StepRow>(`SELECT * FROM steps WHERE trajectory_id = $1 AND idx = $2`, [
      id,
      index,
    ]);
    return r.rows[0] ? toStep(r.rows[0]) : null;
  }

  async inflightElsewhere(id: string): Promise<number[]> {
    const r = await this.query<{ idx: number }>(
      `SELECT idx FROM steps WHERE trajectory_id = $1 AND ok IS NULL AND instance_id <> $2 ORDER BY idx`,
      [id, this.instance.id],
    );
    return r.rows.map((x) => x.idx);
  }

  async setStepReplay(id: string, index: number, mark: TrajectoryStep["replay"]): Promise<void> {
    await this.query("UPDATE steps SET replay_json = $1 WHERE trajectory_id = $2 AND idx = $3", [
      mark ? JSON.stringify(mark) : null,
      id,
      index,
    ]);
  }

  async end(id: string, reason: EndReason, at: number, error: string | null = null): Promise<boolean> {
    const r = await this.query(
      "UPDATE trajectories SET end_reason = $1, ended_at = $2, error = $3 WHERE id = $4 AND end_reason IS NULL",
      [reason, at, error, id],
    );
    return r.rowCount! > 0;
  }

  /** As the contract says: for `local`, this instance's only (another replica's host has its own sessions). */
  async endRunningOf(server: string, reason: EndReason, at: number, error: string | null): Promise<string[]> {
    const r = await this.query<{ id: string }>(
      `UPDATE trajectories SET end_reason = $1, ended_at = $2, error = $3
       WHERE server = $4 AND end_reason IS NULL AND ($4 <> 'local' OR instance_id = $5)
       RETURNING id`,
      [reason, at, error, server, this.instance.id],
    );
    return r.rows.map((x) => x.id);
  }

  /** As the contract says; for `local` only this instance's. */
  async findRunning(server: string, sid: string): Promise<TrajectorySummary | null> {
    const r = await this.query<TrajRow>(
      `SELECT * FROM trajectories WHERE server = $1 AND sid = $2 AND end_reason IS NULL
         AND ($1 <> 'local' OR instance_id IS NOT DISTINCT FROM $3)
       ORDER BY started_at DESC, seq DESC LIMIT 1`,
      [server, sid, this.instance.id],
    );
    return r.rows[0] ? toSummary(r.rows[0]) : null;
  }

  async findRunningMany(
    sessions: { server: string; sid: string }[],
  ): Promise<Map<string, TrajectorySummary>> {
    const found = new Map<string, TrajectorySummary>();
    if (sessions.length === 0) return found;
    const r = await this.query<TrajRow>(
      `SELECT DISTINCT ON (server, sid) * FROM trajectories
       WHERE (server, sid) IN (SELECT * FROM unnest($1::text[], $2::text[])) AND end_reason IS NULL
         AND (server <> 'local' OR instance_id IS NOT DISTINCT FROM $3)
       ORDER BY server, sid, started_at DESC, seq DESC`,
      [sessions.map((s) => pgValue(s.server)), sessions.map((s) => pgValue(s.sid)), this.instance.id],
    );
    for (const row of r.rows) found.set(`${row.server}\n${row.sid}`, toSummary(row));
    return found;
  }

  async findBySession(server: string, sid: string): Promise<TrajectorySummary | null> {
    const r = await this.query<TrajRow>(
      `SELECT * FROM trajectories WHERE server = $1 AND sid = $2
         AND (origin_json IS NULL OR (origin_json::jsonb ->> 'kind') IS DISTINCT FROM 'import')
       ORDER BY started_at DESC, seq DESC LIMIT 1`,
      [server, sid],
    );
    return r.rows[0] ? toSummary(r.rows[0]) : null;
  }

  async summary(id: string): Promise<TrajectorySummary | null> {
    const r = await this.query<TrajRow>("SELECT * FROM trajectories WHERE id = $1", [id]);
    return r.rows[0] ? toSummary(r.rows[0]) : null;
  }

  async get(id: string): Promise<Trajectory | null> {
    // One snapshot: the trajectory and its steps as of the same moment.
    return this.tx(async (c) => {
      await c.query("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY");
      const r = await c.query<TrajRow & { tools_json: string | null }>(
        `SELECT t.*, ts.tools_json FROM trajectories t LEFT JOIN tool_sets ts ON ts.hash = t.tools_hash
         WHERE t.id = $1`,
        [id],
      );
      const row = r.rows[0];
      if (!row) return null;
      const steps = await c.query<StepRow>("SELECT * FROM steps WHERE trajectory_id = $1 ORDER BY idx", [id]);
      const tools = row.tools_json ? (JSON.parse(row.tools_json) as ToolSpec[]) : null;
      const t = toTrajectory(row, steps.rows.map(toStep), tools);
      const labels = await trajectoryLabels(c, id);
      if (labels.length) t.labels = labels;
      return t;
    });
  }

  async list(f: TrajectoryFilter = {}): Promise<{ items: TrajectorySummary[]; total: number }> {
    const { sql, params } = whereOf(f);
    const total = await this.query<{ n: number }>(
      `SELECT COUNT(*)::int AS n FROM trajectories ${sql}`,
      params,
    );
    const n = params.length;
    const rows = await this.query<TrajRow>(
      `SELECT * FROM trajectories ${sql} ${orderByOf(f)} LIMIT $${n + 1} OFFSET $${n + 2}`,
      [...params, f.limit ?? 200, f.offset ?? 0],
    );
    return { items: rows.rows.map(toSummary), total: total.rows[0]!.n };
  }

  async *iterate(f: TrajectoryFilter = {}): AsyncGenerator<Trajectory> {
    const { sql, params } = whereOf(f);
    const n = params.length;
    const ids = await this.query<{ id: string }>(
      `SELECT id FROM trajectories ${sql} ${orderByOf(f)} LIMIT $${n + 1} OFFSET $${n + 2}`,
      [...params, f.limit ?? null, f.offset ?? 0],
    );
    for (const { id } of ids.rows) {
      const t = await this.get(id);
      if (t) yield t;
    }
  }

  async running(): Promise<TrajectorySummary[]> {
    const r = await this.query<TrajRow>(
      "SELECT * FROM trajectories WHERE end_reason IS NULL ORDER BY last_activity_at DESC LIMIT 500",
    );
    return r.rows.map(toSummary);
  }

  /** As the SQLite store: one transaction, all or nothing; ids that exist are skipped. */
  async importMany(trajectories: Trajectory[]): Promise<{ imported: string[]; skipped: string[] }> {
    const imported: string[] = [];
    const skipped: string[] = [];
    await this.tx(async (c) => {
      for (const t of trajectories) {
        const tools = t.tools ? await this.toolSet(t.tools, c) : null;
        const row = insertOf(
          "trajectories",
          importedTrajectoryRow(t, tools),
          true,
          "ON CONFLICT (id) DO NOTHING",
        );
        const r = await c.query(row.sql, row.values);
        if (r.rowCount === 0) {
          skipped.push(t.id);
          continue;
        }
        for (const s of t.steps) await writeStep(c, t.id, s, null);
        await importLabels(c, t);
        imported.push(t.id);
      }
    });
    if (imported.length) await this.retain(Date.now());
    return { imported, skipped };
  }

  async delete(id: string): Promise<boolean> {
    const r = await this.query("DELETE FROM trajectories WHERE id = $1", [id]);
    return r.rowCount! > 0;
  }

  async enforceRetention(now: number): Promise<number> {
    return this.retain(now);
  }

  /**
   * As the SQLite store (first stored first; running, golden, labelled and runs' episodes kept, runs' not
   * counted); one replica at a time.
   */
  private async retain(now: number): Promise<number> {
    const { maxAgeDays, maxCount } = this.retention;
    if (maxAgeDays <= 0 && maxCount <= 0) return 0;
    // One statement (it runs at every new trajectory): the age cap, then the count cap over what is
    // left. Every part sees the table as it was before the statement: the aged are subtracted.
    const r = await this.query<{ removed: number }>(
      `WITH lock AS (SELECT pg_try_advisory_xact_lock($1) AS ok),
       aged AS (
         DELETE FROM trajectories
         WHERE $2::float8 > 0 AND (SELECT ok FROM lock) AND NOT ${RETAINED} AND stored_at < $3
         RETURNING id),
       capped AS (
         DELETE FROM trajectories WHERE id IN (
           SELECT id FROM trajectories
           WHERE $4::float8 > 0 AND (SELECT ok FROM lock) AND NOT ${RETAINED}
             AND id NOT IN (SELECT id FROM aged)
           ORDER BY stored_at ASC, seq ASC
           LIMIT GREATEST(CEIL((SELECT COUNT(*) FROM trajectories
             WHERE run_id IS NULL OR run_id NOT IN (SELECT id FROM runs))
             - (SELECT COUNT(*) FROM aged) - $4::float8), 0)::bigint)
         RETURNING id)
       SELECT ((SELECT COUNT(*) FROM aged) + (SELECT COUNT(*) FROM capped))::int AS removed`,
      [RETENTION_LOCK, maxAgeDays, now - maxAgeDays * 86_400_000, maxCount],
    );
    return r.rows[0]!.removed;
  }

  async sweepIdle(now: number, idleMs: number): Promise<string[]> {
    const r = await this.query<{ id: string }>(
      `UPDATE trajectories SET end_reason = 'timeout', ended_at = last_activity_at + $1,
         error = 'no activity for longer than the idle timeout'
       WHERE end_reason IS NULL AND last_activity_at < $2
       RETURNING id`,
      [idleMs, now - idleMs],
    );
    return r.rows.map((x) => x.id);
  }

  async beat(at: number): Promise<void> {
    await beat(this.db, this.instance, at);
  }

  async recoverOrphans(at: number, o: OrphanRecovery): Promise<RecoveredOrphans> {
    return recoverOrphans(this.db, this.instance.id, at, o);
  }
}

/**
 * Opens the store on a database (see ./db.ts), for `instance` (default: this process,
 * under the database's replica id, which names its connections).
 */
export function openPostgresStore(
  db: PostgresDatabase,
  retention?: RetentionOptions,
  instance?: StoreInstance,
): PostgresTrajectoryStore {
  return new PostgresTrajectoryStore(
    db,
    retention ?? DEFAULT_RETENTION,
    instance ?? { id: db.replica, pid: process.pid, host: os.hostname() },
  );
}
