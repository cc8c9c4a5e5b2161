// GET /api/servers: the known servers with their health. POST /api/servers {name, url, apiKey?, idleTimeoutMs?}:
// adds a user server (name and address checked; see lib/registry).

import { errorResponse } from "@/lib/ors/protocol";
import { getPlayground } from "@/lib/playground";
import { checkServerHealth, isServerRegistryError, toPublicServer } from "@/lib/registry";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export async function GET() {
  const registry = getPlayground().registry;
  const servers = await registry.list();
  const out = await Promise.all(
    servers.map(async (s) => ({ ...toPublicServer(s), health: await checkServerHealth(registry, s) })),
  );
  return Response.json(out, { headers: { "cache-control": "no-store" } });
}

export async function POST(req: Request) {
  let body: unknown;
  try {
    body = await req.json();
  } catch {
    return errorResponse(400, "body must be JSON {name, url, apiKey?}");
  }
  if (!body || typeof body !== "object" || Array.isArray(body))
    return errorResponse(400, "body must be JSON {name, url, apiKey?}");
  const { name, url, apiKey, idleTimeoutMs } = body as Record<string, unknown>;
  const registry = getPlayground().registry;
  try {
    const entry = await registry.add({ name, url, apiKey, idleTimeoutMs });
    const health = await checkServerHealth(registry, entry);
    return Response.json({ ...toPublicServer(entry), health }, { status: 201 });
  } catch (err) {
    if (isServerRegistryError(err)) return errorResponse(err.status, err.detail);
    throw err;
  }
}
