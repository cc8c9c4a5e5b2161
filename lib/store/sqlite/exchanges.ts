// The protocol log in the SQLite store (the contract's `addExchange` and `exchanges`, ../types.ts):
// each exchange numbered on its trajectory's row, within the caps counted there.
import "server-only";
import type { ExchangeList, NewExchange } from "@/lib/trajectory/schema";
import { EXCHANGE_COLUMNS, type ExchangeRow, exchangeChars, exchangeValues, toExchange } from "../rows";
import type { ExchangeLimit } from "../types";
import { atomically, type Db, type Statements } from "./db";

export function addExchange(
  db: Db,
  sql: Statements,
  id: string,
  x: NewExchange,
  limit: ExchangeLimit,
): number | null {
  const chars = exchangeChars(x);
  return atomically(db, (): number | null => {
    const kept = sql(
      `UPDATE trajectories SET exchanges_count = exchanges_count + 1, exchanges_chars = exchanges_chars + @chars
         WHERE id = @id AND exchanges_count < @count AND exchanges_chars + @chars <= @max
         RETURNING exchanges_count AS seq`,
    ).get({ id, chars, count: limit.count, max: limit.chars }) as { seq: number } | undefined;
    if (!kept) {
      sql("UPDATE trajectories SET exchanges_dropped = exchanges_dropped + 1 WHERE id = ?").run(id);
      return null;
    }
    sql(
      `INSERT INTO exchanges (trajectory_id, seq, ${EXCHANGE_COLUMNS})
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ).run(id, kept.seq, ...exchangeValues(x));
    return kept.seq;
  });
}

export function listExchanges(sql: Statements, id: string, after = 0): ExchangeList | null {
  const t = sql("SELECT exchanges_dropped FROM trajectories WHERE id = ?").get(id) as
    | { exchanges_dropped: number }
    | undefined;
  if (!t) return null;
  const rows = sql(
    `SELECT seq, ${EXCHANGE_COLUMNS} FROM exchanges WHERE trajectory_id = ? AND seq > ? ORDER BY seq`,
  ).all(id, after) as ExchangeRow[];
  return { items: rows.map(toExchange), dropped: t.exchanges_dropped };
}
