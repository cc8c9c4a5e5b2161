// The protocol log in the PostgreSQL store (the contract's `addExchange` and `exchanges`,
// ../types.ts), as in SQLite (../sqlite/exchanges.ts): each exchange numbered on its trajectory's row
// in the statement that stores it, so replicas logging one session at once never take one number.
import "server-only";
import type { ExchangeList, NewExchange } from "@/lib/trajectory/schema";
import { EXCHANGE_COLUMNS, type ExchangeRow, exchangeChars, exchangeValues, toExchange } from "../rows";
import type { ExchangeLimit } from "../types";
import type { PostgresDatabase } from "./db";
import { pgValue } from "./write-batch";

const ADD = `WITH kept AS (
    UPDATE trajectories SET exchanges_count = exchanges_count + 1, exchanges_chars = exchanges_chars + $2
    WHERE id = $1 AND exchanges_count < $3 AND exchanges_chars + $2 <= $4
    RETURNING exchanges_count AS seq)
  INSERT INTO exchanges (trajectory_id, seq, ${EXCHANGE_COLUMNS})
  SELECT $1, seq, ${Array.from({ length: 13 }, (_, i) => `$${i + 5}`).join(", ")} FROM kept
  RETURNING seq`;

export async function addExchange(
  db: PostgresDatabase,
  id: string,
  x: NewExchange,
  limit: ExchangeLimit,
): Promise<number | null> {
  const values = [id, exchangeChars(x), limit.count, limit.chars, ...exchangeValues(x).map(pgValue)];
  const r = await db.use(() => db.pool.query<{ seq: number }>(ADD, values));
  if (r.rowCount) return Number(r.rows[0]!.seq);
  await db.use(() =>
    db.pool.query("UPDATE trajectories SET exchanges_dropped = exchanges_dropped + 1 WHERE id = $1", [id]),
  );
  return null;
}

export async function listExchanges(
  db: PostgresDatabase,
  id: string,
  after = 0,
): Promise<ExchangeList | null> {
  return db.transaction(async (c) => {
    // One snapshot: the log and its dropped count as of the same moment.
    await c.query("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY");
    const t = await c.query<{ exchanges_dropped: number }>(
      "SELECT exchanges_dropped FROM trajectories WHERE id = $1",
      [id],
    );
    if (!t.rows[0]) return null;
    const rows = await c.query<ExchangeRow>(
      `SELECT seq, ${EXCHANGE_COLUMNS} FROM exchanges WHERE trajectory_id = $1 AND seq > $2 ORDER BY seq`,
      [id, after],
    );
    return { items: rows.rows.map(toExchange), dropped: Number(t.rows[0].exchanges_dropped) };
  });
}
