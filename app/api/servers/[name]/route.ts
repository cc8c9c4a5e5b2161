// GET /api/servers/<name>: one server with its health. DELETE: removes a user-added server.

import { json, route } from "@/lib/http";
import { OrsError } from "@/lib/ors/protocol";
import { getPlayground } from "@/lib/playground";
import { checkServerHealth, toPublicServer } from "@/lib/registry";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const GET = route<{ name: string }>(async (_req, { name }) => {
  const registry = getPlayground().registry;
  const entry = await registry.get(name);
  if (!entry) throw new OrsError(404, `unknown server "${name}"`);
  return json({ ...toPublicServer(entry), health: await checkServerHealth(registry, entry) });
});

export const DELETE = route<{ name: string }>(async (_req, { name }) => {
  await getPlayground().registry.remove(name);
  return json({ name, deleted: true });
});
