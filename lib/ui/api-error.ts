// The error of the playground's own HTTP APIs (/api/servers, /api/trajectories): the status, the
// `detail` of the body (read by the protocol's one reader), and a list of `errors` where the API
// gives one (import).
import { readErrorBody } from "@/lib/ors/protocol/http-error";

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly detail: string,
    readonly errors: string[] = [],
    /** What kind of failure the API reports, where it says (fork/replay: unreachable, server, protocol). */
    readonly kind?: string,
  ) {
    super(detail);
    this.name = "ApiError";
  }
}

/** Builds the ApiError of a non-2xx answer. */
export async function apiError(res: Response): Promise<ApiError> {
  const { detail, fields } = readErrorBody(await res.text().catch(() => ""));
  return new ApiError(
    res.status,
    detail ?? `${res.status} ${res.statusText}`.trim(),
    Array.isArray(fields.errors) ? fields.errors.map(String) : [],
    typeof fields.kind === "string" ? fields.kind : undefined,
  );
}

/** The JSON body of a 2xx answer, or the ApiError of any other. */
export async function apiJson<T>(res: Response): Promise<T> {
  if (!res.ok) throw await apiError(res);
  return (await res.json()) as T;
}
