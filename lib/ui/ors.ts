// The UI's way to reach an ORS server: always through the relay at /api/servers/<name> (or a share
// link's, ./api-base.ts), the built-in `local` host included, with the typed client. One client per
// server name and base per tab.
import { createOrsClient, type OrsClient } from "@/lib/ors/client";
import { DEFAULT_API_BASE, relayBaseUrl } from "./api-base";

const clients = new Map<string, OrsClient>();

/** The typed ORS client for a known server, talking to it through the relay. */
export function orsClientFor(serverName: string, apiBase = DEFAULT_API_BASE): OrsClient {
  const key = `${apiBase} ${serverName}`;
  let client = clients.get(key);
  if (!client) {
    client = createOrsClient({ baseUrl: relayBaseUrl(serverName, apiBase) });
    clients.set(key, client);
  }
  return client;
}
