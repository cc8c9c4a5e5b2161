// The PostgreSQL store's SQL for rows (./store.ts): a step written with its trajectory's counters
// in one transaction, and the list filters and order as SQLite reads them (../rows.ts), in
// PostgreSQL's dialect (numbered parameters, ILIKE, bytewise collation).
import "server-only";
import pg from "pg";
import type { TrajectoryFilter, TrajectoryStep } from "@/lib/trajectory/schema";
import { sumRewards } from "../../trajectory/reward";
import { filterWhere, numberedParams, SORT_COLUMNS, STEP_COLUMNS, stepRowValues } from "../rows";
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

/** The WHERE clause of the list and export filters in PostgreSQL, with its numbered parameters. */
export function whereOf(f: TrajectoryFilter): { sql: string; params: unknown[] } {
  const { bind, params } = numberedParams();
  return { sql: filterWhere(f, bind, "ILIKE"), params };
}

/** The SQLite store's order: NULLs first going up, last going down; text compared bytewise. */
export function orderByOf(f: TrajectoryFilter): string {
  const col = SORT_COLUMNS[f.sort ?? "started_at"] ?? "started_at";
  const asc = (f.order ?? "desc") === "asc";
  const dir = asc ? "ASC NULLS FIRST" : "DESC NULLS LAST";
  const text = col === "env" || col === "server" ? ' COLLATE "C"' : "";
  return `ORDER BY ${col}${text} ${dir}, started_at ${dir}, id COLLATE "C" ${dir}`;
}
