// The server frameworks the check recognises under an environment — by behaviours that are their own
// code's, seen during the run — and their known deviations from the spec, which make a finding the
// framework's rather than the author's (docs/check.md "Whose finding").

/** Behaviours that mark a server as built on a framework. */
export type MarkerId =
  | "create-session-sse"
  | "redirect-default-env"
  | "delete-unknown-200"
  | "unknown-session-detail"
  | "unknown-tool-message"
  | "missing-sid-detail";

/** Known deviations from the spec, each a check's finding on a server built on the framework. */
export type DeviationId =
  | "validation-422"
  | "redirect-default-env"
  | "create-session-always-sse"
  | "delete-unknown-200"
  | "deleted-session-forgotten"
  | "task-id-not-bound"
  | "chunk-cut-anywhere"
  | "chunk-size-characters"
  | "env-mismatch-accepted"
  | "negative-index"
  | "unknown-tool-ok-false"
  | "reconnect-unknown-no-task-id"
  | "x-deployment-ignored"
  | "task-without-env-name";

export interface Framework {
  id: string;
  /** As reports name it. */
  name: string;
  markers: Partial<Record<MarkerId, string>>;
  /**
   * Markers needed to recognise it: a few could be a coincidence or a copy (our own host answers a
   * missing X-Session-ID with the reference SDK's words), so more than half of them.
   */
  threshold: number;
  deviations: Partial<Record<DeviationId, string>>;
}

/**
 * The reference Python SDK (github.com/openrewardstandard/python-sdk, `ors.Server`: FastAPI,
 * Pydantic 2, sse-starlette). Markers and deviations name the code they come from.
 */
export const REFERENCE_PYTHON_SDK: Framework = {
  id: "reference-python-sdk",
  name: "reference Python SDK",
  threshold: 4,
  markers: {
    "create-session-sse":
      "POST /create_session without Accept: text/event-stream answers SSE: task_id (a uuid4), then an empty end (server.py create_session)",
    "redirect-default-env":
      "an unknown path answers 308 to the same path under the first environment (server.py RedirectToDefaultEnvMiddleware)",
    "delete-unknown-200":
      'POST /delete of a session never created answers 200 {"sid": ...} (server.py delete_environment)',
    "unknown-session-detail":
      'a session never created answers 404 {"detail": "Active environment not found"} (server.py await_environment_ready)',
    "unknown-tool-message":
      'an unknown tool answers {"ok": false, "error": "\'NAME\' is not a valid tool"} (environment.py _call_tool)',
    "missing-sid-detail":
      'no X-Session-ID answers 400 {"detail": "X-Session-ID header is required"} (server.py extract_sid)',
  },
  deviations: {
    "validation-422":
      "FastAPI answers 422 with its validation list for a body that is not JSON or misses a field",
    "redirect-default-env":
      "unknown paths, unknown environments included, are redirected (308) to the first environment",
    "create-session-always-sse": "/create_session answers SSE whatever the request accepts",
    "delete-unknown-200": "/delete answers 200 for a session never created",
    "deleted-session-forgotten": "a deleted session is forgotten: 404 instead of 410 Gone",
    "task-id-not-bound": "task ids are not bound to their session (one table for the server)",
    "chunk-cut-anywhere":
      "results are cut every 4096 characters wherever the cut falls, so a piece may start with whitespace",
    "chunk-size-characters": "chunks are counted in characters (Python str), not bytes",
    "env-mismatch-accepted": "/{env}/call answers with the session's environment whatever {env} says",
    "negative-index": "a negative task index counts from the end (Python list indexing)",
    "unknown-tool-ok-false": 'an unknown tool is a tool logic error (200, end {"ok": false})',
    "reconnect-unknown-no-task-id": "an unknown task_id answers event: error without a task_id event first",
    "x-deployment-ignored":
      "X-Deployment is not read: a path without the environment goes to the first environment",
    "task-without-env-name": "/task and /task_range answer without env_name",
  },
};

export const FRAMEWORKS: readonly Framework[] = [REFERENCE_PYTHON_SDK];

/** The framework whose markers were seen often enough, with the evidence; null for none. */
export function recogniseFramework(seen: ReadonlySet<MarkerId>): {
  framework: Framework;
  evidence: string[];
} | null {
  for (const framework of FRAMEWORKS) {
    const evidence = (Object.keys(framework.markers) as MarkerId[])
      .filter((m) => seen.has(m))
      .map((m) => framework.markers[m]!);
    if (evidence.length >= framework.threshold) return { framework, evidence };
  }
  return null;
}
