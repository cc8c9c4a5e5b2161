// The known ORS servers: `local` (the built-in host, reached in process), `ORS_SERVERS`
// (`name=url,name=url`), the config file `PLAYGROUND_DATA_DIR/servers.json` ("servers": hand-written
// entries), the servers users added in the UI (kept by ./persistence.ts: its "userServers", or
// PostgreSQL when the app has a database), and the servers the playground started itself
// (`start --spawn`, lib/spawn), known from the start and forwarded to only while ready.
import "server-only";
import path from "node:path";
import { ENV_ENDPOINTS, OrsError, ROOT_ENDPOINTS } from "@/lib/ors/protocol";
import { createPinnedFetch } from "@/lib/security/pinned-fetch";
import { type AddressVerdict, checkServerUrl, type Resolver } from "./address-policy";
import { createOrsProbe, type OrsProbe, type OrsProbeVerdict } from "./ors-probe";
import { fileServerPersistence, type ServerPersistence, type StoredServer } from "./persistence";

export type ServerSource = "builtin" | "env" | "config" | "user" | "spawned";

export interface ServerEntry {
  name: string;
  /** The base URL; for `local`, the path where the app also mounts it (`/api/ors`). */
  url: string;
  source: ServerSource;
  /** Sent as `X-API-Key` when a relayed request has none. Never returned to the browser. */
  apiKey?: string;
  /** The server's session idle limit, when known (a per-server setting): shown as the countdown. */
  idleTimeoutMs?: number;
  /** The most sessions runs open on it at once, across every worker and run (docs/runs.md "Capacity"). */
  maxSessions?: number;
}

/** What the API shows of a server: never its API key. */
export interface PublicServer {
  name: string;
  url: string;
  source: ServerSource;
  hasApiKey: boolean;
  /** The server's session idle limit when the playground knows it, else null. */
  idleTimeoutMs: number | null;
  /** The cap on runs' sessions on it, else null. */
  maxSessions: number | null;
}

export type FetchHandler = (req: Request) => Promise<Response>;

/** The servers this process runs itself (lib/spawn's supervisor): listed whatever their state. */
export interface SpawnedServers {
  entries(): { name: string; url: string }[];
  /** Why the relay must not forward to `name` now (starting, exited ...), or null when it is ready. */
  notReady(name: string): string | null;
}

export interface ServerRegistryOptions {
  /** Where servers.json lives (the configuration's data folder, lib/config.ts). */
  dataDir: string;
  /**
   * The variables the composition root hands over: ORS_SERVERS, PLAYGROUND_ALLOW_REMOTE_SERVERS,
   * and each server's ORS_SERVER_API_KEY_<NAME> and ORS_SERVER_IDLE_TIMEOUT_MS_<NAME>.
   */
  env: Readonly<Record<string, string | undefined>>;
  /** The in-process handler of `local`. */
  localHandler: () => FetchHandler;
  /** DNS resolver for the address policy (tests). */
  resolve?: Resolver;
  /** Where servers are kept (default: servers.json in the data folder). */
  persistence?: ServerPersistence;
  /** Asks user servers whether they speak ORS (default: /health and /list_environments over a
   *  pinned fetch, trusted for a minute). */
  probe?: OrsProbe;
  /** Servers this process started (`start --spawn`); they come right after `local`. */
  spawned?: SpawnedServers;
}

export class ServerRegistryError extends OrsError {
  constructor(status: number, detail: string) {
    super(status, detail);
    this.name = "ServerRegistryError";
  }
}

/**
 * Whether `err` is a ServerRegistryError. Not `instanceof`: Next bundles each route separately, and
 * the registry singleton (on globalThis) may throw the class of another route's bundle.
 */
export function isServerRegistryError(err: unknown): err is ServerRegistryError {
  return (
    err instanceof Error &&
    err.name === "ServerRegistryError" &&
    typeof (err as Partial<ServerRegistryError>).status === "number"
  );
}

const NAME_RE = /^[a-z0-9][a-z0-9_-]{0,31}$/;
const RESERVED = new Set<string>([...ROOT_ENDPOINTS, ...ENV_ENDPOINTS, "local"]);

/** Why a server name is not allowed, or null when it is. */
export function invalidServerName(name: unknown): string | null {
  if (typeof name !== "string" || !NAME_RE.test(name))
    return "name must be 1-32 characters of a-z, 0-9, _ and -, starting with a letter or digit";
  if (RESERVED.has(name)) return `"${name}" is reserved`;
  return null;
}

function normalizeUrl(raw: string): string {
  const u = new URL(raw);
  u.hash = "";
  u.search = "";
  return u.toString().replace(/\/+$/, "");
}

type FileEntry = StoredServer;

export interface ServerRegistry {
  readonly dataDir: string;
  readonly allowRemote: boolean;
  localHandler(): FetchHandler;
  list(): Promise<ServerEntry[]>;
  get(name: string): Promise<ServerEntry | undefined>;
  /** Adds a user server after checking its name and address; throws ServerRegistryError. */
  add(input: {
    name: unknown;
    url: unknown;
    apiKey?: unknown;
    idleTimeoutMs?: unknown;
  }): Promise<ServerEntry>;
  /** Removes a user server; throws ServerRegistryError (404 unknown, 403 not a user server). */
  remove(name: string): Promise<void>;
  /** Checks whether the relay may reach this server now (resolving its host again). */
  checkAddress(entry: ServerEntry): Promise<AddressVerdict>;
  /**
   * Whether the relay may forward to this server at `addresses` (as checkAddress gave them): a
   * server added at run time must first answer /health and /list_environments like an ORS server
   * (asked again after a minute); a spawned one must be ready (it answered /health since it last
   * started); configured servers and `local` always may.
   */
  checkOrsServer(entry: ServerEntry, addresses: readonly string[]): Promise<OrsProbeVerdict>;
}

/** Parses `ORS_SERVERS` (`name=url,name=url`); bad entries are reported and skipped. */
export function parseServersEnv(value: string | undefined): FileEntry[] {
  const out: FileEntry[] = [];
  for (const part of (value ?? "").split(",")) {
    const item = part.trim();
    if (!item) continue;
    const eq = item.indexOf("=");
    const name = item.slice(0, eq).trim();
    const url = item.slice(eq + 1).trim();
    const bad = eq <= 0 ? "expected name=url" : invalidServerName(name);
    try {
      if (bad) throw new Error(bad);
      out.push({ name, url: normalizeUrl(url) });
    } catch (err) {
      console.warn(`ORS_SERVERS: skipping ${JSON.stringify(item)}: ${(err as Error).message}`);
    }
  }
  return out;
}

/** The well-formed entries of a servers file (anything else in it is left out). */
function validEntries(list: unknown): FileEntry[] {
  if (!Array.isArray(list)) return [];
  return list.filter(
    (e): e is FileEntry =>
      !!e &&
      typeof e === "object" &&
      typeof e.name === "string" &&
      typeof e.url === "string" &&
      !invalidServerName(e.name),
  );
}
export function createServerRegistry(options: ServerRegistryOptions): ServerRegistry {
  const env = options.env;
  const dataDir = path.resolve(options.dataDir);
  const persistence = options.persistence ?? fileServerPersistence(dataDir);
  const allowRemote = env.PLAYGROUND_ALLOW_REMOTE_SERVERS === "1";
  const envServers = parseServersEnv(env.ORS_SERVERS);
  let lock: Promise<unknown> = Promise.resolve();

  const envName = (name: string) => name.toUpperCase().replace(/-/g, "_");
  const envKey = (name: string) => env[`ORS_SERVER_API_KEY_${envName(name)}`];
  const envIdle = (name: string) => {
    const raw = env[`ORS_SERVER_IDLE_TIMEOUT_MS_${envName(name)}`];
    return raw ? Number(raw) : undefined;
  };
  const envMaxSessions = (name: string) => {
    const raw = env[`ORS_SERVER_MAX_SESSIONS_${envName(name)}`];
    return raw ? Number(raw) : undefined;
  };

  // The relay looks servers up on every request: keep the parsed file for a second (edits by this
  // process clear it at once; edits by hand show within a second).
  let cached: { at: number; file: ReturnType<ServerPersistence["read"]> } | undefined;
  const CACHE_MS = 1_000;
  function cachedFile(): ReturnType<ServerPersistence["read"]> {
    const now = Date.now();
    if (!cached || now - cached.at > CACHE_MS) {
      const file = persistence.read();
      // A failed read is not kept: the next request tries again.
      file.catch(() => {
        if (cached?.file === file) cached = undefined;
      });
      cached = { at: now, file };
    }
    return cached.file;
  }

  async function list(): Promise<ServerEntry[]> {
    const f = await cachedFile();
    const out: ServerEntry[] = [{ name: "local", url: "/api/ors", source: "builtin" }];
    const seen = new Set(["local"]);
    const push = (e: FileEntry, source: ServerSource) => {
      if (seen.has(e.name)) return;
      seen.add(e.name);
      const apiKey = envKey(e.name) ?? (typeof e.apiKey === "string" && e.apiKey ? e.apiKey : undefined);
      const idle = envIdle(e.name) ?? e.idleTimeoutMs;
      const maxSessions = envMaxSessions(e.name) ?? e.maxSessions;
      out.push({
        name: e.name,
        url: e.url.replace(/\/+$/, ""),
        source,
        ...(apiKey ? { apiKey } : {}),
        ...(isIdleLimit(idle) ? { idleTimeoutMs: idle } : {}),
        ...(isIdleLimit(maxSessions) ? { maxSessions } : {}),
      });
    };
    for (const e of options.spawned?.entries() ?? []) push(e, "spawned");
    for (const e of envServers) push(e, "env");
    for (const e of validEntries(f.servers)) push(e, "config");
    for (const e of validEntries(f.userServers)) push(e, "user");
    return out;
  }

  function locked<T>(fn: () => Promise<T>): Promise<T> {
    const run = lock.then(fn, fn);
    lock = run.catch(() => {});
    return run;
  }

  const checkAddress = (entry: ServerEntry): Promise<AddressVerdict> =>
    checkServerUrl(entry.url, {
      loopbackOnly: entry.source === "user" && !allowRemote,
      resolve: options.resolve,
    });

  let probe = options.probe;
  const checkOrsServer = async (
    entry: ServerEntry,
    addresses: readonly string[],
  ): Promise<OrsProbeVerdict> => {
    if (entry.source === "spawned") {
      const why = options.spawned?.notReady(entry.name) ?? null;
      return why === null ? { ok: true } : { ok: false, status: 502, failure: "unreachable", reason: why };
    }
    if (entry.source !== "user") return { ok: true };
    probe ??= createOrsProbe({ fetch: createPinnedFetch({ maxPools: 8 }) });
    return probe.check(entry, addresses);
  };

  return {
    dataDir,
    allowRemote,
    localHandler: options.localHandler,
    list,
    get: async (name) => (await list()).find((s) => s.name === name),
    checkAddress,
    checkOrsServer,
    add: (input) =>
      locked(async () => {
        const badName = invalidServerName(input.name);
        if (badName) throw new ServerRegistryError(400, badName);
        const name = input.name as string;
        if (typeof input.url !== "string" || !input.url.trim())
          throw new ServerRegistryError(400, "url is required");
        let url: string;
        try {
          url = normalizeUrl(input.url.trim());
        } catch {
          throw new ServerRegistryError(400, `${JSON.stringify(input.url)} is not a URL`);
        }
        if (input.apiKey != null && typeof input.apiKey !== "string")
          throw new ServerRegistryError(400, "apiKey must be a string");
        const apiKey = (input.apiKey as string | undefined)?.trim() || undefined;
        if (input.idleTimeoutMs != null && !isIdleLimit(input.idleTimeoutMs))
          throw new ServerRegistryError(400, "idleTimeoutMs must be a positive integer (milliseconds)");
        const idleTimeoutMs = (input.idleTimeoutMs as number | undefined) ?? undefined;
        if ((await list()).some((s) => s.name === name))
          throw new ServerRegistryError(409, `a server named "${name}" already exists`);
        const extra = { ...(apiKey ? { apiKey } : {}), ...(idleTimeoutMs ? { idleTimeoutMs } : {}) };
        const entry: ServerEntry = { name, url, source: "user", ...extra };
        const verdict = await checkAddress(entry);
        if (!verdict.ok) throw new ServerRegistryError(403, `refused: ${verdict.reason}`);
        const added = await persistence.addUser({ name, url, ...extra });
        cached = undefined;
        // Another replica may have added it meanwhile (one database): the same answer as above.
        if (!added) throw new ServerRegistryError(409, `a server named "${name}" already exists`);
        return entry;
      }),
    remove: (name) =>
      locked(async () => {
        const entry = (await list()).find((s) => s.name === name);
        if (!entry) throw new ServerRegistryError(404, `unknown server "${name}"`);
        if (entry.source !== "user")
          throw new ServerRegistryError(
            403,
            `server "${name}" comes from ${entry.source === "builtin" ? "the app itself" : entry.source === "env" ? "ORS_SERVERS" : entry.source === "spawned" ? "--spawn (the playground runs it)" : "servers.json"} and cannot be removed here`,
          );
        await persistence.removeUser(name);
        cached = undefined;
      }),
  };
}

export function toPublicServer(s: ServerEntry): PublicServer {
  return {
    name: s.name,
    url: s.url,
    source: s.source,
    hasApiKey: !!s.apiKey,
    idleTimeoutMs: s.idleTimeoutMs ?? null,
    maxSessions: s.maxSessions ?? null,
  };
}

function isIdleLimit(v: unknown): v is number {
  return typeof v === "number" && Number.isInteger(v) && v > 0;
}
