// Loads the typed ORS client on demand. The client carries the protocol's zod schemas (~36 kB
// gzipped), so no page has it in its first-load JS: it is fetched once the page has loaded (the
// `load` event; at once on client-side navigations), in parallel with the page's first requests.
// Same per-server client cache as `orsClientFor`.
import type { OrsClient } from "@/lib/ors/client";

let loaded: Promise<void> | null = null;

/** A resource that never finishes (a stalled image) must not hold the page's data back for good. */
const LOAD_WAIT_LIMIT_MS = 3000;

/**
 * Resolves once the document has loaded (at most LOAD_WAIT_LIMIT_MS from the first call), so
 * on-demand chunks never compete with the first-load ones.
 */
export function afterPageLoad(): Promise<void> {
  if (typeof window === "undefined" || document.readyState === "complete") return Promise.resolve();
  loaded ??= new Promise<void>((resolve) => {
    window.addEventListener("load", () => resolve(), { once: true });
    setTimeout(resolve, LOAD_WAIT_LIMIT_MS);
  });
  return loaded;
}

/** The typed client of a server through the relay (`apiBase`: ./api-base.ts), loaded on demand. */
export async function loadOrsClient(serverName: string, apiBase?: string): Promise<OrsClient> {
  await afterPageLoad();
  const { orsClientFor } = await import("./ors");
  return orsClientFor(serverName, apiBase);
}
