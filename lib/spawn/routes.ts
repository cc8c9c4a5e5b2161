// What the spawned-server routes (`/api/servers/<name>/log`, `/log/events`, `/restart`) share: the
// server by name, or the 404 that says why there is none.
import "server-only";
import type { ServerRegistry } from "@/lib/registry";
import type { ManagedServer } from "./managed-server";
import type { ServerSupervisor } from "./supervisor";

export async function spawnedOr404(
  pg: { registry: Pick<ServerRegistry, "get">; spawned: Pick<ServerSupervisor, "get"> },
  name: string,
): Promise<{ server: ManagedServer } | { status: 404; detail: string }> {
  const server = pg.spawned.get(name);
  if (server) return { server };
  if (!(await pg.registry.get(name))) return { status: 404, detail: `unknown server "${name}"` };
  return {
    status: 404,
    detail: `server "${name}" was not started by this playground: only servers started with --spawn (or the config file's "spawn") have a log and a restart here`,
  };
}
