// Where a server listens and what that asks of it (docs/architecture.md "Security", loopback by default):
// whether a listen address is loopback, which names clients may use for it (the Host allow-list),
// and fresh secrets for access tokens and API keys.
import "server-only";
import { randomBytes } from "node:crypto";
import { hostname, type NetworkInterfaceInfo, networkInterfaces } from "node:os";
import { canonicalIPv6, hostNameOf, hostNameOfAddress, isLoopbackName } from "./host-names";

/** Every way of starting the app or the host listens here unless told otherwise. */
export const DEFAULT_LISTEN_HOST = "127.0.0.1";

/** What the machine says about itself (a parameter, so tests can give every spelling an OS uses). */
export interface MachineAddresses {
  interfaces: () => NodeJS.Dict<NetworkInterfaceInfo[]>;
  hostname: () => string;
}

const THIS_MACHINE: MachineAddresses = { interfaces: networkInterfaces, hostname };

function bare(host: string): string {
  return host
    .trim()
    .replace(/^\[(.*)\]$/, "$1")
    .toLowerCase();
}

/** Whether a listen address (`--host`) is every interface. */
export function isWildcardAddress(host: string): boolean {
  const h = bare(host);
  return h === "" || h === "0.0.0.0" || canonicalIPv6(h) === "::";
}

/** Whether a listen address (`--host`) reaches this machine only. */
export function isLoopbackAddress(host: string): boolean {
  if (isWildcardAddress(host)) return false;
  const name = hostNameOfAddress(host);
  return name !== null && isLoopbackName(name);
}

function isIPv6(family: string | number): boolean {
  return family === "IPv6" || family === 6;
}

/** An interface's address as a `Host` header names it: IPv6 canonical, without its zone id. */
function interfaceName(a: NetworkInterfaceInfo): string | null {
  return isIPv6(a.family) ? canonicalIPv6(a.address) : hostNameOf(a.address);
}

/**
 * The names and addresses clients may use to reach a server listening on `host`, besides the
 * loopback ones, as `hostNameOf` gives them: the address itself, or for 0.0.0.0 / :: every
 * interface's address (in every spelling the OS reports: IPv6 with a zone id, link-local,
 * IPv4-mapped) and the machine's name. (Other names, like a DNS name of this machine, go in
 * PLAYGROUND_ALLOWED_HOSTS.)
 */
export function listenHostNames(host: string, machine: MachineAddresses = THIS_MACHINE): string[] {
  if (isLoopbackAddress(host)) return [];
  if (!isWildcardAddress(host)) {
    const name = hostNameOfAddress(host);
    return name ? [name] : [];
  }
  const names = new Set<string>();
  for (const addrs of Object.values(machine.interfaces()))
    for (const a of addrs ?? []) {
      const name = a.internal ? null : interfaceName(a);
      if (name && !isLoopbackName(name)) names.add(name);
    }
  const own = hostNameOf(machine.hostname());
  if (own && !isLoopbackName(own)) names.add(own);
  return [...names];
}

/**
 * An address of this machine that other machines can use, for the URL printed at startup: the
 * listen address itself, or for 0.0.0.0 / :: the first external IPv4 address, else the first
 * external IPv6 one that is not link-local (which needs a zone id no URL carries), else loopback.
 */
export function reachableAddress(host: string, machine: MachineAddresses = THIS_MACHINE): string {
  if (!isWildcardAddress(host)) return bare(host).replace(/%.*$/, "");
  const external = Object.values(machine.interfaces())
    .flatMap((addrs) => addrs ?? [])
    .filter((a) => !a.internal);
  const v4 = external.find((a) => !isIPv6(a.family));
  if (v4) return v4.address;
  const v6 = external
    .map((a) => (isIPv6(a.family) ? canonicalIPv6(a.address) : null))
    .find((a): a is string => a !== null && !/^fe[89ab]/.test(a));
  return v6 ?? DEFAULT_LISTEN_HOST;
}

/** `host` as it goes in a URL: IPv6 in brackets. */
export function urlHost(host: string): string {
  return host.includes(":") && !host.startsWith("[") ? `[${host}]` : host;
}

/** A fresh random secret (192 bits, URL-safe) for an access token or an API key. */
export function newSecret(): string {
  return randomBytes(24).toString("base64url");
}
