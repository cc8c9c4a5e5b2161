// POST /api/trajectories/import: JSON (one trajectory or an array) or JSONL, validated with the
// trajectory schema; all-or-nothing in one transaction; ids that already exist are skipped.

import { jsonError } from "@/lib/episodes/http";
import { parseTrajectories } from "@/lib/episodes/jsonl";
import { getPlayground } from "@/lib/playground";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

const MAX_BYTES = 50 * 1024 * 1024;

export async function POST(req: Request) {
  const length = Number(req.headers.get("content-length") ?? 0);
  if (length > MAX_BYTES) return jsonError(413, `the file is larger than ${MAX_BYTES / 1024 / 1024} MB`);
  const text = await req.text();
  if (text.length > MAX_BYTES) return jsonError(413, `the file is larger than ${MAX_BYTES / 1024 / 1024} MB`);
  const parsed = parseTrajectories(text);
  if (!parsed.ok) {
    return Response.json(
      { detail: `nothing imported: ${parsed.errors[0]}`, errors: parsed.errors },
      { status: 400 },
    );
  }
  try {
    const { imported, skipped } = getPlayground().store.importMany(parsed.trajectories);
    return Response.json({ imported, skipped });
  } catch (e) {
    return jsonError(500, `nothing imported: ${e instanceof Error ? e.message : String(e)}`);
  }
}
