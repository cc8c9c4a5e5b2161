// The error of the playground's own HTTP APIs (/api/servers, /api/trajectories): the status, the
// `detail` of the body (read by the protocol's one reader), and a list of `errors` where the API
// gives one (import).
import { readErrorDetail } from "@/lib/ors/protocol/errors";

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
  const text = await res.text().catch(() => "");
  let errors: string[] = [];
  let kind: string | undefined;
  try {
    const body = JSON.parse(text) as { errors?: unknown; kind?: unknown };
    if (Array.isArray(body?.errors)) errors = body.errors.map(String);
    if (typeof body?.kind === "string") kind = body.kind;
  } catch {
    // not JSON
  }
  return new ApiError(
    res.status,
    readErrorDetail(text) ?? `${res.status} ${res.statusText}`.trim(),
    errors,
    kind,
  );
}

/** The JSON body of a 2xx answer, or the ApiError of any other. */
export async function apiJson<T>(res: Response): Promise<T> {
  if (!res.ok) throw await apiError(res);
  return (await res.json()) as T;
}
