// The one error type of the ORS HTTP API (spec: "Error Response Format"): a status and a string
// `detail`. Hosts throw it and map it with toResponse(); clients rebuild it from `{detail}`.

export class OrsError extends Error {
  readonly status: number;
  readonly detail: string;
  /** Headers of the answer besides its content type (e.g. `retry-after` of a 429). */
  readonly headers?: Readonly<Record<string, string>>;

  constructor(status: number, detail: string, headers?: Record<string, string>) {
    super(detail);
    this.name = "OrsError";
    this.status = status;
    this.detail = detail;
    if (headers) this.headers = headers;
  }

  toJSON(): { detail: string } {
    return { detail: this.detail };
  }

  toResponse(headers?: HeadersInit): Response {
    const h = new Headers(this.headers);
    for (const [k, v] of new Headers(headers)) h.set(k, v);
    h.set("content-type", "application/json");
    return new Response(JSON.stringify({ detail: this.detail }), { status: this.status, headers: h });
  }
}

/** Turns any `detail` a server sent (a string, or FastAPI's list of validation errors) into text. */
export function detailToString(detail: unknown): string {
  if (typeof detail === "string") return detail;
  if (Array.isArray(detail)) {
    return detail
      .map((d) => {
        if (d && typeof d === "object" && "msg" in d) {
          const loc = Array.isArray((d as { loc?: unknown }).loc)
            ? (d as { loc: unknown[] }).loc.join(".")
            : "";
          return loc ? `${loc}: ${String((d as { msg: unknown }).msg)}` : String((d as { msg: unknown }).msg);
        }
        return JSON.stringify(d);
      })
      .join("; ");
  }
  return detail === undefined ? "" : JSON.stringify(detail);
}

/**
 * The `detail` of an error body as text, or null when the body is not an ORS error body
 * (`{"detail": ...}`): the one reader of error bodies for the client, the relay and the UI.
 */
export function readErrorDetail(body: string): string | null {
  if (!body) return null;
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch {
    return null;
  }
  if (!value || typeof value !== "object" || Array.isArray(value) || !("detail" in value)) return null;
  return detailToString((value as { detail: unknown }).detail);
}

/**
 * The header with which the playground's relay marks an error answer of its own (not the ORS
 * server's): why the server could not be used. The client turns it into its error kinds, so a
 * server that is down is told apart from a server that answered with an error.
 */
export const RELAY_FAILURE_HEADER = "x-ors-relay-failure";
export type RelayFailure = "unreachable" | "timeout" | "not-ors" | "refused";
