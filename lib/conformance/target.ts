// A known server as the app's server-side checks reach it (the check page, the compare view): the
// built-in `local` in process, any other at its URL once the registry's address policy allows it
// and, for a server added at run time, once it answers like an ORS server; its API key with it.
import type { Playground } from "@/lib/playground";

export type ServerTarget =
  | { ok: true; builtin: boolean; baseUrl: string; fetch?: typeof fetch; apiKey?: string }
  | { ok: false; status: number; detail: string };

/** Where to reach server `name`, or the answer the API gives when it may not be reached. */
export async function serverTarget(
  pg: Pick<Playground, "registry" | "host">,
  name: string,
): Promise<ServerTarget> {
  const entry = await pg.registry.get(name);
  if (!entry) return { ok: false, status: 404, detail: `unknown server "${name}"` };
  if (entry.source === "builtin")
    return {
      ok: true,
      builtin: true,
      baseUrl: "http://local.invalid",
      fetch: (input, init) => pg.host(new Request(input, init)),
    };
  const verdict = await pg.registry.checkAddress(entry);
  if (!verdict.ok)
    return { ok: false, status: 403, detail: `refused: server "${name}" (${entry.url}): ${verdict.reason}` };
  // What follows sends POSTs: a server added at run time must first answer like an ORS server.
  const ors = await pg.registry.checkOrsServer(entry, verdict.addresses);
  if (!ors.ok)
    return { ok: false, status: ors.status, detail: `server "${name}" (${entry.url}) ${ors.reason}` };
  return { ok: true, builtin: false, baseUrl: entry.url, ...(entry.apiKey ? { apiKey: entry.apiKey } : {}) };
}
