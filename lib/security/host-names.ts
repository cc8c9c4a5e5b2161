// Host names as the request policy compares them (docs/architecture.md "Security", host allow-list): the name
// in a `Host` header or a configured entry, without port or brackets, and which names are loopback.
// Pure and isomorphic (Next's proxy.ts bundles it too).

/**
 * An IPv6 literal in its one canonical spelling (lower case, zeros compressed, IPv4-mapped tails in
 * hex: `::ffff:c000:202`), as browsers write it in `Host`; the zone id (`%eth0`) dropped, since no
 * `Host` carries one. Null when it is not an IPv6 literal. WHATWG URL parsing does the work, so this
 * stays isomorphic.
 */
export function canonicalIPv6(literal: string): string | null {
  const v6 = literal.replace(/%.*$/, "").toLowerCase();
  if (!v6.includes(":") || !/^[0-9a-f:.]+$/.test(v6)) return null;
  try {
    return new URL(`http://[${v6}]/`).hostname.slice(1, -1);
  } catch {
    return null;
  }
}

/**
 * The host name of a `Host` header (or a configured host, with or without port): lower case, no
 * port, no trailing dot, IPv6 without brackets and canonical. Null when it is not a well-formed host.
 */
export function hostNameOf(host: string): string | null {
  let h = host.trim().toLowerCase();
  if (h.startsWith("[")) {
    const end = h.indexOf("]");
    if (end < 0) return null;
    const rest = h.slice(end + 1);
    if (rest !== "" && !/^:\d{1,5}$/.test(rest)) return null;
    return canonicalIPv6(h.slice(1, end));
  }
  const colon = h.lastIndexOf(":");
  if (colon >= 0) {
    if (!/^\d{1,5}$/.test(h.slice(colon + 1))) return null;
    h = h.slice(0, colon);
  }
  if (h.endsWith(".")) h = h.slice(0, -1);
  return /^[a-z0-9_]([a-z0-9_.-]*[a-z0-9_])?$/.test(h) ? h : null;
}

/**
 * The host name of a configured entry or a listen address: as `hostNameOf`, and a bare IPv6
 * address (`fd00::2`, `fe80::1%eth0`, as the OS and users write them) is read as one, never as
 * `host:port`.
 */
export function hostNameOfAddress(entry: string): string | null {
  const e = entry.trim();
  if (!e.startsWith("[") && (e.match(/:/g)?.length ?? 0) >= 2) return canonicalIPv6(e);
  return hostNameOf(e);
}

/** The port of a `Host` header, or "" when it has none. */
export function hostPortOf(host: string): string {
  const m = /:(\d{1,5})$/.exec(host.trim());
  return m && !host.trim().endsWith("]") ? m[1]! : "";
}

function isLoopbackV4(name: string): boolean {
  const m = /^127\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(name);
  return !!m && m.slice(1).every((part) => Number(part) <= 255);
}

/**
 * Whether a host name (as `hostNameOf` gives it) always means this machine: `localhost` and its
 * subdomains (browsers resolve them to loopback themselves), 127.0.0.0/8 and ::1, also IPv4-mapped.
 * No DNS name outside `.localhost` counts: a name that resolves to 127.0.0.1 today is exactly what
 * DNS rebinding uses.
 */
export function isLoopbackName(name: string): boolean {
  if (name === "localhost" || name.endsWith(".localhost")) return true;
  if (isLoopbackV4(name)) return true;
  if (name === "::1" || name === "0:0:0:0:0:0:0:1") return true;
  const mapped = /^(?:0:0:0:0:0:|::)ffff:(.+)$/.exec(name);
  if (!mapped) return false;
  const rest = mapped[1]!;
  if (isLoopbackV4(rest)) return true;
  // ::ffff:7f00:1 is how URL parsers print ::ffff:127.0.0.1.
  return /^7f[0-9a-f]{2}:[0-9a-f]{1,4}$/.test(rest);
}
