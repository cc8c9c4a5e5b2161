// POST /api/play/<token>/join {player}: the player's run (policy `human`) and progress; sets the
// player's cookie.
import { getPlayground } from "@/lib/playground";
import { joinPlay } from "@/lib/review/http";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export async function POST(req: Request, ctx: { params: Promise<{ token: string }> }) {
  const { token } = await ctx.params;
  return joinPlay(getPlayground(), req, token);
}
