// The UI's way to reach an ORS server: always through the relay at /api/servers/<name>, the
// built-in `local` host included, with the typed client. One client per server name per tab.
import { createOrsClient, type OrsClient } from "@/lib/ors/client";

const clients = new Map<string, OrsClient>();

/** Base URL of a server behind the relay, e.g. `/api/servers/local`. */
export function relayBaseUrl(serverName: string): string {
  return `/api/servers/${encodeURIComponent(serverName)}`;
}

/** The typed ORS client for a known server, talking to it through the relay. */
export function orsClientFor(serverName: string): OrsClient {
  let client = clients.get(serverName);
  if (!client) {
    client = createOrsClient({ baseUrl: relayBaseUrl(serverName) });
    clients.set(serverName, client);
  }
  return client;
}
