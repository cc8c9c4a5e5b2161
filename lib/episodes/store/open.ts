// Which trajectory store a process uses: PostgreSQL when PLAYGROUND_DATABASE_URL is set (shared by
// app replicas; nothing is written to the data folder's store then), else the embedded SQLite file
// in the data folder (the default: one process, nothing to install).
import "server-only";
import { openPostgresStore, type PostgresTrajectoryStore } from "./postgres";
import { databaseUrlFrom, openPostgresDatabase, type PostgresDatabase, poolSizeFrom } from "./postgres-db";
import { openStore, retentionFromEnv, type SqliteTrajectoryStore } from "./sqlite";

export type OpenedStore =
  | { kind: "sqlite"; store: SqliteTrajectoryStore; where: string }
  | { kind: "postgres"; store: PostgresTrajectoryStore; db: PostgresDatabase; where: string };

/**
 * Opens the store the configuration names. A malformed database URL throws here; an unreachable
 * database is reported by `db.ready` (which the server entries await before they listen).
 */
export function openTrajectoryStore(
  env: Record<string, string | undefined>,
  opts: { dir: string },
): OpenedStore {
  const retention = retentionFromEnv(env as NodeJS.ProcessEnv);
  const url = databaseUrlFrom(env);
  if (url) {
    const db = openPostgresDatabase(url, { poolSize: poolSizeFrom(env) });
    return {
      kind: "postgres",
      store: openPostgresStore(db, retention),
      db,
      where: `PostgreSQL at ${db.where}`,
    };
  }
  const store = openStore({ dir: opts.dir, retention });
  return { kind: "sqlite", store, where: opts.dir };
}
