// fetch for remote ORS servers that connects only to addresses already checked by the address
// policy (docs/architecture.md "Security": the address that was checked is the address connected to). A
// second DNS lookup between the check and the connection would let a name rebind to, say, a
// metadata address; here the connection's lookup answers with the checked addresses instead. The
// URL is unchanged, so `Host` and TLS SNI/certificate checks still use the server's name.
import "server-only";
import type { LookupAddress, LookupOneOptions } from "node:dns";
import { isIP } from "node:net";
import type { ConnectionOptions } from "node:tls";
import { Agent, fetch as undiciFetch } from "undici";

/** fetch, connecting to one of `addresses` whatever the URL's host name resolves to now. */
export type PinnedFetch = (url: string, init: RequestInit, addresses: readonly string[]) => Promise<Response>;

export interface PinnedFetchOptions {
  /** Connection pools kept (one per set of addresses); the least recently used is closed. */
  maxPools?: number;
  /** TLS options for every connection (tests: a test CA). */
  tls?: Pick<ConnectionOptions, "ca">;
}

type LookupCallback = (
  err: NodeJS.ErrnoException | null,
  address: string | LookupAddress[],
  family?: number,
) => void;

/** A `lookup` for net/tls connections that answers with `addresses` only. */
export function pinnedLookup(addresses: readonly string[]) {
  const all: LookupAddress[] = addresses.map((address) => ({ address, family: isIP(address) === 6 ? 6 : 4 }));
  return (hostname: string, options: LookupOneOptions & { all?: boolean }, callback: LookupCallback) => {
    const family = typeof options === "number" ? options : options?.family;
    const list = family === 4 || family === 6 ? all.filter((a) => a.family === family) : all;
    if (list.length === 0) {
      const err: NodeJS.ErrnoException = new Error(`no checked IPv${family} address for ${hostname}`);
      err.code = "ENOTFOUND";
      return callback(err, "");
    }
    if (options && typeof options === "object" && options.all) return callback(null, list);
    callback(null, list[0]!.address, list[0]!.family);
  };
}

export function createPinnedFetch(
  options: PinnedFetchOptions = {},
): PinnedFetch & { close(): Promise<void> } {
  const maxPools = options.maxPools ?? 32;
  const pools = new Map<string, Agent>();

  const poolFor = (addresses: readonly string[]): Agent => {
    const key = addresses.join(",");
    let agent = pools.get(key);
    if (agent) {
      pools.delete(key); // most recently used last
    } else {
      agent = new Agent({
        connect: { ...options.tls, lookup: pinnedLookup(addresses) as never },
        // Pinned pools outlive a request: idle keep-alive sockets are closed soon.
        keepAliveTimeout: 4_000,
      });
    }
    pools.set(key, agent);
    while (pools.size > maxPools) {
      const [oldKey, old] = pools.entries().next().value!;
      pools.delete(oldKey);
      void old.close().catch(() => {});
    }
    return agent;
  };

  const pinned = (async (url, init, addresses) => {
    if (addresses.length === 0) throw new Error(`no checked address to connect to for ${url}`);
    const dispatcher = poolFor(addresses);
    return (await undiciFetch(url, { ...(init as object), dispatcher } as never)) as unknown as Response;
  }) as PinnedFetch & { close(): Promise<void> };
  pinned.close = async () => {
    const all = [...pools.values()];
    pools.clear();
    await Promise.all(all.map((a) => a.close().catch(() => {})));
  };
  return pinned;
}
