// GET /api/models: the model endpoints the app may call (PLAYGROUND_MODELS): names and base URLs,
// whether a key is configured — never a key (docs/runs.md "Model endpoints").
import { json, route } from "@/lib/http";
import { getPlayground } from "@/lib/playground";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const GET = route(() => json({ items: getPlayground().models.list() }));
