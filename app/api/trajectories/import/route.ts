// POST /api/trajectories/import: JSON (one trajectory or an array) or JSONL, validated with the
// trajectory schema; all-or-nothing in one transaction; ids that already exist are skipped.

import { BodyError, readBody } from "@/lib/episodes/http";
import { errorResponse } from "@/lib/ors/protocol";
import { getPlayground } from "@/lib/playground";
import { parseTrajectories } from "@/lib/trajectory/jsonl";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

const MAX_BYTES = 50 * 1024 * 1024;

export async function POST(req: Request) {
  let text: string;
  try {
    text = await readBody(req, MAX_BYTES);
  } catch (e) {
    if (e instanceof BodyError) return errorResponse(e.status, `nothing imported: ${e.detail}`);
    throw e;
  }
  const parsed = parseTrajectories(text);
  if (!parsed.ok) {
    return errorResponse(400, `nothing imported: ${parsed.errors[0]}`, undefined, { errors: parsed.errors });
  }
  try {
    const { imported, skipped } = await getPlayground().store.importMany(parsed.trajectories);
    return Response.json({ imported, skipped });
  } catch (e) {
    return errorResponse(500, `nothing imported: ${e instanceof Error ? e.message : String(e)}`);
  }
}
