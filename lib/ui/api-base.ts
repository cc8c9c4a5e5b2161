// Where the episode page's requests go: the playground's own API (`/api`), or a share link's
// (`/api/play/<token>`, which answers the same paths for its player's own episodes: docs/review.md
// "Share links"). The relay of a server is `<base>/servers/<name>` either way.

/** The playground's own API. */
export const DEFAULT_API_BASE = "/api";

/** Base URL of a server behind the relay, e.g. `/api/servers/local`. */
export function relayBaseUrl(serverName: string, apiBase = DEFAULT_API_BASE): string {
  return `${apiBase}/servers/${encodeURIComponent(serverName)}`;
}
