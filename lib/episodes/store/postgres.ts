// The team-scale trajectory store: the TrajectoryStore contract (./types.ts) over PostgreSQL, shared
// by app replicas, with the SQLite store's rows and semantics (./sqlite.ts). Each trajectory and step
// names the replica that wrote it, so that replicas never end each other's live episodes.
import "server-only";
import pg from "pg";
import {
  type EndReason,
  type Trajectory,
  type TrajectoryFilter,
  type TrajectoryOrigin,
  type TrajectoryStep,
  type TrajectorySummary,
  taskLabel,
} from "@/lib/episodes/schema";
import type { Block } from "@/lib/ors/protocol";
import { sumRewards } from "../reward";
import { APPLICATION_NAME_PREFIX, type PostgresDatabase } from "./postgres-db";
import {
  escapeLike,
  newTrajectoryId,
  retentionFromEnv,
  SORT_COLUMNS,
  type StepRow,
  type TrajRow,
  toStep,
  toSummary,
  toTrajectory,
} from "./sqlite";
import type { NewTrajectory, RetentionOptions, TrajectoryStore } from "./types";

// pg_try_advisory_xact_lock key: one replica applies retention at a time, the others skip it.
const RETENTION_LOCK = 0x4f525350_02;

/** `replica` is alive while any connection carries its application_name (a killed one's are gone). */
const REPLICA_GONE = `(replica IS NULL OR NOT EXISTS (
  SELECT 1 FROM pg_stat_activity a WHERE a.application_name = '${APPLICATION_NAME_PREFIX}' || trajectories.replica))`;

const STEP_COLUMNS = `trajectory_id, idx, tool, input_json, task_id, started_at, ended_at, latency_ms, ok, error,
  blocks_json, reward, finished, metadata_json, events_json, replay_json, after_end, truncated_json, replica`;

export class PostgresTrajectoryStore implements TrajectoryStore {
  readonly db: PostgresDatabase;
  readonly retention: RetentionOptions;

  constructor(db: PostgresDatabase, retention: RetentionOptions = retentionFromEnv()) {
    this.db = db;
    this.retention = retention;
  }

  private query<R extends pg.QueryResultRow>(text: string, values: unknown[] = []) {
    return this.db.use(() => this.db.pool.query<R>(text, values));
  }

  private tx<T>(fn: (c: pg.PoolClient) => Promise<T>): Promise<T> {
    return this.db.transaction(fn);
  }

  async close(): Promise<void> {
    await this.db.close();
  }

  async create(t: NewTrajectory): Promise<string> {
    const id = t.id ?? newTrajectoryId();
    await this.query(
      `INSERT INTO trajectories (id, server, env, sid, task_json, task_label, started_at, last_activity_at,
         origin_json, stored_at, replica)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $7, $8, $9, $10)`,
      [
        id,
        t.server,
        t.env,
        t.sid,
        t.task ? JSON.stringify(t.task) : null,
        taskLabel(t.task),
        t.startedAt,
        t.origin ? JSON.stringify(t.origin) : null,
        Date.now(),
        this.db.replica,
      ],
    );
    await this.retain(Date.now());
    return id;
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

  /** The recorded prompt of a trajectory (the live feeds read it for watchers on other replicas). */
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
        await writeStep(c, id, step, this.db.replica, { begin: true, commit: true });
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

  /**
   * Indices of the steps whose calls another live replica is carrying now (pending, written by it):
   * a watcher here shows them as running, not as cut.
   */
  async inflightElsewhere(id: string): Promise<number[]> {
    const r = await this.query<{ idx: number }>(
      `SELECT idx FROM steps s WHERE s.trajectory_id = $1 AND s.ok IS NULL AND s.replica <> $2
         AND EXISTS (SELECT 1 FROM pg_stat_activity a WHERE a.application_name = '${APPLICATION_NAME_PREFIX}' || s.replica)
       ORDER BY idx`,
      [id, this.db.replica],
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

  /**
   * Ends the running trajectories of a server that this replica recorded, or that a replica no
   * longer running recorded: the built-in host of another live replica still has its sessions.
   */
  async endRunningOf(server: string, reason: EndReason, at: number, error: string | null): Promise<string[]> {
    const r = await this.query<{ id: string }>(
      `UPDATE trajectories SET end_reason = $1, ended_at = $2, error = $3
       WHERE server = $4 AND end_reason IS NULL AND (replica = $5 OR ${REPLICA_GONE})
       RETURNING id`,
      [reason, at, error, server, this.db.replica],
    );
    return r.rows.map((x) => x.id);
  }

  /** Ends the running trajectories of a server recorded by replicas that are gone (not this one). */
  async endOrphanedOf(
    server: string,
    reason: EndReason,
    at: number,
    error: string | null,
  ): Promise<string[]> {
    const r = await this.query<{ id: string }>(
      `UPDATE trajectories SET end_reason = $1, ended_at = $2, error = $3
       WHERE server = $4 AND end_reason IS NULL AND replica IS DISTINCT FROM $5 AND ${REPLICA_GONE}
       RETURNING id`,
      [reason, at, error, server, this.db.replica],
    );
    return r.rows.map((x) => x.id);
  }

  /**
   * As the contract says; for `local` only this replica's own: another replica's built-in host is
   * another server under the same name, whose sessions this replica cannot reach (a request for one
   * through this replica's relay, answered "unknown session" here, must not end its episode).
   */
  async findRunning(server: string, sid: string): Promise<TrajectorySummary | null> {
    const r = await this.query<TrajRow>(
      `SELECT * FROM trajectories WHERE server = $1 AND sid = $2 AND end_reason IS NULL
         AND ($1 <> 'local' OR replica IS NOT DISTINCT FROM $3)
       ORDER BY started_at DESC, seq DESC LIMIT 1`,
      [server, sid, this.db.replica],
    );
    return r.rows[0] ? toSummary(r.rows[0]) : null;
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
      const r = await c.query<TrajRow>("SELECT * FROM trajectories WHERE id = $1", [id]);
      if (!r.rows[0]) return null;
      const steps = await c.query<StepRow>("SELECT * FROM steps WHERE trajectory_id = $1 ORDER BY idx", [id]);
      return toTrajectory(r.rows[0], steps.rows.map(toStep));
    });
  }

  private where(f: TrajectoryFilter): { sql: string; params: unknown[] } {
    const clauses: string[] = [];
    const params: unknown[] = [];
    const p = (v: unknown) => {
      params.push(v);
      return `$${params.length}`;
    };
    if (f.server) clauses.push(`server = ${p(f.server)}`);
    if (f.env) clauses.push(`env = ${p(f.env)}`);
    if (f.task)
      clauses.push(
        `(task_label = ${p(f.task)} OR task_label ILIKE ${p(`%${escapeLike(f.task)}%`)} ESCAPE '\\')`,
      );
    if (f.end_reason === "running") clauses.push("end_reason IS NULL");
    else if (f.end_reason) clauses.push(`end_reason = ${p(f.end_reason)}`);
    if (f.golden !== undefined) clauses.push(f.golden ? "golden = 1" : "golden = 0");
    if (f.min_reward != null) clauses.push(`total_reward >= ${p(f.min_reward)}`);
    if (f.max_reward != null) clauses.push(`total_reward <= ${p(f.max_reward)}`);
    if (f.q) {
      // ILIKE: SQLite's LIKE ignores ASCII case, and the search reads the same on both stores.
      const q = p(`%${escapeLike(f.q)}%`);
      const like = (col: string) => `${col} ILIKE ${q} ESCAPE '\\'`;
      clauses.push(
        `(${["id", "server", "env", "sid", "task_label", "error", "prompt_json"].map(like).join(" OR ")}
          OR EXISTS (SELECT 1 FROM steps s WHERE s.trajectory_id = trajectories.id AND
            (${["s.tool", "s.input_json", "s.blocks_json"].map(like).join(" OR ")})))`,
      );
    }
    return { sql: clauses.length ? `WHERE ${clauses.join(" AND ")}` : "", params };
  }

  /** The SQLite store's order: NULLs first going up, last going down; text compared bytewise. */
  private orderBy(f: TrajectoryFilter): string {
    const col = SORT_COLUMNS[f.sort ?? "started_at"] ?? "started_at";
    const asc = (f.order ?? "desc") === "asc";
    const dir = asc ? "ASC NULLS FIRST" : "DESC NULLS LAST";
    const text = col === "env" || col === "server" ? ' COLLATE "C"' : "";
    return `ORDER BY ${col}${text} ${dir}, started_at ${dir}, id COLLATE "C" ${dir}`;
  }

  async list(f: TrajectoryFilter = {}): Promise<{ items: TrajectorySummary[]; total: number }> {
    const { sql, params } = this.where(f);
    const total = await this.query<{ n: number }>(
      `SELECT COUNT(*)::int AS n FROM trajectories ${sql}`,
      params,
    );
    const n = params.length;
    const rows = await this.query<TrajRow>(
      `SELECT * FROM trajectories ${sql} ${this.orderBy(f)} LIMIT $${n + 1} OFFSET $${n + 2}`,
      [...params, f.limit ?? 200, f.offset ?? 0],
    );
    return { items: rows.rows.map(toSummary), total: total.rows[0]!.n };
  }

  async *iterate(f: TrajectoryFilter = {}): AsyncGenerator<Trajectory> {
    const { sql, params } = this.where(f);
    const n = params.length;
    const ids = await this.query<{ id: string }>(
      `SELECT id FROM trajectories ${sql} ${this.orderBy(f)} LIMIT $${n + 1} OFFSET $${n + 2}`,
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
        const r = await c.query(
          `INSERT INTO trajectories (id, server, env, sid, task_json, task_label, prompt_json, started_at,
             ended_at, last_activity_at, end_reason, error, origin_json, stored_at, reprompts_json, golden)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16)
           ON CONFLICT (id) DO NOTHING`,
          [
            t.id,
            t.server,
            t.env,
            t.sid,
            t.task ? JSON.stringify(t.task) : null,
            taskLabel(t.task),
            t.prompt ? JSON.stringify(t.prompt) : null,
            t.started_at,
            t.ended_at ?? t.steps.filter((s) => !s.after_end).at(-1)?.ended_at ?? t.started_at,
            t.ended_at ?? t.started_at,
            t.end_reason ?? "error",
            t.end_reason ? t.error : (t.error ?? "the episode was still running when it was exported"),
            JSON.stringify(t.origin ?? { kind: "import", from: t.id }),
            Date.now(),
            t.reprompts?.length ? JSON.stringify(t.reprompts) : null,
            t.golden ? 1 : 0,
          ],
        );
        if (r.rowCount === 0) {
          skipped.push(t.id);
          continue;
        }
        for (const s of t.steps) await writeStep(c, t.id, s, null);
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

  /** As the SQLite store (first stored first; running and golden ones kept); one replica at a time. */
  private async retain(now: number): Promise<number> {
    const { maxAgeDays, maxCount } = this.retention;
    if (maxAgeDays <= 0 && maxCount <= 0) return 0;
    // One statement (it runs at every new trajectory): the age cap, then the count cap over what is left.
    const r = await this.query<{ removed: number }>(
      `WITH lock AS (SELECT pg_try_advisory_xact_lock($1) AS ok),
       aged AS (
         DELETE FROM trajectories
         WHERE $2::float8 > 0 AND (SELECT ok FROM lock) AND end_reason IS NOT NULL AND golden = 0
           AND stored_at < $3
         RETURNING id),
       capped AS (
         DELETE FROM trajectories WHERE id IN (
           SELECT id FROM trajectories
           WHERE $4::float8 > 0 AND (SELECT ok FROM lock) AND end_reason IS NOT NULL AND golden = 0
             AND id NOT IN (SELECT id FROM aged)
           ORDER BY stored_at ASC, seq ASC
           LIMIT GREATEST(CEIL((SELECT COUNT(*) FROM trajectories) - (SELECT COUNT(*) FROM aged) - $4::float8), 0)::bigint)
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
}

const STEP_UPDATES = STEP_COLUMNS.split(",")
  .map((col) => col.trim())
  .filter((col) => col !== "trajectory_id" && col !== "idx")
  .map((col) => `${col} = EXCLUDED.${col}`)
  .join(", ");

/** Upserts a step and reads back every step's reward as it now stands (the new one included). */
const UPSERT_STEP = `WITH written AS (
    INSERT INTO steps (${STEP_COLUMNS}) VALUES (${Array.from({ length: 19 }, (_, i) => `$${i + 1}`).join(", ")})
    ON CONFLICT (trajectory_id, idx) DO UPDATE SET ${STEP_UPDATES}
    RETURNING idx, reward, after_end)
  SELECT idx, reward, after_end FROM steps WHERE trajectory_id = $1 AND idx <> $2
  UNION ALL SELECT idx, reward, after_end FROM written
  ORDER BY idx`;

/** A number as an SQL literal (float8 takes the special values by name). */
const num = (x: number) => (Number.isFinite(x) ? String(x) : `'${x}'::float8`);

/**
 * Writes a step (insert or replace) and refreshes the counters, in a transaction: the caller's, or
 * one begun and committed here (`begin`/`commit` ride on the first and last statements).
 * `replica`: the one whose relay carries the call (null for imports).
 */
async function writeStep(
  c: pg.PoolClient,
  id: string,
  step: TrajectoryStep,
  replica: string | null,
  tx: { begin?: boolean; commit?: boolean } = {},
): Promise<void> {
  // Steps of one trajectory are written one at a time, whichever replica writes them.
  const lock = `SELECT 1 FROM trajectories WHERE id = ${pg.escapeLiteral(id)} FOR UPDATE`;
  const locked = await c.query(tx.begin ? `BEGIN; ${lock}` : lock);
  const found = Array.isArray(locked) ? locked.at(-1) : locked;
  if (!found?.rowCount) throw new Error(`no trajectory with id "${id}" to write a step to`);
  const rows = await c.query<{ idx: number; reward: number | null; after_end: number }>(UPSERT_STEP, [
    id,
    step.index,
    step.tool,
    JSON.stringify(step.input),
    step.task_id,
    step.started_at,
    step.ended_at,
    step.latency_ms,
    step.ok == null ? null : step.ok ? 1 : 0,
    step.error,
    JSON.stringify(step.blocks),
    step.reward,
    step.finished ? 1 : 0,
    step.metadata ? JSON.stringify(step.metadata) : null,
    JSON.stringify(step.events),
    step.replay ? JSON.stringify(step.replay) : null,
    step.after_end ? 1 : 0,
    step.truncated ? JSON.stringify(step.truncated) : null,
    replica,
  ]);
  // The total without float noise (as every view computes it), steps after the end left out.
  const total = sumRewards(rows.rows.filter((r) => !r.after_end).map((r) => r.reward));
  await c.query(
    `UPDATE trajectories SET num_steps = ${rows.rowCount ?? 0}, total_reward = ${num(total)},
       last_activity_at = GREATEST(last_activity_at, ${num(step.ended_at ?? step.started_at)})
     WHERE id = ${pg.escapeLiteral(id)}${tx.commit ? "; COMMIT" : ""}`,
  );
}

/** Opens the store on a database (see ./postgres-db.ts). */
export function openPostgresStore(
  db: PostgresDatabase,
  retention?: RetentionOptions,
): PostgresTrajectoryStore {
  return new PostgresTrajectoryStore(db, retention ?? retentionFromEnv());
}
