// Which store a process uses: PostgreSQL when PLAYGROUND_DATABASE_URL is set (shared by app
// replicas; nothing is written to the data folder's store then), else the embedded SQLite file in
// the data folder (the default: one process, nothing to install).
import "server-only";
import { databaseUrlFrom, openPostgresDatabase, type PostgresDatabase, poolSizeFrom } from "./postgres/db";
import { openPostgresStore, type PostgresTrajectoryStore } from "./postgres/store";
import { retentionFromEnv } from "./rows";
import { openStore, type SqliteTrajectoryStore } from "./sqlite/store";
import type { StoreInstance } from "./types";

export type OpenedStore =
  | { kind: "sqlite"; store: SqliteTrajectoryStore; where: string }
  | { kind: "postgres"; store: PostgresTrajectoryStore; db: PostgresDatabase; where: string };

/**
 * Opens the store the configuration names, for `instance` (this process: its id also names its
 * database connections). A malformed database URL throws here; an unreachable database is reported
 * by `db.ready` (which the server entries await, through the playground's `ready`, before they listen).
 */
export function openPlaygroundStore(
  env: Record<string, string | undefined>,
  opts: { dir: string; instance: StoreInstance },
): OpenedStore {
  const retention = retentionFromEnv(env);
  const url = databaseUrlFrom(env);
  if (url) {
    const db = openPostgresDatabase(url, { poolSize: poolSizeFrom(env), replica: opts.instance.id });
    return {
      kind: "postgres",
      store: openPostgresStore(db, retention, opts.instance),
      db,
      where: `PostgreSQL at ${db.where}`,
    };
  }
  const store = openStore({ dir: opts.dir, retention, instance: opts.instance });
  return { kind: "sqlite", store, where: opts.dir };
}
