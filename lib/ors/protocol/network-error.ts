// Why a fetch failed before any answer (refused, DNS, reset, timeout), from the error code undici or
// the browser attaches: one wording for the client, the relay and the runs' model endpoints.
// Isomorphic: it reads only the thrown error's fields.

const UNREACHABLE_CODES = new Set([
  "ECONNREFUSED",
  "ENOTFOUND",
  "EAI_AGAIN",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "ECONNRESET",
  "EADDRNOTAVAIL",
  "UND_ERR_SOCKET",
  "UND_ERR_CONNECT_TIMEOUT",
]);

/** The low-level error code of a failed fetch (undici puts it on `cause`), if any. */
export function networkErrorCode(err: unknown): string | undefined {
  let e: unknown = err;
  for (let i = 0; i < 4 && e && typeof e === "object"; i++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === "string") return code;
    e = (e as { cause?: unknown }).cause;
  }
  return undefined;
}

/** Describes a fetch that threw before any answer: refused, DNS, reset. */
export function describeNetworkError(err: unknown): string {
  const code = networkErrorCode(err);
  const reasons: Record<string, string> = {
    ECONNREFUSED: "connection refused",
    ENOTFOUND: "host not found (DNS)",
    EAI_AGAIN: "host name lookup failed (DNS)",
    EHOSTUNREACH: "host unreachable",
    ENETUNREACH: "network unreachable",
    ECONNRESET: "connection reset",
    UND_ERR_SOCKET: "connection closed by the server",
    UND_ERR_CONNECT_TIMEOUT: "connection timed out",
  };
  if (code && reasons[code]) return reasons[code];
  let msg = err instanceof Error ? err.message : String(err);
  // undici's "fetch failed" says why only in its cause (e.g. "bad port").
  const cause = err instanceof Error && err.cause instanceof Error ? err.cause.message : "";
  if (cause && cause !== msg) msg = `${msg}: ${cause}`;
  return code ? `${msg} (${code})` : msg;
}

/** Whether a thrown fetch error means the server could not be reached. */
export function isUnreachableError(err: unknown): boolean {
  const code = networkErrorCode(err);
  if (code && UNREACHABLE_CODES.has(code)) return true;
  return err instanceof TypeError; // browsers: "Failed to fetch"; undici: "fetch failed"
}
