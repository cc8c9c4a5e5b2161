// The server a command names by URL, as the playground knows it: its URL read strictly (httpUrl), the
// name it has or is given (knownName: a configured or added server keeps its name, another one on
// this machine is added), and the variables a playground built on it needs (nameServer). `run`,
// `mcp` and `check --quality` name their server so, and record into the playground's store.
import { createServerRegistry, invalidServerName } from "@/lib/registry";
import type { ServerPersistence } from "@/lib/registry/persistence";
import { UsageError } from "./args";
import type { CommandIo } from "./io";

/** An http(s) URL without credentials, query or fragment (nor a trailing slash); a UsageError naming `what` otherwise. */
export function httpUrl(value: string, what: string): string {
  let u: URL;
  try {
    u = new URL(value);
  } catch {
    throw new UsageError(`${what}: not a URL: ${JSON.stringify(value)} (e.g. http://127.0.0.1:8080)`);
  }
  if (u.protocol !== "http:" && u.protocol !== "https:")
    throw new UsageError(`${what}: the URL must be http:// or https://`);
  if (u.username || u.password) throw new UsageError(`${what}: the URL must not carry credentials`);
  u.hash = "";
  u.search = "";
  return u.toString().replace(/\/+$/, "");
}

/** A server name from a URL's host and port: `127-0-0-1-8080`, `localhost-3000`. */
export function serverNameOf(url: string): string {
  const u = new URL(url);
  const port = u.port || (u.protocol === "https:" ? "443" : "80");
  const base = `${u.hostname.replace(/^\[|\]$/g, "")}-${port}${u.pathname === "/" ? "" : `-${u.pathname}`}`
    .toLowerCase()
    .replace(/[^a-z0-9_-]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 32);
  return invalidServerName(base) ? `srv-${base}`.slice(0, 32) : base;
}

/**
 * The name the playground knows the server by: a known server with that URL keeps its name;
 * otherwise one is made from its host and port and, on this machine, added to the playground's
 * servers (the data folder's, or the database's with PLAYGROUND_DATABASE_URL: the app then opens
 * its episodes); a remote one is known to this process only. (`check --quality` names its server
 * the same way.)
 */
export async function knownName(
  a: { url: string; dataDir: string },
  env: Record<string, string | undefined>,
): Promise<{ name: string; added: boolean; envOnly: string | null }> {
  // The database's added servers, when the store is there (loaded only then: `pg` and its pool).
  const { databaseUrlFrom, openPostgresDatabase } = await import("@/lib/store/postgres/db");
  const url = databaseUrlFrom(env);
  const db = url ? openPostgresDatabase(url, { poolSize: 1 }) : null;
  try {
    let persistence: ServerPersistence | undefined;
    if (db) {
      await db.ready;
      persistence = (await import("@/lib/registry/postgres-persistence")).postgresServerPersistence(
        db,
        a.dataDir,
      );
    }
    const registry = createServerRegistry({
      dataDir: a.dataDir,
      env,
      localHandler: () => () => Promise.reject(new Error("no local host here")),
      persistence,
    });
    const same = (await registry.list()).find((s) => s.source !== "builtin" && s.url === a.url);
    if (same) return { name: same.name, added: false, envOnly: null };
    const name = serverNameOf(a.url);
    try {
      await registry.add({ name, url: a.url });
      return { name, added: true, envOnly: null };
    } catch (err) {
      return { name, added: false, envOnly: (err as Error).message };
    }
  } finally {
    await db?.close();
  }
}

/**
 * Names the server of `a.url` as the playground knows it (knownName) and sets up `env` for a
 * playground built on it: the server among ORS_SERVERS when it could not be added, its API key.
 * Says what it did on stderr, prefixed by `command`; null (after saying why) when the store cannot
 * be used. `run` and `mcp` both record into the playground's store this way.
 */
export async function nameServer(
  command: string,
  a: { url: string; dataDir: string; apiKey?: string },
  env: Record<string, string | undefined>,
  io: Pick<CommandIo, "stderr">,
): Promise<string | null> {
  let known: Awaited<ReturnType<typeof knownName>>;
  try {
    known = await knownName(a, env);
  } catch (err) {
    // PLAYGROUND_DATABASE_URL malformed or unreachable: said as the app says it at start.
    io.stderr(`${command}: could not use the playground's store: ${(err as Error).message}\n`);
    return null;
  }
  const { name, added, envOnly } = known;
  if (envOnly !== null)
    env.ORS_SERVERS = [env.ORS_SERVERS?.trim(), `${name}=${a.url}`].filter(Boolean).join(",");
  if (a.apiKey) env[`ORS_SERVER_API_KEY_${name.toUpperCase().replace(/-/g, "_")}`] = a.apiKey;
  if (added) io.stderr(`${command}: added the server ${a.url} to the playground as "${name}"\n`);
  if (envOnly !== null)
    io.stderr(
      `${command}: ${a.url} was not added to the playground's servers (${envOnly}); to open its episodes in the app, start it with ORS_SERVERS=${name}=${a.url}\n`,
    );
  return name;
}
