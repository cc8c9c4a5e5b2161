// The PostgreSQL database behind the team-scale store (PLAYGROUND_DATABASE_URL): the URL checked,
// one `pg` pool per process, numbered migrations applied at start under an advisory lock (replicas
// may start together), and this process's replica id, which names its connections.
import "server-only";
import { randomBytes } from "node:crypto";
import pg from "pg";
import { MIGRATIONS } from "./schema";

/** The variable that switches the store (and added servers, and live feeds) to PostgreSQL. */
export const DATABASE_URL_VAR = "PLAYGROUND_DATABASE_URL";
/** Connections each process keeps at most in its pool (its notifications use two more of their own). */
export const DATABASE_POOL_VAR = "PLAYGROUND_DATABASE_POOL_SIZE";
const DEFAULT_POOL_SIZE = 10;
/** Every connection of a replica carries `ors-playground/<replica>`: other replicas see it live. */
export const APPLICATION_NAME_PREFIX = "ors-playground/";
/** After a failure to reach the database, calls fail at once for this long. */
const UNREACHABLE_PAUSE_MS = 2000;
// pg_advisory_xact_lock keys (one number space per database): "ORSP" + a purpose.
const MIGRATION_LOCK = 0x4f525350_01;

export class DatabaseConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "DatabaseConfigError";
  }
}

/** The database URL when one is set (checked), or null: then the embedded SQLite store is used. */
export function databaseUrlFrom(env: Record<string, string | undefined>): string | null {
  const raw = env[DATABASE_URL_VAR]?.trim();
  if (!raw) return null;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new DatabaseConfigError(
      `${DATABASE_URL_VAR} is not a URL; expected postgres://user:password@host:5432/database`,
    );
  }
  if (url.protocol !== "postgres:" && url.protocol !== "postgresql:")
    throw new DatabaseConfigError(
      `${DATABASE_URL_VAR} must start with postgres:// or postgresql:// (got ${url.protocol}//...)`,
    );
  if (!url.hostname && !url.searchParams.get("host"))
    throw new DatabaseConfigError(`${DATABASE_URL_VAR} names no host: ${redactUrl(raw)}`);
  return raw;
}

/** The URL without its password, for messages and banners. */
export function redactUrl(raw: string): string {
  try {
    const url = new URL(raw);
    if (url.password) url.password = "***";
    for (const key of [...url.searchParams.keys()])
      if (/pass|secret|key/i.test(key)) url.searchParams.set(key, "***");
    return url.toString();
  } catch {
    return "(unparsable URL)";
  }
}

export function poolSizeFrom(env: Record<string, string | undefined>): number {
  const raw = env[DATABASE_POOL_VAR]?.trim();
  if (!raw) return DEFAULT_POOL_SIZE;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1 || n > 1000)
    throw new DatabaseConfigError(`${DATABASE_POOL_VAR} must be an integer from 1 to 1000 (got ${raw})`);
  return n;
}

/** What went wrong reaching the database, said plainly (the URL's password never appears). */
export function describeDatabaseError(err: unknown, url: string): string {
  const e = err as { code?: string; message?: string; errors?: unknown[] };
  const where = redactUrl(url);
  const inner = Array.isArray(e.errors) && e.errors.length ? (e.errors[0] as typeof e) : e;
  switch (inner?.code) {
    case "ECONNREFUSED":
      return `cannot reach PostgreSQL at ${where}: connection refused (is the server running, on that port?)`;
    case "ENOTFOUND":
    case "EAI_AGAIN":
      return `cannot reach PostgreSQL at ${where}: unknown host`;
    case "ETIMEDOUT":
      return `cannot reach PostgreSQL at ${where}: timed out`;
    case "28P01":
    case "28000":
      return `PostgreSQL at ${where} refused the login: ${inner.message}`;
    case "3D000":
      return `PostgreSQL at ${where}: ${inner.message} (create it first: createdb)`;
  }
  const message = (inner?.message ?? String(err)).split(url).join(where);
  return `PostgreSQL at ${where}: ${message}`;
}

/** Whether an error says the database cannot be reached (rather than that a statement failed). */
export function isConnectionError(err: unknown): boolean {
  const e = err as { code?: string; message?: string; errors?: unknown[] };
  const code = (Array.isArray(e?.errors) && e.errors.length ? (e.errors[0] as typeof e).code : e?.code) ?? "";
  if (/^(ECONNREFUSED|ECONNRESET|ETIMEDOUT|ENOTFOUND|EAI_AGAIN|EPIPE|EHOSTUNREACH)$/.test(code)) return true;
  // Class 08: connection exception; 57P01-57P03: the server shutting down or starting up.
  if (/^(08...|57P0[123])$/.test(code)) return true;
  return /timeout exceeded when trying to connect|Connection terminated|not queryable/i.test(
    e?.message ?? "",
  );
}

/**
 * PostgreSQL's text cannot hold U+0000 (a query carrying one fails). Every string sent as a
 * parameter has it replaced by U+FFFD, the replacement character: a name with a NUL (a tool called
 * "a\0b") is stored with U+FFFD in its place, and an id or a filter with one matches what was stored
 * so (ids never hold one). JSON is kept as text, where JSON.stringify has escaped it already.
 */
export function pgText(value: unknown): unknown {
  if (typeof value === "string")
    return value.includes("\u0000") ? value.replaceAll("\u0000", "\uFFFD") : value;
  if (Array.isArray(value)) return value.some((v) => typeof v === "string") ? value.map(pgText) : value;
  return value;
}

/** `query(text, values, ...)` or `query({text, values}, ...)` with its parameters made storable. */
function storableQueryArgs(args: unknown[]): unknown[] {
  const [first, second, ...rest] = args;
  if (Array.isArray(second)) return [first, second.map(pgText), ...rest];
  if (first && typeof first === "object" && Array.isArray((first as { values?: unknown }).values)) {
    const config = first as { values: unknown[] };
    // A submittable (a cursor, a stream) keeps its own object: its values are replaced in place.
    config.values = config.values.map(pgText);
  }
  return args;
}

/** The pool's client: pg's, with every query's parameters made storable (pgText). */
class StorableTextClient extends pg.Client {}
const query = pg.Client.prototype.query;
StorableTextClient.prototype.query = function (this: pg.Client, ...args: unknown[]) {
  return (query as (...a: unknown[]) => unknown).apply(this, storableQueryArgs(args));
} as typeof query;

export interface PostgresDatabase {
  readonly pool: pg.Pool;
  /** The URL without its password. */
  readonly where: string;
  /** This process's replica id (random per start). */
  readonly replica: string;
  /** The application_name every connection of this replica carries. */
  readonly applicationName: string;
  /** Connection settings for the dedicated connections of the live feeds. */
  readonly clientConfig: pg.ClientConfig;
  /** Resolves once the database answered and is migrated; rejects with a clear message. */
  readonly ready: Promise<void>;
  /**
   * Runs `fn` once the database is ready. While it cannot be reached, calls fail at once (for a
   * moment after each failure) instead of each waiting out the connection timeout: work that keeps
   * coming (the recorder's events) does not pile up behind a database that is down.
   */
  use<T>(fn: () => Promise<T>): Promise<T>;
  /** Runs `fn` in a transaction on one pooled connection (rolled back if it throws), as `use` does. */
  transaction<T>(fn: (client: pg.PoolClient) => Promise<T>): Promise<T>;
  /** Checks out a pooled connection for `fn` (a broken one is discarded), as `use` does. */
  withClient<T>(fn: (client: pg.PoolClient) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

export interface OpenDatabaseOptions {
  poolSize?: number;
  migrations?: string[];
  /** A fixed replica id (tests); default random. */
  replica?: string;
}

/**
 * Opens the pool and starts migrating at once; nothing waits for it here (the composition root is
 * built synchronously): `ready` says when the database can be used, and every query of the store
 * waits for it.
 */
export function openPostgresDatabase(url: string, options: OpenDatabaseOptions = {}): PostgresDatabase {
  const replica = options.replica ?? randomBytes(6).toString("base64url");
  const applicationName = `${APPLICATION_NAME_PREFIX}${replica}`;
  const clientConfig: pg.ClientConfig = {
    connectionString: url,
    application_name: applicationName,
    connectionTimeoutMillis: 5_000,
    keepAlive: true,
  };
  const pool = new pg.Pool({
    ...clientConfig,
    Client: StorableTextClient,
    max: options.poolSize ?? DEFAULT_POOL_SIZE,
    idleTimeoutMillis: 30_000,
  });
  // An idle connection that breaks (the server restarted) is dropped by the pool; without a
  // listener its error would end the process.
  pool.on("error", (err) =>
    console.error(`[postgres] idle connection lost: ${describeDatabaseError(err, url)}`),
  );
  const where = redactUrl(url);
  let downUntil = 0;
  let downBecause = "";
  const use = async <T>(fn: () => Promise<T>): Promise<T> => {
    await ready;
    if (Date.now() < downUntil) throw new Error(`${downBecause} (trying again in a moment)`);
    try {
      return await fn();
    } catch (err) {
      if (isConnectionError(err)) {
        downUntil = Date.now() + UNREACHABLE_PAUSE_MS;
        downBecause = describeDatabaseError(err, url);
      }
      throw err;
    }
  };
  const withClient = <T>(fn: (client: pg.PoolClient) => Promise<T>): Promise<T> =>
    use(async () => {
      const client = await pool.connect();
      let broken: Error | undefined;
      try {
        return await fn(client);
      } catch (err) {
        if (isConnectionError(err)) broken = err as Error;
        throw err;
      } finally {
        client.release(broken);
      }
    });
  const transaction = <T>(fn: (client: pg.PoolClient) => Promise<T>): Promise<T> =>
    withClient(async (client) => {
      try {
        await client.query("BEGIN");
        const out = await fn(client);
        await client.query("COMMIT");
        return out;
      } catch (err) {
        await client.query("ROLLBACK").catch(() => {});
        throw err;
      }
    });
  const ready = migrate(pool, options.migrations ?? MIGRATIONS).then(
    () => {},
    (err: unknown) => {
      throw new Error(describeDatabaseError(err, url));
    },
  );
  // Awaited by whoever uses the database; this keeps an early failure from being "unhandled".
  ready.catch(() => {});
  let closed: Promise<void> | null = null;
  return {
    pool,
    where,
    replica,
    applicationName,
    clientConfig,
    ready,
    use,
    transaction,
    withClient,
    close() {
      closed ??= ready.catch(() => {}).then(() => pool.end());
      return closed;
    },
  };
}

/**
 * Applies the pending migrations in one transaction holding an advisory lock: a second replica
 * starting at the same moment waits for the first, then finds nothing left to do.
 */
export async function migrate(pool: pg.Pool, migrations: string[] = MIGRATIONS): Promise<number> {
  const client = await pool.connect();
  try {
    await client.query("BEGIN");
    await client.query("SELECT pg_advisory_xact_lock($1)", [MIGRATION_LOCK]);
    await client.query(
      "CREATE TABLE IF NOT EXISTS playground_schema (version INTEGER NOT NULL, migrated_at DOUBLE PRECISION NOT NULL)",
    );
    const row = (await client.query<{ version: number }>("SELECT version FROM playground_schema")).rows[0];
    let version = row?.version ?? 0;
    if (version > migrations.length)
      throw new Error(
        `the database is at schema version ${version}, newer than this build (${migrations.length}): upgrade the playground`,
      );
    const from = version;
    while (version < migrations.length) {
      await client.query(migrations[version]!);
      version++;
    }
    if (version !== from || !row) {
      await client.query("DELETE FROM playground_schema");
      await client.query("INSERT INTO playground_schema (version, migrated_at) VALUES ($1, $2)", [
        version,
        Date.now(),
      ]);
    }
    await client.query("COMMIT");
    return version;
  } catch (err) {
    await client.query("ROLLBACK").catch(() => {});
    throw err;
  } finally {
    client.release();
  }
}
