// The recording relay: /api/servers/<name>/<ORS path> → that server's <ORS path> (lib/relay).
import { route } from "@/lib/http";
import { getPlayground } from "@/lib/playground";
import { orsPathFromUrl } from "@/lib/relay/relay";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

const relay = route<{ name: string; path: string[] }>((req, { name }) =>
  getPlayground().relay.handle(req, name, orsPathFromUrl(req.url, name)),
);

export {
  relay as DELETE,
  relay as GET,
  relay as HEAD,
  relay as OPTIONS,
  relay as PATCH,
  relay as POST,
  relay as PUT,
};
