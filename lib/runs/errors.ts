// The one error of the runs domain's entry points (start, resume, cancel, compare, export): an
// OrsError (an HTTP status and a detail) the API answers as `{detail}` and the CLI prints. Isomorphic.
import { OrsError } from "@/lib/ors/protocol";

export class RunError extends OrsError {
  constructor(status: number, detail: string) {
    super(status, detail);
    this.name = "RunError";
  }
}

/** By name, not instanceof: Next bundles each route separately (see lib/ors/client/errors.ts). */
export function isRunError(err: unknown): err is RunError {
  return err instanceof Error && err.name === "RunError" && typeof (err as RunError).status === "number";
}
