// Where a server listens and what that asks of it (DESIGN.md "Security", loopback by default):
// whether a listen address is loopback, which names clients may use for it (the Host allow-list),
// and fresh secrets for access tokens and API keys.
import "server-only";
import { randomBytes } from "node:crypto";
import { hostname, networkInterfaces } from "node:os";
import { hostNameOf, isLoopbackName } from "./host-names";

/** Every way of starting the app or the host listens here unless told otherwise. */
export const DEFAULT_LISTEN_HOST = "127.0.0.1";

function bare(host: string): string {
  return host
    .trim()
    .replace(/^\[(.*)\]$/, "$1")
    .toLowerCase();
}

/** Whether a listen address (`--host`) is every interface. */
export function isWildcardAddress(host: string): boolean {
  const h = bare(host);
  return h === "" || h === "0.0.0.0" || h === "::" || h === "0:0:0:0:0:0:0:0";
}

/** Whether a listen address (`--host`) reaches this machine only. */
export function isLoopbackAddress(host: string): boolean {
  if (isWildcardAddress(host)) return false;
  const name = hostNameOf(host.includes(":") && !host.startsWith("[") ? `[${host}]` : host);
  return name !== null && isLoopbackName(name);
}

/**
 * The names and addresses clients may use to reach a server listening on `host`, besides the
 * loopback ones: the address itself, or for 0.0.0.0 / :: every interface's address and the
 * machine's name. (Other names, like a DNS name of this machine, go in PLAYGROUND_ALLOWED_HOSTS.)
 */
export function listenHostNames(host: string): string[] {
  if (isLoopbackAddress(host)) return [];
  if (!isWildcardAddress(host)) {
    const name = hostNameOf(host.includes(":") && !host.startsWith("[") ? `[${host}]` : host);
    return name ? [name] : [];
  }
  const names = new Set<string>();
  for (const addrs of Object.values(networkInterfaces()))
    for (const a of addrs ?? []) if (!a.internal) names.add(a.address.toLowerCase().replace(/%.*$/, ""));
  const own = hostNameOf(hostname());
  if (own) names.add(own);
  return [...names];
}

/** An address of this machine that other machines can use, for the URL printed at startup. */
export function reachableAddress(host: string): string {
  if (!isWildcardAddress(host)) return host;
  for (const addrs of Object.values(networkInterfaces()))
    for (const a of addrs ?? []) if (!a.internal && a.family === "IPv4") return a.address;
  return DEFAULT_LISTEN_HOST;
}

/** A fresh random secret (192 bits, URL-safe) for an access token or an API key. */
export function newSecret(): string {
  return randomBytes(24).toString("base64url");
}
