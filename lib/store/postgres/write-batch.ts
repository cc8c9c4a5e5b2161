// The recorder's writes of a batch in PostgreSQL (the contract's `writeBatch`, ../types.ts): every
// step and protocol log entry of a batch of concurrent calls in one transaction of a few multi-row
// statements (arrays unnested), however many there are — the trajectories locked in one order, the
// steps upserted at once, each trajectory's counters and log numbers written once.
import "server-only";
import pg from "pg";
import { sumRewards } from "../../trajectory/reward";
import type { TrajectoryStep } from "../../trajectory/schema";
import { EXCHANGE_COLUMNS, exchangeChars, exchangeValues, STEP_COLUMNS, stepRowValues } from "../rows";
import type { BatchWrites } from "../types";
import type { PostgresDatabase } from "./db";

/** The type of each steps column, for its array. */
const STEP_TYPES: Record<(typeof STEP_COLUMNS)[number], string> = {
  trajectory_id: "text",
  idx: "int4",
  tool: "text",
  input_json: "text",
  task_id: "text",
  started_at: "float8",
  ended_at: "float8",
  latency_ms: "float8",
  ok: "int2",
  error: "text",
  blocks_json: "text",
  reward: "float8",
  finished: "int2",
  metadata_json: "text",
  events_json: "text",
  replay_json: "text",
  after_end: "int2",
  truncated_json: "text",
  agent_json: "text",
  instance_id: "text",
  origin_json: "text",
};
const EXCHANGE_TYPES = [
  "float8",
  "float8",
  "text",
  "text",
  "int4",
  "text",
  "text",
  "int8",
  "int2",
  "text",
  "text",
  "int8",
  "int2",
];

const arrays = (types: string[], from = 1) => types.map((t, i) => `$${i + from}::${t}[]`).join(", ");
const STEP_ARRAYS = STEP_COLUMNS.map((c) => STEP_TYPES[c]);
const EXCHANGE_ARRAYS = ["text", "int4", ...EXCHANGE_TYPES];
const COUNTER_ARRAYS = ["text", "int4", "int8", "int4"];
/** What a step adds to its trajectory's total: nothing after the end. */
const COUNTED = (s: string) => `CASE WHEN ${s}.after_end = 1 THEN 0 ELSE COALESCE(${s}.reward, 0) END`;

/**
 * The batch in one statement: the steps upserted (what they replace read first, in the same
 * snapshot), the exchanges inserted, each trajectory's counters moved; it returns the trajectories
 * whose total reward changed (their totals are summed again after it).
 */
const WRITE = `WITH k AS (
    SELECT * FROM unnest(${arrays(STEP_ARRAYS)}) AS k(${STEP_COLUMNS.join(", ")})),
  prev AS (
    SELECT s.trajectory_id, s.idx, s.reward, s.after_end FROM steps s JOIN k USING (trajectory_id, idx)),
  up AS (
    INSERT INTO steps (${STEP_COLUMNS.join(", ")}) SELECT * FROM k
    ON CONFLICT (trajectory_id, idx) DO UPDATE SET ${STEP_COLUMNS.filter(
      (c) => c !== "trajectory_id" && c !== "idx",
    )
      .map((c) => `${c} = EXCLUDED.${c}`)
      .join(", ")}),
  ex AS (
    INSERT INTO exchanges (trajectory_id, seq, ${EXCHANGE_COLUMNS})
    SELECT * FROM unnest(${arrays(EXCHANGE_ARRAYS, STEP_ARRAYS.length + 1)})),
  moved AS (
    SELECT k.trajectory_id AS id, (count(*) FILTER (WHERE p.idx IS NULL))::int4 AS added,
      max(COALESCE(k.ended_at, k.started_at)) AS at,
      bool_or(CASE WHEN p.idx IS NULL THEN ${COUNTED("k")} <> 0
                   ELSE ${COUNTED("k")} IS DISTINCT FROM ${COUNTED("p")} END) AS changed
    FROM k LEFT JOIN prev p USING (trajectory_id, idx) GROUP BY k.trajectory_id),
  logged AS (
    SELECT * FROM unnest(${arrays(COUNTER_ARRAYS, STEP_ARRAYS.length + EXCHANGE_ARRAYS.length + 1)})
      AS x(id, ecount, echars, edropped)),
  moves AS (SELECT COALESCE(m.id, l.id) AS id, m.added, m.at, l.ecount, l.echars, l.edropped
    FROM moved m FULL JOIN logged l ON l.id = m.id),
  upd AS (
    UPDATE trajectories t SET
      num_steps = t.num_steps + COALESCE(x.added, 0),
      last_activity_at = GREATEST(t.last_activity_at, COALESCE(x.at, t.last_activity_at)),
      exchanges_count = COALESCE(x.ecount, t.exchanges_count),
      exchanges_chars = COALESCE(x.echars, t.exchanges_chars),
      exchanges_dropped = t.exchanges_dropped + COALESCE(x.edropped, 0)
    FROM moves x WHERE t.id = x.id)
  SELECT id FROM moved WHERE changed`;

/** Text PostgreSQL can hold: NUL (which it refuses) shown as U+FFFD. */
export function pgValue(v: unknown): unknown {
  return typeof v === "string" && v.includes("\u0000") ? v.replaceAll("\u0000", "\uFFFD") : v;
}

/** Rows as one array per column (what unnest takes). */
function columns(rows: unknown[][], n: number): unknown[][] {
  const out: unknown[][] = Array.from({ length: n }, () => []);
  for (const r of rows) for (let i = 0; i < n; i++) out[i]!.push(pgValue(r[i]));
  return out;
}

/** A locked trajectory's protocol log counters, as they stand once the batch is written. */
interface Logged {
  count: number;
  chars: number;
  dropped: number;
}

/** The exchanges numbered after each trajectory's last, within its caps: the rows kept, the seqs. */
function numberExchanges(exchanges: BatchWrites["exchanges"], logs: Map<string, Logged>) {
  const kept: unknown[][] = [];
  const seqs = exchanges.map(({ id, exchange, limit }) => {
    const log = logs.get(id);
    if (!log) return null;
    const chars = exchangeChars(exchange);
    if (log.count >= limit.count || log.chars + chars > limit.chars) {
      log.dropped++;
      return null;
    }
    log.count++;
    log.chars += chars;
    kept.push([id, log.count, ...exchangeValues(exchange)]);
    return log.count;
  });
  return { kept, seqs };
}

/** The totals of these trajectories summed again without float noise, as every view computes them. */
async function sumAgain(c: pg.PoolClient, ids: string[]): Promise<void> {
  const rewards = await c.query<{ trajectory_id: string; reward: number | null }>(
    "SELECT trajectory_id, reward FROM steps WHERE trajectory_id = ANY($1::text[]) AND after_end = 0 ORDER BY trajectory_id, idx",
    [ids],
  );
  const of = new Map<string, (number | null)[]>(ids.map((id) => [id, []]));
  for (const r of rewards.rows) of.get(r.trajectory_id)!.push(r.reward);
  await c.query(
    "UPDATE trajectories t SET total_reward = x.total FROM unnest($1::text[], $2::float8[]) AS x(id, total) WHERE t.id = x.id",
    [[...of.keys()], [...of.values()].map(sumRewards)],
  );
}

/**
 * Writes the batch in three round trips, however large: the trajectories locked (in one order, so
 * replicas writing the same episodes wait for each other and never deadlock), one statement for the
 * rest, the commit (and, when a reward changed, its total summed again before it).
 */
export async function writeBatch(
  db: PostgresDatabase,
  w: BatchWrites,
  instance: string,
): Promise<(number | null)[]> {
  const ids = [...new Set([...w.steps.map((s) => s.id), ...w.exchanges.map((x) => x.id)])].sort();
  if (ids.length === 0) return [];
  return db.withClient(async (c) => {
    try {
      const list = ids.map((id) => pg.escapeLiteral(pgValue(id) as string)).join(", ");
      const begun = (await c.query(
        `BEGIN; SELECT id, exchanges_count, exchanges_chars FROM trajectories WHERE id IN (${list}) ORDER BY id FOR UPDATE`,
      )) as unknown as pg.QueryResult<{ id: string; exchanges_count: number; exchanges_chars: string }>[];
      const logs = new Map<string, Logged>(
        begun[1]!.rows.map((r) => [
          r.id,
          { count: Number(r.exchanges_count), chars: Number(r.exchanges_chars), dropped: 0 },
        ]),
      );
      // Steps of trajectories that are gone are skipped; of one trajectory and index, the last wins.
      const last = new Map<string, { id: string; step: TrajectoryStep }>();
      for (const s of w.steps) if (logs.has(s.id)) last.set(`${s.id}\n${s.step.index}`, s);
      const steps = [...last.values()].map((s) => stepRowValues(s.id, s.step, instance));
      const { kept, seqs } = numberExchanges(w.exchanges, logs);
      const counters = [...logs];
      const changed = await c.query<{ id: string }>(WRITE, [
        ...columns(steps, STEP_ARRAYS.length),
        ...columns(kept, EXCHANGE_ARRAYS.length),
        counters.map(([id]) => id),
        counters.map(([, l]) => l.count),
        counters.map(([, l]) => l.chars),
        counters.map(([, l]) => l.dropped),
      ]);
      if (changed.rows.length)
        await sumAgain(
          c,
          changed.rows.map((r) => r.id),
        );
      await c.query("COMMIT");
      return seqs;
    } catch (err) {
      await c.query("ROLLBACK").catch(() => {});
      throw err;
    }
  });
}
