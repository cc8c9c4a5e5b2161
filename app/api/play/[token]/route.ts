// GET /api/play/<token>: what a share link plays (environment, split, how many tasks, until when);
// answered without the access token (the request policy's `share` paths), 404/410 for a link that
// opens nothing.
import { getPlayground } from "@/lib/playground";
import { answer, playInfo } from "@/lib/review/http";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export async function GET(_req: Request, ctx: { params: Promise<{ token: string }> }) {
  const { token } = await ctx.params;
  return answer(() => playInfo(getPlayground(), token));
}
