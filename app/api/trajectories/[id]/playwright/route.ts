// GET /api/trajectories/<id>/playwright: the trajectory as a Playwright spec that drives the
// playground UI through the same steps (lib/episodes/playwright-export.ts), as a download. The
// comparison's options come as `test` takes them: ?ignore=&mask=&reward_tolerance=&normalize_whitespace=.

import { trajectoryOr404 } from "@/lib/episodes/http";
import {
  compareOptionsFromQuery,
  playwrightExportProblem,
  playwrightSpec,
  playwrightSpecFileName,
} from "@/lib/episodes/playwright-export";
import { noStore, route } from "@/lib/http";
import { OrsError } from "@/lib/ors/protocol";
import { getPlayground } from "@/lib/playground";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const GET = route<{ id: string }>(async (req, { id }) => {
  const t = await trajectoryOr404(getPlayground().store, id);
  const problem = playwrightExportProblem(t);
  if (problem) throw new OrsError(422, `cannot export it as a Playwright test: ${problem}`);
  // The address the user reached the app at (its Host header: `req.url` may name another
  // spelling of it), for the spec's header and its default base URL; only ever text in the spec.
  const url = new URL(req.url);
  let compare: ReturnType<typeof compareOptionsFromQuery>;
  try {
    compare = compareOptionsFromQuery(url.searchParams);
  } catch (e) {
    throw new OrsError(400, (e as Error).message);
  }
  const origin = `${url.protocol}//${req.headers.get("host") ?? url.host}`;
  const spec = playwrightSpec(t, { origin, exportedAt: Date.now(), compare });
  return new Response(spec, {
    headers: {
      ...noStore,
      "Content-Type": "text/plain; charset=utf-8",
      "Content-Disposition": `attachment; filename="${playwrightSpecFileName(t)}"`,
      "X-Content-Type-Options": "nosniff",
    },
  });
});
