// POST /api/trajectories/import: JSON (one trajectory or an array) or JSONL, validated with the
// trajectory schema; all-or-nothing in one transaction; ids that already exist are skipped.

import { json, readBody, route } from "@/lib/http";
import { isOrsError, OrsError } from "@/lib/ors/protocol";
import { getPlayground } from "@/lib/playground";
import { parseTrajectories } from "@/lib/trajectory/jsonl";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

const MAX_BYTES = 50 * 1024 * 1024;

export const POST = route(async (req) => {
  const text = await readBody(req, MAX_BYTES).catch((e: unknown) => {
    throw isOrsError(e) ? new OrsError(e.status, `nothing imported: ${e.detail}`) : e;
  });
  const parsed = parseTrajectories(text);
  if (!parsed.ok)
    throw new OrsError(400, `nothing imported: ${parsed.errors[0]}`, undefined, { errors: parsed.errors });
  return json(await getPlayground().store.importMany(parsed.trajectories));
});
