// The MCP bridge of a known server: /api/servers/<name>/mcp speaks MCP's Streamable HTTP, and the
// episodes its clients play go through the recording relay (lib/mcp, docs/mcp.md).
import { getPlayground } from "@/lib/playground";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

async function mcp(req: Request, ctx: { params: Promise<{ name: string }> }) {
  const { name } = await ctx.params;
  return getPlayground().mcp.handle(req, name);
}

export { mcp as DELETE, mcp as GET, mcp as POST };
