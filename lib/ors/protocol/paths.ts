// The ORS endpoint shapes (spec: ors-http-api.txt): root endpoints, per-environment ones, and those
// same ones bare (`/splits`: the environment named by an `X-Deployment` header, by the session, or
// the only one hosted). The one list: the host's router, the client, the relay and the Next.js root
// rewrites (next.config.mjs reads it) all follow it.

export const ROOT_ENDPOINTS = [
  "health",
  "list_environments",
  "create_session",
  "create",
  "ping",
  "delete",
  "delete_session",
] as const;
export type RootEndpoint = (typeof ROOT_ENDPOINTS)[number];

export const ENV_ENDPOINTS = [
  "tools",
  "splits",
  "tasks",
  "num_tasks",
  "task",
  "task_range",
  "prompt",
  "task_tools",
  "call",
] as const;
export type EnvEndpoint = (typeof ENV_ENDPOINTS)[number];

export type OrsRoute =
  | { kind: "root"; endpoint: RootEndpoint }
  | { kind: "env"; env: string; endpoint: EnvEndpoint }
  /** An environment endpoint without its environment segment (`/splits`, `/call`). */
  | { kind: "bare"; endpoint: EnvEndpoint }
  | { kind: "unknown"; path: string };

/** The header in which the OpenReward client names the deployment (environment) of a bare path. */
export const DEPLOYMENT_HEADER = "x-deployment";

const rootSet = new Set<string>(ROOT_ENDPOINTS);
const envSet = new Set<string>(ENV_ENDPOINTS);

/** Endpoints that need an `X-Session-ID` header. */
export const SESSION_ENDPOINTS = new Set<string>([
  "create",
  "ping",
  "delete",
  "delete_session",
  "prompt",
  "task_tools",
  "call",
]);

/** Methods per endpoint, as the reference server routes them. */
export const ENDPOINT_METHODS: Record<RootEndpoint | EnvEndpoint, "GET" | "POST"> = {
  health: "GET",
  list_environments: "GET",
  create_session: "POST",
  create: "POST",
  ping: "POST",
  delete: "POST",
  delete_session: "POST",
  tools: "GET",
  splits: "GET",
  tasks: "POST",
  num_tasks: "POST",
  task: "POST",
  task_range: "POST",
  prompt: "GET",
  task_tools: "GET",
  call: "POST",
};

/**
 * Classifies an ORS path relative to the base URL (`/health`, `/math/call`, `/call`, ...).
 * Environment names are URL-decoded.
 */
export function parseOrsPath(path: string): OrsRoute {
  // By hand, not split/filter: every request of the host and of the app's server entry comes here.
  // Empty segments are ignored (`//math//call` is `/math/call`), as before.
  let a = 0;
  while (path.charCodeAt(a) === 47) a++;
  let b = path.indexOf("/", a);
  if (b < 0) b = path.length;
  let c = b;
  while (path.charCodeAt(c) === 47) c++;
  if (c >= path.length) {
    const one = path.slice(a, b);
    if (rootSet.has(one)) return { kind: "root", endpoint: one as RootEndpoint };
    if (envSet.has(one)) return { kind: "bare", endpoint: one as EnvEndpoint };
    return { kind: "unknown", path };
  }
  let d = path.indexOf("/", c);
  if (d < 0) d = path.length;
  let e = d;
  while (path.charCodeAt(e) === 47) e++;
  const endpoint = path.slice(c, d);
  if (e < path.length || a === b || !envSet.has(endpoint)) return { kind: "unknown", path };
  const raw = path.slice(a, b);
  let env = raw;
  if (raw.includes("%")) {
    try {
      env = decodeURIComponent(raw);
    } catch {
      return { kind: "unknown", path };
    }
  }
  return { kind: "env", env, endpoint: endpoint as EnvEndpoint };
}

/** Builds the path of an environment endpoint, e.g. `envPath("math", "call")` → `/math/call`. */
export function envPath(env: string, endpoint: EnvEndpoint): string {
  return `/${encodeURIComponent(env)}/${endpoint}`;
}

/**
 * The environment names an `X-Deployment` value may stand for, in order: the value itself, then for
 * the OpenReward client's `namespace/name` form the part after the last slash. Empty for no value.
 */
export function deploymentNames(value: string | null): string[] {
  const v = value?.trim() ?? "";
  if (!v) return [];
  const slash = v.lastIndexOf("/");
  return slash >= 0 && slash < v.length - 1 ? [v, v.slice(slash + 1)] : [v];
}
