// GET /api/servers: the known servers with their health. POST /api/servers {name, url, apiKey?, idleTimeoutMs?}:
// adds a user server (name and address checked; see lib/registry).

import { json, readJsonObject, route } from "@/lib/http";
import { getPlayground } from "@/lib/playground";
import { checkServerHealth, toPublicServer } from "@/lib/registry";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const GET = route(async () => {
  const registry = getPlayground().registry;
  const servers = await registry.list();
  return json(
    await Promise.all(
      servers.map(async (s) => ({ ...toPublicServer(s), health: await checkServerHealth(registry, s) })),
    ),
  );
});

export const POST = route(async (req) => {
  const { name, url, apiKey, idleTimeoutMs } = await readJsonObject(req);
  const registry = getPlayground().registry;
  const entry = await registry.add({ name, url, apiKey, idleTimeoutMs });
  const health = await checkServerHealth(registry, entry);
  return json({ ...toPublicServer(entry), health }, { status: 201 });
});
