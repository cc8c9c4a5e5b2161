// GET /api/runs/<id>/export?format=atif|chat-jsonl|jsonl|verifiers|task-weights|parquet: the run's
// episodes (one line each), its tasks' weights, or its prompts as Parquet (docs/runs.md "Exports").
import { route } from "@/lib/http";
import { getPlayground } from "@/lib/playground";
import { runExport } from "@/lib/runs/run-export";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const GET = route<{ id: string }>((req, { id }) =>
  runExport(getPlayground().store, id, new URL(req.url)),
);
