// GET /api/servers/<name>: one server with its health. DELETE: removes a user-added server.

import { errorResponse } from "@/lib/ors/protocol";
import { getPlayground } from "@/lib/playground";
import { checkServerHealth, isServerRegistryError, toPublicServer } from "@/lib/registry";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

type Ctx = { params: Promise<{ name: string }> };

export async function GET(_req: Request, ctx: Ctx) {
  const { name } = await ctx.params;
  const registry = getPlayground().registry;
  const entry = await registry.get(name);
  if (!entry) return errorResponse(404, `unknown server "${name}"`);
  const health = await checkServerHealth(registry, entry);
  return Response.json({ ...toPublicServer(entry), health }, { headers: { "cache-control": "no-store" } });
}

export async function DELETE(_req: Request, ctx: Ctx) {
  const { name } = await ctx.params;
  try {
    await getPlayground().registry.remove(name);
    return Response.json({ name, deleted: true });
  } catch (err) {
    if (isServerRegistryError(err)) return errorResponse(err.status, err.detail);
    throw err;
  }
}
