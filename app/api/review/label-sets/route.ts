// GET /api/review/label-sets?server=&env=: label sets, newest first → {items}. POST {server, env,
// name, target?, schema, verdict?} creates one → 201 the set (docs/review.md "HTTP API").
import { getPlayground } from "@/lib/playground";
import { answer, createLabelSet, listLabelSets } from "@/lib/review/http";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export function GET(req: Request) {
  return answer(() => listLabelSets(getPlayground().store, new URL(req.url)));
}

export function POST(req: Request) {
  return answer(() => createLabelSet(getPlayground().store, req), 201);
}
