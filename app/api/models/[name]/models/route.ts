// GET /api/models/<name>/models: the model ids the configured endpoint <name> lists (its own
// `GET /v1/models`, reached by the server with the endpoint's key) → {items: [{id}]}; the key never
// reaches the browser (docs/runs.md "A model at the controls").
import { json, route } from "@/lib/http";
import { getPlayground } from "@/lib/playground";
import { listModelIds } from "@/lib/runs/model-ids";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const GET = route<{ name: string }>(async (req, { name }) =>
  json({ items: (await listModelIds(getPlayground().models, name, req.signal)).map((id) => ({ id })) }),
);
