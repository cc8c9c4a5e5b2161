// The name a CLI command (`run`, `check --quality`) gives the server it was handed by URL (docs/runs.md
// "CLI"): a server the playground already knows keeps its name — one it keeps (servers.json, the
// database), or one a running app sharing the store knows (its ORS_SERVERS) — the same URL spelled
// `localhost` or `127.0.0.1` included; another one is named after its host and port and added.
import type { Playground } from "@/lib/playground";
import { createServerRegistry, invalidServerName } from "@/lib/registry";
import type { ServerPersistence } from "@/lib/registry/persistence";
import { LEASE_STALE_MS } from "@/lib/store/leases";

const LOOPBACK = new Set(["localhost", "127.0.0.1", "[::1]", "::1"]);

/** Whether two base URLs name one server (loopback names count as one host). */
export function sameServer(a: string, b: string): boolean {
  try {
    const x = new URL(a);
    const y = new URL(b);
    const host = (u: URL) => (LOOPBACK.has(u.hostname) ? "loopback" : u.hostname);
    const port = (u: URL) => u.port || (u.protocol === "https:" ? "443" : "80");
    const path = (u: URL) => u.pathname.replace(/\/+$/, "");
    return x.protocol === y.protocol && host(x) === host(y) && port(x) === port(y) && path(x) === path(y);
  } catch {
    return false;
  }
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

export interface KnownServer {
  name: string;
  /** Added to the playground's servers now. */
  added: boolean;
  /**
   * This process must be told of it (`ORS_SERVERS=name=url`) and the playground reopened: a running
   * app knows it by that name (`app`), or it could not be added (`remote`: why).
   */
  tell: { why: "app"; appUrl: string } | { why: "remote"; reason: string } | null;
}

/** The app processes sharing the store now, newest first. */
export const liveApps = (pg: Playground) => pg.store.liveApps(Date.now() - LEASE_STALE_MS);

/** How the playground knows `url` (see the file's header). */
export async function knownServer(pg: Playground, url: string): Promise<KnownServer> {
  const same = (await pg.registry.list()).find((s) => s.source !== "builtin" && sameServer(s.url, url));
  if (same) return { name: same.name, added: false, tell: null };
  for (const app of await liveApps(pg)) {
    const s = app.servers.find((x) => sameServer(x.url, url));
    if (s) return { name: s.name, added: false, tell: { why: "app", appUrl: app.url } };
  }
  const name = serverNameOf(url);
  try {
    await pg.registry.add({ name, url });
    return { name, added: true, tell: null };
  } catch (err) {
    return { name, added: false, tell: { why: "remote", reason: (err as Error).message } };
  }
}

/**
 * How the playground of `dataDir` keeps `url`, without opening a playground (the commands of
 * ./servers.ts): a kept server with the same URL keeps its name, another is added under
 * serverNameOf's; `envOnly` says why it could not be added (the process must be told of it).
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
    const same = (await registry.list()).find((s) => s.source !== "builtin" && sameServer(s.url, a.url));
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
