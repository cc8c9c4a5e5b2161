// The one error type of the ORS client (spec: "Error Response Format"): an HTTP status and the
// server's `detail` as text, plus what kind of failure it was so the UI can say it plainly.

/**
 * - `http`: the server answered non-2xx (status and `detail` are the server's);
 * - `unreachable`: no connection (refused, DNS failure, reset before an answer);
 * - `timeout`: no answer, or nothing on a stream (not even a ping), within the time limit;
 * - `not-ors`: the answer is not ORS (not JSON, an HTML page, or the wrong shape);
 * - `stream`: a tool call's SSE stream failed (`event: error`, or reconnection gave up).
 */
export type OrsClientErrorKind = "http" | "unreachable" | "timeout" | "not-ors" | "stream";

export class OrsClientError extends Error {
  readonly kind: OrsClientErrorKind;
  /** The HTTP status, or 0 when there was no HTTP answer. */
  readonly status: number;
  /** The server's `detail` (FastAPI validation lists joined into text), or what went wrong. */
  readonly detail: string;
  /** The ORS path that failed, e.g. `/math/call`. */
  readonly path?: string;

  constructor(kind: OrsClientErrorKind, status: number, detail: string, path?: string, cause?: unknown) {
    super(path ? `${path}: ${detail}` : detail, cause === undefined ? undefined : { cause });
    this.name = "OrsClientError";
    this.kind = kind;
    this.status = status;
    this.detail = detail;
    this.path = path;
  }
}

/**
 * Whether `err` is an OrsClientError. By name and shape, not `instanceof`: Next bundles each route
 * separately, and a client built by another bundle throws that bundle's class.
 */
export function isOrsClientError(err: unknown): err is OrsClientError {
  return (
    err instanceof Error &&
    err.name === "OrsClientError" &&
    typeof (err as Partial<OrsClientError>).kind === "string" &&
    typeof (err as Partial<OrsClientError>).status === "number"
  );
}

/** Whether an error is the caller's own cancellation (an aborted AbortSignal). */
export function isAbortError(err: unknown): boolean {
  return (
    typeof err === "object" &&
    err !== null &&
    "name" in err &&
    ((err as { name: unknown }).name === "AbortError" || (err as { name: unknown }).name === "TimeoutError")
  );
}
