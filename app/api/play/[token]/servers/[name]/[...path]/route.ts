// /api/play/<token>/servers/<name>/<ORS path>: the recording relay for a share link's player, their
// own session's tools, calls, pings and end only (lib/review/share-gate.ts).
import { getPlayground } from "@/lib/playground";
import { respond } from "@/lib/review/http";
import { gateRelay } from "@/lib/review/share-gate";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

type Ctx = { params: Promise<{ token: string; name: string; path: string[] }> };

async function relay(req: Request, ctx: Ctx) {
  const { token, name } = await ctx.params;
  // The ORS path as requested (still percent-encoded): what follows the server's segment.
  const path = new URL(req.url).pathname;
  const rest = path.indexOf("/", path.indexOf("/servers/") + "/servers/".length);
  const orsPath = rest < 0 ? "/" : path.slice(rest);
  return respond(() => gateRelay(getPlayground(), req, token, name, orsPath));
}

export { relay as DELETE, relay as GET, relay as HEAD, relay as POST };
