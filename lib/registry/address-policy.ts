// Which server addresses the relay may reach (docs/architecture.md "Security"): never link-local or cloud
// metadata addresses; user-added servers only on loopback unless remote servers are allowed.
// Host names are resolved and every resolved address is checked too; the relay then connects to
// those addresses only (lib/security/pinned-fetch.ts), never resolving the name a second time.
import "server-only";
import { lookup } from "node:dns/promises";
import { BlockList, isIP } from "node:net";

export type AddressVerdict = { ok: true; addresses: string[] } | { ok: false; reason: string };

const METADATA_HOSTS = new Set(["metadata.google.internal", "metadata.goog", "metadata"]);

type Family = "ipv4" | "ipv6";
type Rule = readonly [address: string, prefix: number, family: Family];

/** A `net.BlockList` of subnets. It matches IPv4-mapped IPv6 (`::ffff:a.b.c.d`, in any spelling)
 *  against the IPv4 rules, and reads zone ids (`fe80::1%eth0`), so every spelling of an address
 *  is one address here. */
function ranges(rules: readonly Rule[]): BlockList {
  const list = new BlockList();
  for (const [address, prefix, family] of rules) list.addSubnet(address, prefix, family);
  return list;
}

/** Whether `address` (an IP literal; anything else is not) falls in `list`. */
function within(list: BlockList, address: string): boolean {
  const v = isIP(address);
  if (v === 0) return false;
  try {
    return list.check(address, v === 6 ? "ipv6" : "ipv4");
  } catch {
    return false;
  }
}

/** 127.0.0.0/8 and ::1, plus the unspecified addresses, which connect to this host. */
const LOOPBACK = ranges([
  ["127.0.0.0", 8, "ipv4"],
  ["0.0.0.0", 32, "ipv4"],
  ["::1", 128, "ipv6"],
  ["::", 128, "ipv6"],
]);

/** 169.254.0.0/16 and fe80::/10; also 169.254/16 written as IPv4-compatible (::a.b.c.d) or behind
 *  the NAT64 well-known prefix (64:ff9b::a.b.c.d), which reach it on networks that translate them. */
const LINK_LOCAL = ranges([
  ["169.254.0.0", 16, "ipv4"],
  ["fe80::", 10, "ipv6"],
  ["::a9fe:0", 112, "ipv6"],
  ["64:ff9b::a9fe:0", 112, "ipv6"],
]);

/** Cloud metadata services: AWS/GCP/Azure (169.254.169.254), AWS over IPv6, Alibaba Cloud. */
const METADATA = ranges([
  ["169.254.169.254", 32, "ipv4"],
  ["fd00:ec2::254", 128, "ipv6"],
  ["100.100.100.200", 32, "ipv4"],
]);

/** Loopback: 127.0.0.0/8, ::1, and the unspecified addresses (which connect to this host). */
export function isLoopbackAddress(address: string): boolean {
  return within(LOOPBACK, address);
}

/** Link-local: 169.254.0.0/16 and fe80::/10 (in every spelling). */
export function isLinkLocalAddress(address: string): boolean {
  return within(LINK_LOCAL, address);
}

export function isMetadataAddress(address: string): boolean {
  return within(METADATA, address);
}

function refuseAddress(address: string): string | null {
  if (isMetadataAddress(address)) return `${address} is a cloud metadata address`;
  if (isLinkLocalAddress(address)) return `${address} is a link-local address`;
  return null;
}

export type Resolver = (host: string) => Promise<string[]>;

const defaultResolver: Resolver = async (host) =>
  (await lookup(host, { all: true, verbatim: true })).map((a) => a.address);

export interface AddressPolicy {
  /** Only loopback addresses (user-added servers, unless remote ones are allowed). */
  loopbackOnly: boolean;
  resolve?: Resolver;
}

/**
 * Checks a server URL against the policy. Refuses non-http(s) URLs, credentials in the URL,
 * link-local and metadata addresses (literal or resolved), and, when `loopbackOnly`, any host that
 * is not or does not resolve only to loopback.
 */
export async function checkServerUrl(rawUrl: string, policy: AddressPolicy): Promise<AddressVerdict> {
  let url: URL;
  try {
    url = new URL(rawUrl);
  } catch {
    return { ok: false, reason: `${JSON.stringify(rawUrl)} is not a URL` };
  }
  if (url.protocol !== "http:" && url.protocol !== "https:")
    return { ok: false, reason: `only http and https servers are allowed, not ${url.protocol}` };
  if (url.username || url.password)
    return { ok: false, reason: "credentials in the URL are not allowed (use the API key field)" };
  const host = url.hostname
    .replace(/^\[|\]$/g, "")
    .toLowerCase()
    .replace(/\.$/, "");
  if (METADATA_HOSTS.has(host)) return { ok: false, reason: `${host} is a cloud metadata host` };
  let addresses: string[];
  if (isIP(host)) addresses = [host];
  // localhost is loopback whatever a resolver says (RFC 6761); either family may be listening.
  else if (host === "localhost" || host.endsWith(".localhost")) addresses = ["127.0.0.1", "::1"];
  else {
    try {
      addresses = await (policy.resolve ?? defaultResolver)(host);
    } catch (err) {
      const code = (err as { code?: string }).code;
      return { ok: false, reason: `cannot resolve ${host}${code ? ` (${code})` : ""}` };
    }
    if (addresses.length === 0) return { ok: false, reason: `cannot resolve ${host}` };
  }
  for (const a of addresses) {
    const why = refuseAddress(a);
    if (why) return { ok: false, reason: host === a ? why : `${host} resolves to ${why}` };
  }
  if (policy.loopbackOnly && !addresses.every(isLoopbackAddress)) {
    return {
      ok: false,
      reason: `${host} is not a loopback address; only servers on this machine (127.0.0.0/8, ::1, localhost) can be added unless PLAYGROUND_ALLOW_REMOTE_SERVERS=1`,
    };
  }
  return { ok: true, addresses };
}
