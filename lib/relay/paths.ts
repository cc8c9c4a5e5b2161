// Where a relayed request goes and where its redirects lead: the ORS path of a relay URL, a
// server's Location mapped back into the relay, a server as error messages name it.
import type { ServerEntry } from "@/lib/registry";

/**
 * The ORS path of a relay URL: `/api/servers/py/math/call?x=1` → `/math/call`. The path keeps its
 * percent-encoding, so environment names with reserved characters survive the hop.
 */
export function orsPathFromUrl(url: string, name: string): string {
  const { pathname } = new URL(url);
  const prefix = `/api/servers/${encodeURIComponent(name)}`;
  if (pathname.startsWith(`${prefix}/`)) return pathname.slice(prefix.length);
  const i = pathname.indexOf("/", "/api/servers/".length);
  return i >= 0 ? pathname.slice(i) : "/";
}

export function describeServer(entry: ServerEntry): string {
  return entry.source === "builtin" ? `server "${entry.name}"` : `server "${entry.name}" (${entry.url})`;
}

/**
 * Maps a redirect Location into the relay when it points at the same server (same origin, under
 * its base path): `http://srv/math/tools` → `/api/servers/<name>/math/tools`. Null otherwise.
 */
export function mapRedirect(
  entry: ServerEntry,
  name: string,
  orsPath: string,
  location: string,
): string | null {
  const base = entry.source === "builtin" ? new URL("http://local.invalid/") : new URL(`${entry.url}/`);
  let target: URL;
  try {
    target = new URL(location, new URL(`.${orsPath}`, base));
  } catch {
    return null;
  }
  if (target.origin !== base.origin) return null;
  const basePath = base.pathname.replace(/\/+$/, "");
  if (basePath && !(target.pathname === basePath || target.pathname.startsWith(`${basePath}/`))) return null;
  const rest = target.pathname.slice(basePath.length) || "/";
  return `/api/servers/${encodeURIComponent(name)}${rest}${target.search}`;
}
