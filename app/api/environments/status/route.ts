// GET /api/environments/status: the built-in host's reloads (lib/environments/reload-status.ts) —
// what is watched, the last reload, and each save that did not load, with its file and line — for
// the banner on the environment's page and on its episodes.
import { json, route } from "@/lib/http";
import { getPlayground } from "@/lib/playground";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const GET = route(() => json(getPlayground().environments.status()));
