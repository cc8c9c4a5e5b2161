// GET /api/review/labels?labelSet=&trajectory=&reviewer=&queue=: labels → {items}. PUT {labelSet,
// trajectoryId, step?, reviewer, value} writes a reviewer's label, checked against its set.
import { getPlayground } from "@/lib/playground";
import { answer, listLabels, putLabel } from "@/lib/review/http";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export function GET(req: Request) {
  return answer(() => listLabels(getPlayground().store, new URL(req.url)));
}

export function PUT(req: Request) {
  return answer(() => putLabel(getPlayground().store, req));
}
