// A step written in the SQLite store (the contract's `putStep`, and imports): the step row, and its
// trajectory's counters — the step count, the total reward (summed again only when a reward
// changed) and the last activity — in one transaction; and the recorder's batches (`writeBatch`).
import "server-only";
import type { TrajectoryStep } from "@/lib/trajectory/schema";
import { sumRewards } from "../../trajectory/reward";
import { STEP_COLUMNS, stepRowValues } from "../rows";
import type { BatchWrites } from "../types";
import { atomically, type Db, type Statements } from "./db";
import { addExchange } from "./exchanges";

/**
 * Writes a step (insert or replace by index) and refreshes its trajectory's counters, in one
 * transaction. `instance`: whose relay carries the call (null for imports).
 */
export function writeStep(
  db: Db,
  sql: Statements,
  id: string,
  step: TrajectoryStep,
  instance: string | null,
): void {
  atomically(db, () => {
    // What the step counted before: its counters change only when it is new or its reward changed,
    // so a long episode does not read all its steps again at every call.
    const before = sql("SELECT reward, after_end FROM steps WHERE trajectory_id = ? AND idx = ?").get(
      id,
      step.index,
    ) as { reward: number | null; after_end: number } | undefined;
    sql(
      `INSERT OR REPLACE INTO steps (${STEP_COLUMNS.join(", ")}) VALUES (${STEP_COLUMNS.map(() => "?").join(", ")})`,
    ).run(...stepRowValues(id, step, instance));
    const at = step.ended_at ?? step.started_at;
    // A step that adds nothing to the total (no reward, 0, or after the end) leaves the sum as it
    // was: 0 changes neither the compensated sum nor its scale (lib/trajectory/reward.ts).
    const counted = (reward: number | null, afterEnd: boolean) => (afterEnd ? 0 : (reward ?? 0));
    const same = before
      ? Object.is(counted(before.reward, before.after_end === 1), counted(step.reward, !!step.after_end))
      : counted(step.reward, !!step.after_end) === 0;
    if (same) {
      sql(
        `UPDATE trajectories SET num_steps = num_steps + @added, last_activity_at = MAX(last_activity_at, @at)
           WHERE id = @id`,
      ).run({ id, added: before ? 0 : 1, at });
      return;
    }
    // The total without float noise (as every view computes it), steps after the end left out.
    const rewards = sql("SELECT reward FROM steps WHERE trajectory_id = ? AND after_end = 0 ORDER BY idx")
      .pluck()
      .all(id) as (number | null)[];
    sql(
      `UPDATE trajectories SET
           num_steps = num_steps + @added,
           total_reward = @total,
           last_activity_at = MAX(last_activity_at, @at)
         WHERE id = @id`,
    ).run({ id, added: before ? 0 : 1, total: sumRewards(rewards), at });
  });
}

/**
 * The recorder's batch (the contract's `writeBatch`): its steps and protocol log entries in one
 * transaction; those of a trajectory that is gone are skipped (its entries' seq: null).
 */
export function writeBatch(db: Db, sql: Statements, w: BatchWrites, instance: string): (number | null)[] {
  const known = new Map<string, boolean>();
  const exists = (id: string) => {
    let e = known.get(id);
    if (e === undefined) {
      e = !!sql("SELECT 1 FROM trajectories WHERE id = ?").get(id);
      known.set(id, e);
    }
    return e;
  };
  return db.transaction(() => {
    for (const { id, step } of w.steps) if (exists(id)) writeStep(db, sql, id, step, instance);
    return w.exchanges.map((x) => (exists(x.id) ? addExchange(db, sql, x.id, x.exchange, x.limit) : null));
  })();
}
