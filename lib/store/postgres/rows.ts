// The PostgreSQL store's SQL for rows (./store.ts): a step written with its trajectory's counters
// in one transaction, and the list filters and order as SQLite reads them (../rows.ts), in
// PostgreSQL's dialect (numbered parameters, ILIKE, bytewise collation).
import "server-only";
import pg from "pg";
import type { TrajectoryFilter, TrajectoryStep } from "@/lib/trajectory/schema";
import { sumRewards } from "../../trajectory/reward";
import { escapeLike, SORT_COLUMNS, STEP_COLUMNS, stepRowValues } from "../rows";
import { pgValue } from "./write-batch";

const STEP_UPDATES = STEP_COLUMNS.filter((col) => col !== "trajectory_id" && col !== "idx")
  .map((col) => `${col} = EXCLUDED.${col}`)
  .join(", ");

/** Upserts a step and reads back every step's reward as it now stands (the new one included). */
const UPSERT_STEP = `WITH written AS (
    INSERT INTO steps (${STEP_COLUMNS.join(", ")}) VALUES (${STEP_COLUMNS.map((_, i) => `$${i + 1}`).join(", ")})
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
 * `instance`: the one whose relay carries the call (null for imports).
 */
export async function writeStep(
  c: pg.PoolClient,
  id: string,
  step: TrajectoryStep,
  instance: string | null,
  tx: { begin?: boolean; commit?: boolean } = {},
): Promise<void> {
  // Steps of one trajectory are written one at a time, whichever replica writes them.
  const lock = `SELECT 1 FROM trajectories WHERE id = ${pg.escapeLiteral(id)} FOR UPDATE`;
  const locked = await c.query(tx.begin ? `BEGIN; ${lock}` : lock);
  const found = Array.isArray(locked) ? locked.at(-1) : locked;
  if (!found?.rowCount) throw new Error(`no trajectory with id "${id}" to write a step to`);
  const rows = await c.query<{ idx: number; reward: number | null; after_end: number }>(
    UPSERT_STEP,
    stepRowValues(id, step, instance).map(pgValue),
  );
  // The total without float noise (as every view computes it), steps after the end left out.
  const total = sumRewards(rows.rows.filter((r) => !r.after_end).map((r) => r.reward));
  await c.query(
    `UPDATE trajectories SET num_steps = ${rows.rowCount ?? 0}, total_reward = ${num(total)},
       last_activity_at = GREATEST(last_activity_at, ${num(step.ended_at ?? step.started_at)})
     WHERE id = ${pg.escapeLiteral(id)}${tx.commit ? "; COMMIT" : ""}`,
  );
}

/** The WHERE clause of the list and export filters, with its parameters. */
export function whereOf(f: TrajectoryFilter): { sql: string; params: unknown[] } {
  const clauses: string[] = [];
  const params: unknown[] = [];
  const p = (v: unknown) => {
    params.push(v);
    return `$${params.length}`;
  };
  if (f.server) clauses.push(`server = ${p(f.server)}`);
  if (f.env) clauses.push(`env = ${p(f.env)}`);
  if (f.run) clauses.push(`run_id = ${p(f.run)}`);
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
export function orderByOf(f: TrajectoryFilter): string {
  const col = SORT_COLUMNS[f.sort ?? "started_at"] ?? "started_at";
  const asc = (f.order ?? "desc") === "asc";
  const dir = asc ? "ASC NULLS FIRST" : "DESC NULLS LAST";
  const text = col === "env" || col === "server" ? ' COLLATE "C"' : "";
  return `ORDER BY ${col}${text} ${dir}, started_at ${dir}, id COLLATE "C" ${dir}`;
}
