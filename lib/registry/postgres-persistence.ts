// Added servers in PostgreSQL (PLAYGROUND_DATABASE_URL), seen by every replica; their API keys are
// readable by the app's database role only (the table is revoked from PUBLIC), as servers.json by its
// owner. Hand-written servers stay configuration: servers.json in the data folder, read only.
import "server-only";
import type { PostgresDatabase } from "@/lib/store/postgres/db";
import { fileServerPersistence, type ServerPersistence, type StoredServer } from "./persistence";

interface Row {
  name: string;
  url: string;
  api_key: string | null;
  idle_timeout_ms: number | null;
}

export function postgresServerPersistence(db: PostgresDatabase, dataDir: string): ServerPersistence {
  const config = fileServerPersistence(dataDir);
  // The relay looks servers up on every request: while the database cannot be reached, the added
  // servers last read keep being served (the configured ones never depend on it).
  let lastRead: StoredServer[] | null = null;
  const added = async (): Promise<StoredServer[]> => {
    try {
      const rows = await db.use(() =>
        db.pool.query<Row>(
          "SELECT name, url, api_key, idle_timeout_ms FROM added_servers ORDER BY added_at, name",
        ),
      );
      lastRead = rows.rows.map((r) => ({
        name: r.name,
        url: r.url,
        ...(r.api_key ? { apiKey: r.api_key } : {}),
        ...(r.idle_timeout_ms ? { idleTimeoutMs: r.idle_timeout_ms } : {}),
      }));
      return lastRead;
    } catch (err) {
      console.error(`[registry] the added servers as last read (none yet?): ${(err as Error).message}`);
      return lastRead ?? [];
    }
  };
  return {
    async read() {
      const [file, userServers] = await Promise.all([config.read(), added()]);
      return { servers: file.servers, userServers };
    },
    async addUser(e) {
      const r = await db.use(() =>
        db.pool.query(
          `INSERT INTO added_servers (name, url, api_key, idle_timeout_ms, added_at) VALUES ($1, $2, $3, $4, $5)
         ON CONFLICT (name) DO NOTHING`,
          [e.name, e.url, e.apiKey ?? null, e.idleTimeoutMs ?? null, Date.now()],
        ),
      );
      return r.rowCount === 1;
    },
    async removeUser(name) {
      const r = await db.use(() => db.pool.query("DELETE FROM added_servers WHERE name = $1", [name]));
      return (r.rowCount ?? 0) > 0;
    },
  };
}
