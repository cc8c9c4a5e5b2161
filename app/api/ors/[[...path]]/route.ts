// The ORS host mounted at /api/ors (and, through next.config.mjs rewrites, at the root): every
// method goes to the same handler, which answers 405 where the spec has no such route.
import { getPlayground } from "@/lib/playground";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

function handle(req: Request): Promise<Response> {
  return getPlayground().host(req);
}

export { handle as DELETE, handle as GET, handle as OPTIONS, handle as PATCH, handle as POST, handle as PUT };
