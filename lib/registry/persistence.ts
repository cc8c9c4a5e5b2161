// Where the registry keeps servers (its persistence seam): by default `servers.json` in the data
// folder (hand-written "servers", added "userServers"; written atomically, owner-only); with
// PLAYGROUND_DATABASE_URL the added servers live in PostgreSQL (./postgres-persistence.ts).
import "server-only";
import { randomBytes } from "node:crypto";
import { mkdir, readFile, rename, writeFile } from "node:fs/promises";
import path from "node:path";

/** A server as kept: its name, base URL, and the per-server settings. */
export interface StoredServer {
  name: string;
  url: string;
  apiKey?: string;
  idleTimeoutMs?: number;
  /** The cap on runs' sessions on it (docs/runs.md "Capacity"). */
  maxSessions?: number;
}

export interface ServerPersistence {
  /** The hand-written servers (configuration) and the ones users added, as stored (unchecked). */
  read(): Promise<{ servers: unknown; userServers: unknown }>;
  /** Keeps an added server; false when one of that name is already kept there. */
  addUser(entry: StoredServer): Promise<boolean>;
  /** Forgets an added server; false when there was none of that name. */
  removeUser(name: string): Promise<boolean>;
}

interface ServersFile {
  servers?: unknown;
  userServers?: unknown;
  [other: string]: unknown;
}

/** `servers.json` in `dataDir`: read as it is, written atomically (tmp + rename), mode 0600. */
export function fileServerPersistence(dataDir: string): ServerPersistence {
  const file = path.join(dataDir, "servers.json");
  async function load(): Promise<ServersFile> {
    let text: string;
    try {
      text = await readFile(file, "utf8");
    } catch (err) {
      if ((err as { code?: string }).code === "ENOENT") return {};
      throw err;
    }
    try {
      const v = JSON.parse(text) as unknown;
      return v && typeof v === "object" && !Array.isArray(v) ? (v as ServersFile) : {};
    } catch {
      console.warn(`${file}: not valid JSON; ignoring it`);
      return {};
    }
  }
  async function save(data: ServersFile): Promise<void> {
    await mkdir(dataDir, { recursive: true, mode: 0o700 });
    const tmp = `${file}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`;
    await writeFile(tmp, `${JSON.stringify(data, null, 2)}\n`, { mode: 0o600 });
    await rename(tmp, file);
  }
  const users = (f: ServersFile): StoredServer[] => (Array.isArray(f.userServers) ? f.userServers : []);
  return {
    async read() {
      const f = await load();
      return { servers: f.servers, userServers: f.userServers };
    },
    async addUser(entry) {
      const f = await load();
      if (users(f).some((e) => e?.name === entry.name)) return false;
      f.userServers = [...users(f), entry];
      await save(f);
      return true;
    },
    async removeUser(name) {
      const f = await load();
      const kept = users(f).filter((e) => e?.name !== name);
      if (kept.length === users(f).length) return false;
      f.userServers = kept;
      await save(f);
      return true;
    },
  };
}
