// GET /api/trajectories/<id>/export?format=html: the trajectory as one self-contained HTML file (a
// download; lib/episodes/html-export.ts) to send to someone without the playground. `html` is the
// default and only format here (JSON is GET /api/trajectories/<id>?download=1).

import { blocksHtml } from "@/components/trajectories/html-export-blocks";
import { htmlExportHeaders, trajectoryHtml } from "@/lib/episodes/html-export";
import { trajectoryOr404, withInflight } from "@/lib/episodes/http";
import { route } from "@/lib/http";
import { OrsError } from "@/lib/ors/protocol";
import { getPlayground } from "@/lib/playground";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const GET = route<{ id: string }>(async (req, { id }) => {
  const format = new URL(req.url).searchParams.get("format") ?? "html";
  if (format !== "html")
    throw new OrsError(
      400,
      `format: expected "html", got ${JSON.stringify(format)} (JSON: GET /api/trajectories/${id}?download=1)`,
    );
  const { store, recorder } = getPlayground();
  const t = await trajectoryOr404(store, id);
  const html = await trajectoryHtml(withInflight(t, recorder), { blocks: blocksHtml });
  return new Response(html, { headers: htmlExportHeaders(`trajectory-${id}.html`) });
});
