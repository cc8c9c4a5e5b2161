// GET /api/leaderboards/<server>/<env>/<split>: every run of the split, best first, with its
// figures (docs/review.md "Leaderboards"); `?format=html` the leaderboard as one HTML file.
import { htmlExportHeaders } from "@/lib/episodes/html-export";
import { OrsError } from "@/lib/ors/protocol";
import { getPlayground } from "@/lib/playground";
import { originOf, respond } from "@/lib/review/http";
import { leaderboard } from "@/lib/review/leaderboard";
import { leaderboardReportHtml } from "@/lib/review/report-html";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

type Ctx = { params: Promise<{ server: string; env: string; split: string }> };

export async function GET(req: Request, ctx: Ctx) {
  const { server, env, split } = await ctx.params;
  const url = new URL(req.url);
  const format = url.searchParams.get("format") ?? "json";
  return respond(async () => {
    if (format !== "json" && format !== "html")
      throw new OrsError(400, `format: expected json or html, got ${JSON.stringify(format.slice(0, 40))}`);
    const board = await leaderboard(getPlayground().store, server, env, split);
    if (format === "json") return Response.json(board, { headers: { "Cache-Control": "no-store" } });
    const html = await leaderboardReportHtml(board, { origin: originOf(req) });
    return new Response(html, { headers: htmlExportHeaders(`leaderboard-${env}-${split}.html`) });
  });
}
