// Which request paths belong to the ORS host when it shares a server with other routes (the app's
// server entry, lib/app-server, hands these to the node:http adapter and everything else to Next):
// the base path, and optionally the root endpoint shapes of next.config.mjs's rewrites.
import { parseOrsPath } from "../protocol/paths";

/** Whether a request path belongs to the ORS host mounted at `basePath` (and at the root if `root`). */
export function isOrsRequestPath(path: string, basePath: string, root: boolean): boolean {
  if (basePath && (path === basePath || path.startsWith(`${basePath}/`))) return true;
  return root && parseOrsPath(path).kind !== "unknown";
}
