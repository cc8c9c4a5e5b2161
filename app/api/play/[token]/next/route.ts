// POST /api/play/<token>/next {player}: the player's episode settled and the next task started →
// their progress (`current` null once every task is played).
import { getPlayground } from "@/lib/playground";
import { answer, nextPlay } from "@/lib/review/http";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export async function POST(req: Request, ctx: { params: Promise<{ token: string }> }) {
  const { token } = await ctx.params;
  return answer(() => nextPlay(getPlayground(), req, token));
}
