// The recording relay: /api/servers/<name>/<ORS path> → that server's <ORS path> (lib/relay).
import { getPlayground } from "@/lib/playground";
import { orsPathFromUrl } from "@/lib/relay/relay";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

async function relay(req: Request, ctx: { params: Promise<{ name: string; path: string[] }> }) {
  const { name } = await ctx.params;
  return getPlayground().relay.handle(req, name, orsPathFromUrl(req.url, name));
}

export {
  relay as DELETE,
  relay as GET,
  relay as HEAD,
  relay as OPTIONS,
  relay as PATCH,
  relay as POST,
  relay as PUT,
};
