// Which server addresses the relay may reach (docs/architecture.md "Security"): never link-local or cloud
// metadata addresses; user-added servers only on loopback unless remote servers are allowed.
// Host names are resolved and every resolved address is checked too; the relay then connects to
// those addresses only (lib/security/pinned-fetch.ts), never resolving the name a second time.
import "server-only";
import { lookup } from "node:dns/promises";
import { isIP } from "node:net";

export type AddressVerdict = { ok: true; addresses: string[] } | { ok: false; reason: string };

const METADATA_HOSTS = new Set(["metadata.google.internal", "metadata.goog", "metadata"]);
const METADATA_ADDRESSES = new Set(["169.254.169.254", "fd00:ec2::254", "100.100.100.200"]);

/** Parses an IPv4 literal into its four bytes, or null. */
function v4Bytes(ip: string): number[] | null {
  const parts = ip.split(".");
  if (parts.length !== 4) return null;
  const bytes = parts.map((p) => (/^\d{1,3}$/.test(p) ? Number(p) : Number.NaN));
  return bytes.every((b) => b >= 0 && b <= 255) ? bytes : null;
}

/** Expands an IPv6 literal into eight 16-bit groups, or null (an embedded IPv4 tail is allowed). */
function v6Groups(ip: string): number[] | null {
  let s = ip.toLowerCase();
  const zone = s.indexOf("%");
  if (zone >= 0) s = s.slice(0, zone);
  let tail: number[] = [];
  const lastColon = s.lastIndexOf(":");
  if (s.slice(lastColon + 1).includes(".")) {
    const b = v4Bytes(s.slice(lastColon + 1));
    if (!b) return null;
    tail = [(b[0]! << 8) | b[1]!, (b[2]! << 8) | b[3]!];
    s = `${s.slice(0, lastColon + 1)}0:0`;
  }
  const halves = s.split("::");
  if (halves.length > 2) return null;
  const parse = (h: string) => (h ? h.split(":").map((g) => Number.parseInt(g, 16)) : []);
  const head = parse(halves[0]!);
  const rest = halves.length === 2 ? parse(halves[1]!) : [];
  const fill = halves.length === 2 ? 8 - head.length - rest.length : 0;
  const groups = [...head, ...Array(fill).fill(0), ...rest];
  if (groups.length !== 8 || groups.some((g) => Number.isNaN(g) || g < 0 || g > 0xffff)) return null;
  if (tail.length) groups.splice(6, 2, ...tail);
  return groups;
}

/** An IPv4-mapped IPv6 address (::ffff:a.b.c.d) as its IPv4 form; other addresses unchanged. */
function unmap(ip: string): string {
  if (isIP(ip) !== 6) return ip;
  const g = v6Groups(ip);
  if (g?.slice(0, 5).every((x) => x === 0) && g[5] === 0xffff)
    return `${g[6]! >> 8}.${g[6]! & 255}.${g[7]! >> 8}.${g[7]! & 255}`;
  return ip;
}

function canonicalV6(ip: string): string {
  const g = v6Groups(ip);
  return g ? g.map((x) => x.toString(16)).join(":") : ip;
}

/** Loopback: 127.0.0.0/8, ::1, and the unspecified addresses (which connect to this host). */
export function isLoopbackAddress(address: string): boolean {
  const ip = unmap(address);
  if (isIP(ip) === 4) {
    const b = v4Bytes(ip)!;
    return b[0] === 127 || b.every((x) => x === 0);
  }
  if (isIP(ip) === 6) {
    const g = v6Groups(ip);
    return !!g && g.slice(0, 7).every((x) => x === 0) && (g[7] === 1 || g[7] === 0);
  }
  return false;
}

/** Link-local: 169.254.0.0/16 and fe80::/10. */
export function isLinkLocalAddress(address: string): boolean {
  const ip = unmap(address);
  if (isIP(ip) === 4) {
    const b = v4Bytes(ip)!;
    return b[0] === 169 && b[1] === 254;
  }
  if (isIP(ip) === 6) {
    const g = v6Groups(ip);
    return !!g && (g[0]! & 0xffc0) === 0xfe80;
  }
  return false;
}

export function isMetadataAddress(address: string): boolean {
  const ip = unmap(address);
  if (METADATA_ADDRESSES.has(ip)) return true;
  if (isIP(ip) !== 6) return false;
  const c = canonicalV6(ip);
  return [...METADATA_ADDRESSES].some((m) => isIP(m) === 6 && canonicalV6(m) === c);
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
