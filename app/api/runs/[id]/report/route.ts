// GET /api/runs/<id>/report: the run as one self-contained HTML file (docs/review.md "Run reports"):
// summary, histogram, pass@k, tasks worst first, errors, links back; no script, strict CSP.
import { htmlExportHeaders } from "@/lib/episodes/html-export";
import { getPlayground } from "@/lib/playground";
import { originOf, respond } from "@/lib/review/http";
import { runReportHtml } from "@/lib/review/report-html";
import { runSummary } from "@/lib/runs/http";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export async function GET(req: Request, ctx: { params: Promise<{ id: string }> }) {
  const { id } = await ctx.params;
  return respond(async () => {
    const html = await runReportHtml(await runSummary(getPlayground(), id), {
      origin: originOf(req),
    });
    return new Response(html, { headers: htmlExportHeaders(`run-${id}-report.html`) });
  });
}
