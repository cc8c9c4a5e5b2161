// Every check of the ORS conformance check, in report order: its id, group, what it expects and the
// section of the specification it rests on (ors-http-api, ors-sse, ors-sessions-episodes pages).
import type { CheckGroup, CheckInfo, SpecFile } from "./types";

const HTTP: SpecFile = "ors-http-api.txt";
const SSE: SpecFile = "ors-sse.txt";
const SESSIONS: SpecFile = "ors-sessions-episodes.txt";

function check(id: string, group: CheckGroup, title: string, file: SpecFile, section: string): CheckInfo {
  return { id, group, title, spec: { file, section } };
}

export const CHECKS = [
  // Discovery
  check("health", "discovery", 'GET /health answers {"status": "ok"}', HTTP, "GET /health"),
  check(
    "base-url",
    "discovery",
    "The reference client reaches this server (it drops any path of its base URL)",
    HTTP,
    "Base URL",
  ),
  check(
    "list-environments",
    "discovery",
    "GET /list_environments lists the environments",
    HTTP,
    "GET /list_environments",
  ),
  check(
    "tools",
    "discovery",
    "GET /{env}/tools lists each environment's tools",
    HTTP,
    "GET /{env_name}/tools",
  ),
  check(
    "splits",
    "discovery",
    "GET /{env}/splits lists splits with their type",
    HTTP,
    "GET /{env_name}/splits",
  ),
  check("tasks", "discovery", "POST /{env}/tasks lists a split's tasks", HTTP, "POST /{env_name}/tasks"),
  check("num-tasks", "discovery", "POST /{env}/num_tasks counts them", HTTP, "POST /{env_name}/num_tasks"),
  check("task", "discovery", "POST /{env}/task gets one task by index", HTTP, "POST /{env_name}/task"),
  check(
    "task-range",
    "discovery",
    "POST /{env}/task_range follows Python slice conventions (negative, omitted, out of range)",
    HTTP,
    "POST /{env_name}/task_range",
  ),
  check("invalid-split", "discovery", "An unknown split is a 400", HTTP, "POST /{env_name}/num_tasks"),
  check("invalid-index", "discovery", "An index out of range is a 400", HTTP, "POST /{env_name}/task"),
  check(
    "task-negative-index",
    "discovery",
    "A negative index is a 400 (the index is zero-based; Python lists count -1 from the end)",
    HTTP,
    "POST /{env_name}/task",
  ),
  check(
    "unknown-environment",
    "discovery",
    "An unknown environment is a 404 (not a redirect)",
    HTTP,
    "GET /{env_name}/tools",
  ),
  // Sessions
  check(
    "create-session-sse",
    "sessions",
    "POST /create_session as the reference client asks (Accept: text/event-stream) gives a sid",
    HTTP,
    "POST /create_session",
  ),
  check(
    "create-session-json",
    "sessions",
    'POST /create_session without Accept: text/event-stream answers {"sid": ...}',
    HTTP,
    "POST /create_session",
  ),
  check("create-split-index", "sessions", "POST /create with split + index", HTTP, "POST /create"),
  check("create-task-spec", "sessions", "POST /create with a task_spec", HTTP, "POST /create"),
  check(
    "create-default-env",
    "sessions",
    "POST /create without env_name uses the first environment (the reference client's split + index)",
    HTTP,
    "POST /create",
  ),
  check(
    "create-task-source",
    "sessions",
    "POST /create with both or neither of task_spec and split + index is a 400",
    HTTP,
    "POST /create",
  ),
  check("create-duplicate", "sessions", "POST /create of an existing session is a 400", HTTP, "POST /create"),
  check(
    "setup-wait",
    "sessions",
    "prompt, task_tools and call right after /create wait for setup",
    SESSIONS,
    "2. Episode Initialization",
  ),
  check("prompt", "sessions", "GET /{env}/prompt answers blocks", HTTP, "GET /{env_name}/prompt"),
  check(
    "task-tools",
    "sessions",
    "GET /{env}/task_tools answers the shared tools plus the task's",
    HTTP,
    "GET /{env_name}/task_tools",
  ),
  check("ping", "sessions", 'POST /ping keeps a session alive ({"status": "ok"})', HTTP, "POST /ping"),
  check("delete", "sessions", "POST /delete, then /delete_session, answer the sid", HTTP, "POST /delete"),
  // Tool calls
  check(
    "call-framing",
    "calls",
    "A call streams task_id first, then chunk… end, and the pieces make a valid RunToolOutput",
    SSE,
    "Response Stream",
  ),
  check(
    "call-chunking",
    "calls",
    "A result over 4096 characters is cut into pieces of at most 4096 that the reference client rebuilds",
    SSE,
    "Chunking",
  ),
  check(
    "call-chunk-size",
    "calls",
    "Pieces are at most 4096 bytes, not 4096 characters (shows with non-ASCII text)",
    SSE,
    "Chunking",
  ),
  check("call-pings", "calls", "While a tool runs, a `: ping` comment every 10 s", SSE, "Keep-Alive Pings"),
  check(
    "call-reconnect",
    "calls",
    "Re-posting a completed call's task_id replays the same result",
    SSE,
    "Reconnection",
  ),
  check(
    "call-reconnect-unknown",
    "calls",
    "Re-posting an unknown task_id answers task_id, then event: error",
    SSE,
    "Reconnection",
  ),
  check(
    "call-unknown-tool",
    "calls",
    'An unknown tool is an error of the call (404 or event: error), not {"ok": false}',
    SSE,
    "HTTP-Level Errors",
  ),
  check(
    "call-env-mismatch",
    "calls",
    "A call on another environment's path than its session's is a 404",
    HTTP,
    "POST /{env_name}/call",
  ),
  check("call-bad-input", "calls", 'Invalid tool input answers {"ok": false, ...}', SSE, "Tool Logic Errors"),
  check("malformed-body", "calls", "A body that is not JSON is a 400", HTTP, "Standard HTTP Status Codes"),
  check(
    "invalid-body",
    "calls",
    "A JSON body missing a required field is a 400",
    HTTP,
    "Standard HTTP Status Codes",
  ),
  // Errors
  check(
    "unknown-path",
    "errors",
    "A path that is no ORS endpoint is a 404 (a redirect only on a single-environment server)",
    HTTP,
    "Standard HTTP Status Codes",
  ),
  check(
    "missing-session-id",
    "errors",
    "Session endpoints without X-Session-ID are a 400",
    HTTP,
    "Common Headers",
  ),
  check(
    "unknown-session",
    "errors",
    "A session id never created is a 404 (prompt, ping, call)",
    HTTP,
    "GET /{env_name}/prompt",
  ),
  check(
    "deleted-session",
    "errors",
    "A deleted session is 410 Gone (prompt, task_tools, call)",
    HTTP,
    "GET /{env_name}/prompt",
  ),
  check(
    "delete-unknown-session",
    "errors",
    "POST /delete of a session never created is a 404",
    HTTP,
    "POST /delete",
  ),
  // Isolation
  check(
    "isolation-session-ids",
    "isolation",
    "Each /create_session gives a new id",
    SESSIONS,
    "Concurrent Sessions",
  ),
  check(
    "isolation-task-id",
    "isolation",
    "A task_id of one session is not served to another",
    SESSIONS,
    "Concurrent Sessions",
  ),
  check(
    "isolation-delete",
    "isolation",
    "Deleting one session leaves another working",
    SESSIONS,
    "Concurrent Sessions",
  ),
  // Limits
  check(
    "idle-timeout",
    "limits",
    "A session idle for the configured time is gone (404)",
    SESSIONS,
    "Timeout Cleanup",
  ),
  // What the OpenReward client needs (beyond the spec; the sections are the nearest ones)
  check(
    "openreward-bare-paths",
    "openreward",
    "Paths without the environment (/tools, /splits, /num_tasks, /task; /prompt, /task_tools, /call in a session) reach it: the one named by X-Deployment, or the only one",
    HTTP,
    "POST /create",
  ),
  check(
    "openreward-env-name",
    "openreward",
    "POST /{env}/task and /{env}/task_range answers carry env_name",
    HTTP,
    "POST /{env_name}/task",
  ),
  check(
    "openreward-create-session-sse",
    "openreward",
    "POST /create_session asked with Accept: text/event-stream answers SSE with the session id",
    HTTP,
    "POST /create_session",
  ),
] as const satisfies readonly CheckInfo[];

export type CheckId = (typeof CHECKS)[number]["id"];

const byId = new Map<string, CheckInfo>(CHECKS.map((c) => [c.id, c]));

export function checkInfo(id: CheckId): CheckInfo {
  return byId.get(id)!;
}
