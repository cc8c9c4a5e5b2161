// GET /api/shares?server=&env=: share links with their players → {items}. POST {server, env, split,
// tasks?, expiresAt?, note?} makes one → 201 with its token (its page: /play/<token>).
import { getPlayground } from "@/lib/playground";
import { answer, listShares, startShare } from "@/lib/review/http";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export function GET(req: Request) {
  return answer(() => listShares(getPlayground(), new URL(req.url)));
}

export function POST(req: Request) {
  return answer(() => startShare(getPlayground(), req), 201);
}
