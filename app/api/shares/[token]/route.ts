// GET /api/shares/<token>: a share link with its players. DELETE revokes it: its page and APIs
// answer 410 from then on, and its players' runs stop.
import { getPlayground } from "@/lib/playground";
import { answer, shareWithPlayers } from "@/lib/review/http";
import { revokeShare } from "@/lib/review/share";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

type Ctx = { params: Promise<{ token: string }> };

export async function GET(_req: Request, ctx: Ctx) {
  const { token } = await ctx.params;
  return answer(() => shareWithPlayers(getPlayground(), token));
}

export async function DELETE(_req: Request, ctx: Ctx) {
  const { token } = await ctx.params;
  return answer(() => revokeShare(getPlayground(), token));
}
