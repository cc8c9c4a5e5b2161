// Loads the typed ORS client on demand. The client carries the protocol's zod schemas (~30 kB
// gzipped), so pages that only read through queries fetch it in parallel with their first request
// instead of in their first-load JS. Same per-server client cache as `orsClientFor`.
import type { OrsClient } from "@/lib/ors/client";

export async function loadOrsClient(serverName: string): Promise<OrsClient> {
  const { orsClientFor } = await import("./ors");
  return orsClientFor(serverName);
}
