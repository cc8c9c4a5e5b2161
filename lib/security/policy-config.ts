// The request policy's settings, read from the environment (README "Configuration"), and what each
// path of the app is. Pure and isomorphic: the server entry and Next's proxy.ts read the same
// variables, so they enforce the same rules in one process.
import { isOrsRequestPath } from "@/lib/ors/host/fast-path";
import { hostNameOfAddress } from "./host-names";
import type { PathKind, RequestPolicy } from "./request-policy";

/** Where the app mounts its ORS host (lib/playground.ts's ORS_BASE_PATH; a test keeps them equal). */
export const APP_ORS_BASE_PATH = "/api/ors";

/**
 * Set by the server entry (lib/app-server) to the names it listens on besides the loopback ones
 * (the bound address; for 0.0.0.0 or :: every interface's address and the machine's name; empty on
 * loopback), so that Next's proxy.ts, in the same process, accepts them too. Not meant to be set
 * by hand.
 */
export const LISTEN_HOSTS_VAR = "PLAYGROUND_LISTEN_HOSTS";

/** `PLAYGROUND_AUTH`: `token` (the default: pages and APIs need the access token) or `none`. */
export const AUTH_VAR = "PLAYGROUND_AUTH";
export type AuthMode = "token" | "none";

/**
 * The access mode the environment asks for. Throws, naming the variables, on a value other than
 * `token` or `none`, and on `none` beside a `PLAYGROUND_TOKEN` (which of the two was meant?).
 */
export function authModeOf(env: Env = process.env): AuthMode {
  const raw = env[AUTH_VAR]?.trim().toLowerCase() ?? "";
  if (raw !== "" && raw !== "token" && raw !== "none")
    throw new Error(
      `${AUTH_VAR}=${JSON.stringify(env[AUTH_VAR])}: expected "none" (no access token) or "token" (the default)`,
    );
  if (raw === "none" && env.PLAYGROUND_TOKEN?.trim())
    throw new Error(
      `${AUTH_VAR}=none and PLAYGROUND_TOKEN are both set: unset PLAYGROUND_TOKEN to run without a token, or ${AUTH_VAR} to require it`,
    );
  return raw === "none" ? "none" : "token";
}

/** The token required when neither PLAYGROUND_TOKEN nor PLAYGROUND_AUTH=none says otherwise. */
let unknownToken: string | null = null;

/**
 * Next run on its own (`next start`, `next dev`) never went through the server entry, which
 * generates and prints the token: it still refuses pages and APIs (with a token nobody knows), and
 * says why once.
 */
function tokenNobodyKnows(): string {
  if (unknownToken === null) {
    const bytes = new Uint8Array(24);
    crypto.getRandomValues(bytes);
    unknownToken = Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
    console.warn(
      "[ors-playground] neither PLAYGROUND_TOKEN nor PLAYGROUND_AUTH=none is set, and the app was not " +
        "started by its server entry: every page and API answers 401. Start it with `npm start` or " +
        "`npm run dev` (they print the URL to open), or set PLAYGROUND_TOKEN.",
    );
  }
  return unknownToken;
}

type Env = Record<string, string | undefined>;

function list(value: string | undefined): string[] {
  return (value ?? "")
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
}

/** A share link's play page (`/play/<token>`) and its APIs (`/api/play/<token>/...`): the token as made. */
const SHARE_PATH = /^\/(?:play\/[A-Za-z0-9_-]{16,64}\/?|api\/play\/[A-Za-z0-9_-]{16,64}(?:\/.*)?)$/;
/** `.` or `..` segments, encoded dots and slashes, backslashes. */
const DOT_SEGMENT = /(?:^|\/)\.\.?(?:\/|$)|%2e|%2f|%5c|\\/i;
/** The build's static files and the icons: code and styles, no data. */
const ASSET_PATH = /^\/(?:_next\/static\/.+|favicon\.ico|icon\.svg)$/;

/**
 * The app's paths: its ORS host (`/api/ors/...` and the root shapes), its APIs, its pages, a share
 * link's play page and APIs, the build's static files.
 */
export function appPathKind(path: string): PathKind {
  if (isOrsRequestPath(path, APP_ORS_BASE_PATH, true))
    return path === "/health" || path === `${APP_ORS_BASE_PATH}/health` ? "health" : "ors";
  const api = path === "/api" || path.startsWith("/api/");
  const open =
    path.startsWith("/play/") || path.startsWith("/api/play/")
      ? SHARE_PATH.test(path) && "share"
      : (path.startsWith("/_next/static/") || path === "/favicon.ico" || path === "/icon.svg") &&
        ASSET_PATH.test(path) &&
        "asset";
  // Never for a path with dot segments or encoded separators: a server that resolves them would
  // take `/api/play/<token>/../../trajectories` to a path that needs the token.
  if (open && !DOT_SEGMENT.test(path)) return open;
  return api ? "api" : "page";
}

/** The standalone host's paths (scripts/serve.ts): all ORS, `/health` open. */
export function hostPathKind(path: string): PathKind {
  return path === "/health" ? "health" : "ors";
}

/**
 * Host names from a comma-separated list (ports and brackets dropped; bare IPv6 addresses, with or
 * without a zone id, read as addresses); malformed entries throw.
 */
export function parseHostList(value: string | undefined, what: string): string[] {
  return list(value).map((entry) => {
    const name = hostNameOfAddress(entry);
    if (name === null) throw new Error(`${what}: ${JSON.stringify(entry)} is not a host name or address`);
    return name;
  });
}

/** Origins from a comma-separated list, as browsers send them (`http://host:port`, lower case). */
export function parseOriginList(value: string | undefined, what: string): string[] {
  return list(value).map((entry) => {
    let u: URL;
    try {
      u = new URL(entry);
    } catch {
      throw new Error(`${what}: ${JSON.stringify(entry)} is not an origin like http://host:port`);
    }
    if (u.protocol !== "http:" && u.protocol !== "https:")
      throw new Error(`${what}: ${JSON.stringify(entry)} is not an http(s) origin`);
    return u.origin.toLowerCase();
  });
}

export interface PolicySettings {
  /** Extra host names (besides loopback ones). */
  hosts: string[];
  /** Extra browser origins. */
  origins: string[];
  /** The access token of pages and APIs; null for none. */
  token: string | null;
  /** `ORS_API_KEYS` is set: the ORS endpoints check those keys, never the token. */
  orsKeys: boolean;
  kindOf: (path: string) => PathKind;
}

/**
 * The policy of these settings. The ORS endpoints ask for the token only when the server answers to
 * names beyond loopback (it listens off loopback, or PLAYGROUND_ALLOWED_HOSTS names a tunnel or a
 * proxy) and ORS_API_KEYS is unset: on loopback a training client needs no browser token.
 */
export function createRequestPolicy(s: PolicySettings): RequestPolicy {
  return {
    allowedHosts: new Set(s.hosts),
    allowedOrigins: new Set(s.origins),
    token: s.token,
    orsKeys: s.orsKeys,
    orsToken: s.token !== null && !s.orsKeys && s.hosts.length > 0,
    kindOf: s.kindOf,
  };
}

let cached: { key: string; policy: RequestPolicy } | null = null;

/**
 * The app's policy from `PLAYGROUND_ALLOWED_HOSTS`, `PLAYGROUND_LISTEN_HOSTS`,
 * `PLAYGROUND_ALLOWED_ORIGINS`, `PLAYGROUND_TOKEN`, `PLAYGROUND_AUTH` and `ORS_API_KEYS`. Pages and
 * APIs need the token unless PLAYGROUND_AUTH=none. Cheap to call per request: it is rebuilt only
 * when one of them changes.
 */
export function appPolicyFromEnv(env: Env = process.env): RequestPolicy {
  const values = [
    env.PLAYGROUND_ALLOWED_HOSTS,
    env[LISTEN_HOSTS_VAR],
    env.PLAYGROUND_ALLOWED_ORIGINS,
    env.PLAYGROUND_TOKEN,
    env[AUTH_VAR],
    env.ORS_API_KEYS,
  ];
  const key = JSON.stringify(values);
  if (cached?.key === key) return cached.policy;
  const policy = createRequestPolicy({
    hosts: [
      ...parseHostList(env.PLAYGROUND_ALLOWED_HOSTS, "PLAYGROUND_ALLOWED_HOSTS"),
      ...parseHostList(env[LISTEN_HOSTS_VAR], LISTEN_HOSTS_VAR),
    ],
    origins: parseOriginList(env.PLAYGROUND_ALLOWED_ORIGINS, "PLAYGROUND_ALLOWED_ORIGINS"),
    token: authModeOf(env) === "none" ? null : env.PLAYGROUND_TOKEN?.trim() || tokenNobodyKnows(),
    orsKeys: list(env.ORS_API_KEYS).length > 0,
    kindOf: appPathKind,
  });
  cached = { key, policy };
  return policy;
}
