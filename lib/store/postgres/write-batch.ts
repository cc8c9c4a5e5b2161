// The recorder's writes of a batch in PostgreSQL (the contract's `writeBatch`, ../types.ts): every
// step and protocol log entry of a batch of concurrent calls in one transaction of a few multi-row
// statements (arrays unnested), however many there are — the trajectories locked in one order, the
// steps upserted at once, each trajectory's counters and log numbers written once.
import "server-only";
import type pg from "pg";
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

const UPSERT_STEPS = `INSERT INTO steps (${STEP_COLUMNS.join(", ")})
  SELECT * FROM unnest(${arrays(STEP_COLUMNS.map((c) => STEP_TYPES[c]))})
  ON CONFLICT (trajectory_id, idx) DO UPDATE SET ${STEP_COLUMNS.filter(
    (c) => c !== "trajectory_id" && c !== "idx",
  )
    .map((c) => `${c} = EXCLUDED.${c}`)
    .join(", ")}`;

const INSERT_EXCHANGES = `INSERT INTO exchanges (trajectory_id, seq, ${EXCHANGE_COLUMNS})
  SELECT * FROM unnest(${arrays(["text", "int4", ...EXCHANGE_TYPES])})`;

const UPDATE_COUNTERS = `UPDATE trajectories t SET
    num_steps = t.num_steps + x.added,
    total_reward = COALESCE(x.total, t.total_reward),
    last_activity_at = GREATEST(t.last_activity_at, COALESCE(x.at, t.last_activity_at)),
    exchanges_count = x.ecount, exchanges_chars = x.echars, exchanges_dropped = t.exchanges_dropped + x.edropped
  FROM unnest(${arrays(["text", "int4", "float8", "float8", "int4", "int8", "int4"])})
    AS x(id, added, total, at, ecount, echars, edropped)
  WHERE t.id = x.id`;

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

/** What a trajectory's row becomes: its counters as they stand once the batch is written. */
interface Counters {
  added: number;
  total: number | null;
  at: number | null;
  count: number;
  chars: number;
  dropped: number;
  rewardChanged: boolean;
}

const counted = (reward: number | null, afterEnd: boolean) => (afterEnd ? 0 : (reward ?? 0));

/** The steps' writes: the last of each trajectory and index, and how each changes its trajectory. */
async function writeSteps(
  c: pg.PoolClient,
  steps: { id: string; step: TrajectoryStep }[],
  rows: Map<string, Counters>,
  instance: string,
): Promise<void> {
  const last = new Map<string, { id: string; step: TrajectoryStep }>();
  for (const s of steps) if (rows.has(s.id)) last.set(`${s.id}\n${s.step.index}`, s);
  if (last.size === 0) return;
  const written = [...last.values()];
  const before = await c.query<{
    trajectory_id: string;
    idx: number;
    reward: number | null;
    after_end: number;
  }>(
    `SELECT s.trajectory_id, s.idx, s.reward, s.after_end FROM steps s
       JOIN unnest($1::text[], $2::int4[]) AS k(id, idx) ON s.trajectory_id = k.id AND s.idx = k.idx`,
    [written.map((w) => w.id), written.map((w) => w.step.index)],
  );
  const was = new Map(before.rows.map((r) => [`${r.trajectory_id}\n${r.idx}`, r]));
  for (const { id, step } of written) {
    const row = rows.get(id)!;
    const prev = was.get(`${id}\n${step.index}`);
    if (!prev) row.added++;
    const now = counted(step.reward, !!step.after_end);
    if (prev ? !Object.is(counted(prev.reward, prev.after_end === 1), now) : now !== 0)
      row.rewardChanged = true;
    const at = step.ended_at ?? step.started_at;
    row.at = row.at === null ? at : Math.max(row.at, at);
  }
  await c.query(
    UPSERT_STEPS,
    columns(
      written.map((w) => stepRowValues(w.id, w.step, instance)),
      STEP_COLUMNS.length,
    ),
  );
  // The totals without float noise (as every view computes them), steps after the end left out.
  const changed = [...rows].filter(([, r]) => r.rewardChanged).map(([id]) => id);
  if (changed.length === 0) return;
  const rewards = await c.query<{ trajectory_id: string; reward: number | null }>(
    "SELECT trajectory_id, reward FROM steps WHERE trajectory_id = ANY($1::text[]) AND after_end = 0 ORDER BY trajectory_id, idx",
    [changed],
  );
  const of = new Map<string, (number | null)[]>(changed.map((id) => [id, []]));
  for (const r of rewards.rows) of.get(r.trajectory_id)!.push(r.reward);
  for (const [id, list] of of) rows.get(id)!.total = sumRewards(list);
}

/** The exchanges numbered after each trajectory's last, within its caps; returns their seqs. */
async function writeExchanges(
  c: pg.PoolClient,
  exchanges: BatchWrites["exchanges"],
  rows: Map<string, Counters>,
): Promise<(number | null)[]> {
  const kept: unknown[][] = [];
  const seqs = exchanges.map(({ id, exchange, limit }) => {
    const row = rows.get(id);
    if (!row) return null;
    const chars = exchangeChars(exchange);
    if (row.count >= limit.count || row.chars + chars > limit.chars) {
      row.dropped++;
      return null;
    }
    row.count++;
    row.chars += chars;
    kept.push([id, row.count, ...exchangeValues(exchange)]);
    return row.count;
  });
  if (kept.length) await c.query(INSERT_EXCHANGES, columns(kept, 2 + EXCHANGE_TYPES.length));
  return seqs;
}

export async function writeBatch(
  db: PostgresDatabase,
  w: BatchWrites,
  instance: string,
): Promise<(number | null)[]> {
  const ids = [...new Set([...w.steps.map((s) => s.id), ...w.exchanges.map((x) => x.id)])].sort();
  if (ids.length === 0) return [];
  return db.transaction(async (c) => {
    // Locked in one order, so replicas writing the same episodes wait for each other, never deadlock.
    const locked = await c.query<{ id: string; exchanges_count: number; exchanges_chars: string }>(
      "SELECT id, exchanges_count, exchanges_chars FROM trajectories WHERE id = ANY($1::text[]) ORDER BY id FOR UPDATE",
      [ids],
    );
    const rows = new Map<string, Counters>(
      locked.rows.map((r) => [
        r.id,
        {
          added: 0,
          total: null,
          at: null,
          count: Number(r.exchanges_count),
          chars: Number(r.exchanges_chars),
          dropped: 0,
          rewardChanged: false,
        },
      ]),
    );
    await writeSteps(c, w.steps, rows, instance);
    const seqs = await writeExchanges(c, w.exchanges, rows);
    const all = [...rows];
    await c.query(UPDATE_COUNTERS, [
      all.map(([id]) => id),
      all.map(([, r]) => r.added),
      all.map(([, r]) => r.total),
      all.map(([, r]) => r.at),
      all.map(([, r]) => r.count),
      all.map(([, r]) => r.chars),
      all.map(([, r]) => r.dropped),
    ]);
    return seqs;
  });
}
