// The one HTTP error module (spec: "Error Response Format"): OrsError (a status and a string
// `detail`), the `{detail}` body and its Response, and the one reader of such bodies. Isomorphic:
// the host, the relay, the playground's APIs, the client and the UI all answer and read errors here.

/** Marks an OrsError (subclasses included) in a way every bundle of the app recognises. */
const ORS_ERROR = Symbol.for("ors-playground.OrsError");

export class OrsError extends Error {
  readonly status: number;
  readonly detail: string;
  /** Headers of the answer besides its content type (e.g. `retry-after` of a 429). */
  readonly headers?: Readonly<Record<string, string>>;
  /** Fields the answer carries beside `detail` (the `kind` of a failed re-run). */
  readonly fields?: Readonly<Record<string, unknown>>;
  readonly [ORS_ERROR] = true;

  constructor(
    status: number,
    detail: string,
    headers?: Record<string, string>,
    fields?: Record<string, unknown>,
  ) {
    super(detail);
    this.name = "OrsError";
    this.status = status;
    this.detail = detail;
    if (headers) this.headers = headers;
    if (fields) this.fields = fields;
  }

  toJSON(): { detail: string } {
    return { detail: this.detail };
  }
}

/**
 * Whether `err` is an OrsError or one of its subclasses (RunError, ServerRegistryError,
 * ReplayError). By a registered symbol, not `instanceof`: Next bundles each route separately, and a
 * long-lived part built by one bundle throws that bundle's class into another's handler.
 */
export function isOrsError(err: unknown): err is OrsError {
  return typeof err === "object" && err !== null && (err as { [ORS_ERROR]?: unknown })[ORS_ERROR] === true;
}

/** The `{detail}` body as JSON text: what every error answer carries. */
export function errorBody(detail: string): string {
  return JSON.stringify({ detail });
}

/** The body of an unexpected failure: the detail says nothing of what went wrong (it is logged). */
export const INTERNAL_ERROR_DETAIL = "Internal server error";

/**
 * A `{detail}` JSON answer with `status`: JSON content type, not cached (an error is about this
 * request), plus `headers` (an `allow`, a `retry-after`, a relay failure mark). `extra` fields sit
 * beside `detail` where an API gives more (the `kind` of a failed re-run, an import's `errors`).
 */
export function errorResponse(
  status: number,
  detail: string,
  headers?: HeadersInit,
  extra?: Record<string, unknown>,
): Response {
  const h = new Headers(headers);
  h.set("content-type", "application/json");
  h.set("cache-control", "no-store");
  const body = extra ? JSON.stringify({ detail, ...extra }) : errorBody(detail);
  return new Response(body, { status, headers: h });
}

/** An OrsError as its answer (its own headers and fields included). */
export function toResponse(err: OrsError): Response {
  return errorResponse(err.status, err.detail, err.headers, err.fields);
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

/** An error body as read: its `detail` as text (null when it has none) and its other fields. */
export interface ErrorBody {
  detail: string | null;
  /** The body's JSON object (empty when the body is not a JSON object). */
  fields: Readonly<Record<string, unknown>>;
}

/**
 * Reads an error body: the one reader of error bodies for the client, the relay and the UI. The
 * detail is null when the body is not an ORS error body (`{"detail": ...}`).
 */
export function readErrorBody(body: string): ErrorBody {
  if (!body) return { detail: null, fields: {} };
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch {
    return { detail: null, fields: {} };
  }
  if (!value || typeof value !== "object" || Array.isArray(value)) return { detail: null, fields: {} };
  const fields = value as Record<string, unknown>;
  return { detail: "detail" in fields ? detailToString(fields.detail) : null, fields };
}

/** The `detail` of an error body as text, or null when the body is not an ORS error body. */
export function readErrorDetail(body: string): string | null {
  return readErrorBody(body).detail;
}

/**
 * The header with which the playground's relay marks an error answer of its own (not the ORS
 * server's): why the server could not be used. The client turns it into its error kinds, so a
 * server that is down is told apart from a server that answered with an error.
 */
export const RELAY_FAILURE_HEADER = "x-ors-relay-failure";
export type RelayFailure = "unreachable" | "timeout" | "not-ors" | "refused";

/**
 * The SSE comment the playground's relay writes just before the `event: error` with which it ends a
 * call whose server's stream broke after its task_id: the call may still run there, so a client that
 * knows the comment re-posts the call with that task_id for its result; others read the error.
 */
export const RESUMABLE_BREAK_COMMENT = "relay: the server's stream broke; re-post with the task_id to resume";
