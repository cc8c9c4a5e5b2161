// What the spawned-server routes (`/api/servers/<name>/log`, `/log/events`, `/restart`) share: the
// server by name, or the 404 that says why there is none.
import "server-only";
import { OrsError } from "@/lib/ors/protocol";
import type { ManagedServer } from "./managed-server";

/** Where the routes look a server up: the servers this process runs, and every known one. */
export interface SpawnedLookup {
  spawned: { get(name: string): ManagedServer | undefined };
  registry: { get(name: string): Promise<unknown> };
}

/** The server `name` this playground started; a 404 OrsError saying why there is none. */
export async function spawnedOr404(pg: SpawnedLookup, name: string): Promise<ManagedServer> {
  const server = pg.spawned.get(name);
  if (server) return server;
  if (!(await pg.registry.get(name))) throw new OrsError(404, `unknown server "${name}"`);
  throw new OrsError(
    404,
    `server "${name}" was not started by this playground: only servers started with --spawn (or the config file's "spawn") have a log and a restart here`,
  );
}
