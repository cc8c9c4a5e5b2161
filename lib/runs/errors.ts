// The one error of the runs domain's entry points (start, resume, cancel, compare, export): an HTTP
// status and a detail the API answers as `{detail}` and the CLI prints. Isomorphic.
export class RunError extends Error {
  constructor(
    readonly status: number,
    readonly detail: string,
  ) {
    super(detail);
    this.name = "RunError";
  }
}

/** By name, not instanceof: Next bundles each route separately (see lib/ors/client/errors.ts). */
export function isRunError(err: unknown): err is RunError {
  return err instanceof Error && err.name === "RunError" && typeof (err as RunError).status === "number";
}
