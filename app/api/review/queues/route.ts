// GET /api/review/queues?run=&labelSet=: review queues with each reviewer's progress → {items}.
// POST {labelSet, run, size?, stratified?, seed?, reviewers, perEpisode?, blind?, successAt?, name?}
// samples the run's episodes into a queue → 201 (docs/review.md "Queues").
import { getPlayground } from "@/lib/playground";
import { answer, listQueues, startQueue } from "@/lib/review/http";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export function GET(req: Request) {
  return answer(() => listQueues(getPlayground().store, new URL(req.url)));
}

export function POST(req: Request) {
  return answer(() => startQueue(getPlayground().store, req), 201);
}
