// Which requests the server entry hands straight to the relay (its fast path): `/api/servers/<name>/`
// followed by an ORS endpoint shape the relay carries. Every other path under /api/servers (a
// server's own routes: check, log, restart) stays Next's, whose catch-all route relays the rest.
import "server-only";
import { checkRelayRequest } from "@/lib/relay/request-shape";

const PREFIX = "/api/servers/";

/** The server name and ORS path of a relayed ORS request, or null when it is not one. */
export function relayTarget(method: string, path: string): { name: string; orsPath: string } | null {
  if (!path.startsWith(PREFIX)) return null;
  const slash = path.indexOf("/", PREFIX.length);
  if (slash <= PREFIX.length) return null;
  let name: string;
  try {
    name = decodeURIComponent(path.slice(PREFIX.length, slash));
  } catch {
    return null;
  }
  const orsPath = path.slice(slash);
  // The query string is checked by the relay itself (refused: ORS takes none).
  return checkRelayRequest(method, orsPath, "").ok ? { name, orsPath } : null;
}
