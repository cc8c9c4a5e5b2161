// Health of a known server: GET /health with a short time limit, as shown by GET /api/servers.
import "server-only";
import { healthResponseSchema } from "@/lib/ors/protocol";
import { createPinnedFetch } from "@/lib/security/pinned-fetch";
import { describeFetchError } from "./ors-probe";
import type { ServerEntry, ServerRegistry } from "./registry";

export interface ServerHealth {
  ok: boolean;
  /** The HTTP status of /health, when there was an answer. */
  status?: number;
  /** Why it is not healthy (unreachable, timed out, not an ORS server, refused ...). */
  detail?: string;
  latencyMs: number;
}

/** Connects only to the addresses just checked (no second DNS lookup), as the relay does. */
const pinnedFetch = createPinnedFetch({ maxPools: 8 });

/** Checks one server's /health within `timeoutMs` (default 2 s). Never throws. */
export async function checkServerHealth(
  registry: ServerRegistry,
  entry: ServerEntry,
  timeoutMs = 2_000,
): Promise<ServerHealth> {
  const started = performance.now();
  const done = (h: Omit<ServerHealth, "latencyMs">): ServerHealth => ({
    ...h,
    latencyMs: Math.round(performance.now() - started),
  });
  const signal = AbortSignal.timeout(timeoutMs);
  try {
    let res: Response;
    if (entry.source === "builtin") {
      res = await registry.localHandler()(new Request("http://local.invalid/health", { signal }));
    } else {
      const verdict = await registry.checkAddress(entry);
      if (!verdict.ok) return done({ ok: false, detail: `refused: ${verdict.reason}` });
      const headers = new Headers({ Accept: "application/json" });
      if (entry.apiKey) headers.set("X-API-Key", entry.apiKey);
      res = await pinnedFetch(
        `${entry.url}/health`,
        { headers, signal, redirect: "manual" },
        verdict.addresses,
      );
    }
    const text = await res.text();
    if (!res.ok)
      return done({ ok: false, status: res.status, detail: `/health answered HTTP ${res.status}` });
    try {
      if (healthResponseSchema.safeParse(JSON.parse(text)).success)
        return done({ ok: true, status: res.status });
    } catch {
      // not JSON
    }
    return done({
      ok: false,
      status: res.status,
      detail: 'not an ORS server (/health is not {"status": ...})',
    });
  } catch (err) {
    if (signal.aborted) return done({ ok: false, detail: `timed out after ${timeoutMs / 1000} s` });
    return done({ ok: false, detail: `unreachable: ${describeFetchError(err)}` });
  }
}
