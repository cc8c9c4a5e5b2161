// What the relay lets through (docs/architecture.md "Security": the relay carries ORS and nothing else): only
// the ORS endpoint shapes of the spec (ors-http-api.txt) with their methods, HEAD for the GET
// ones, and the environment endpoints bare (`/splits`, `/call`: the OpenReward client's form, the
// environment named by `X-Deployment`). Everything else is refused before any server is contacted.
import {
  ENDPOINT_METHODS,
  ENV_ENDPOINTS,
  type EnvEndpoint,
  type OrsRoute,
  ROOT_ENDPOINTS,
  type RootEndpoint,
} from "@/lib/ors/protocol";

export type RelayTarget =
  | {
      ok: true;
      route: Exclude<OrsRoute, { kind: "unknown" }>;
      /** The path sent upstream, rebuilt from the route: `/health`, `/<env, percent-encoded>/call`, `/call`. */
      path: string;
    }
  | { ok: false; status: 400 | 404 | 405; detail: string; allow?: string };

/** The ORS endpoints and their methods, as a refusal lists them. */
export const ALLOWED_SHAPES: string =
  [
    ...ROOT_ENDPOINTS.map((e) => `${ENDPOINT_METHODS[e]} /${e}`),
    ...ENV_ENDPOINTS.map((e) => `${ENDPOINT_METHODS[e]} /<env>/${e}`),
  ].join(", ") + ", and the same without /<env>";

/** The methods an endpoint takes: its ORS method, and HEAD with GET. */
export function allowedMethods(endpoint: RootEndpoint | EnvEndpoint): string[] {
  const m = ENDPOINT_METHODS[endpoint];
  return m === "GET" ? ["GET", "HEAD"] : [m];
}

const ROOT = new Set<string>(ROOT_ENDPOINTS);
const ENV = new Set<string>(ENV_ENDPOINTS);

/** Decodes one path segment, or null when it is not valid percent-encoding. */
function decodeSegment(s: string): string | null {
  try {
    return decodeURIComponent(s);
  } catch {
    return null;
  }
}

/**
 * Why an environment name (decoded) cannot be relayed, or null. A slash or backslash inside it
 * (sent as `%2F`/`%5C`), a dot segment or a control character could make a server or a proxy in
 * front of it route the request somewhere other than `/<env>/<endpoint>`.
 */
function badEnvName(env: string): string | null {
  if (env === "." || env === "..") return "a dot segment";
  if (/[/\\]/.test(env)) return "an encoded slash";
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is refused
  if (/[\u0000-\u001f\u007f]/.test(env)) return "a control character";
  return null;
}

/**
 * Checks a relayed request: `method`, the ORS path as it came (percent-encoded, e.g. `/math/call`)
 * and the URL's query (`?...`, or ""). ORS endpoints take no query string, so one is refused.
 */
export function checkRelayRequest(method: string, orsPath: string, search: string): RelayTarget {
  const segments = orsPath.split("/");
  if (segments[0] !== "") return notOrs(orsPath);
  // A trailing slash is tolerated (the path sent upstream is rebuilt without it); `//` is not.
  const parts = segments.slice(1);
  if (parts.length > 1 && parts.at(-1) === "") parts.pop();
  if (parts.some((p) => p === "")) return notOrs(orsPath);
  for (const p of parts) {
    const d = decodeSegment(p);
    if (d === null)
      return { ok: false, status: 400, detail: `${JSON.stringify(orsPath)} is not a valid path` };
    if (p === "." || p === ".." || d === "." || d === "..")
      return { ok: false, status: 404, detail: `refused: ${JSON.stringify(orsPath)} has a dot segment` };
  }

  let route: Exclude<OrsRoute, { kind: "unknown" }>;
  let path: string;
  if (parts.length === 1 && ROOT.has(parts[0]!)) {
    route = { kind: "root", endpoint: parts[0] as RootEndpoint };
    path = `/${route.endpoint}`;
  } else if (parts.length === 1 && ENV.has(parts[0]!)) {
    route = { kind: "bare", endpoint: parts[0] as EnvEndpoint };
    path = `/${route.endpoint}`;
  } else if (parts.length === 2 && ENV.has(parts[1]!)) {
    const env = decodeSegment(parts[0]!)!;
    const bad = badEnvName(env);
    if (bad)
      return {
        ok: false,
        status: 404,
        detail: `refused: the environment name in ${JSON.stringify(orsPath)} has ${bad}`,
      };
    route = { kind: "env", env, endpoint: parts[1] as EnvEndpoint };
    path = `/${encodeURIComponent(env)}/${route.endpoint}`;
  } else {
    return notOrs(orsPath);
  }

  const allow = allowedMethods(route.endpoint);
  if (!allow.includes(method.toUpperCase()))
    return {
      ok: false,
      status: 405,
      allow: allow.join(", "),
      detail: `refused: ${route.kind === "env" ? `/<env>/${route.endpoint}` : path} takes ${allow.join(" or ")}, not ${method}`,
    };
  if (search && search !== "?")
    return {
      ok: false,
      status: 400,
      detail: `refused: ORS endpoints take no query string; the relay forwards none (${path}${search.slice(0, 200)})`,
    };
  return { ok: true, route, path };
}

function notOrs(orsPath: string): RelayTarget {
  const shown = orsPath.length > 200 ? `${orsPath.slice(0, 200)}…` : orsPath;
  return {
    ok: false,
    status: 404,
    detail: `refused: ${JSON.stringify(shown)} is not an ORS endpoint; the relay forwards only ${ALLOWED_SHAPES}`,
  };
}
