// The request policy (docs/architecture.md "Security"): whether a request is answered at all, decided from its
// method, target and headers only. One set of rules for every way in: the server entry
// (lib/app-server) applies it before its ORS fast path and Next, Next's proxy.ts before everything
// Next serves (also under `next dev`), and the standalone host (scripts/serve-main.ts) before its
// host. Pure and isomorphic.
import { errorBody } from "@/lib/ors/protocol";
import { hostNameOf, hostPortOf, isLoopbackName } from "./host-names";

/**
 * What a path is, for the policy: the ORS host's endpoints (`health` is the one that needs no key),
 * the app's own APIs, pages (everything else), a share link's play page and its APIs (`share`:
 * answered without the access token, the link being checked where it is answered), or the build's
 * static files (`asset`: the app's own code and styles, no data, which a share link's page loads).
 */
export type PathKind = "ors" | "health" | "api" | "page" | "share" | "asset";

export interface RequestPolicy {
  /** Host names accepted besides the loopback ones (as `hostNameOf` gives them). */
  readonly allowedHosts: ReadonlySet<string>;
  /** Browser origins accepted besides the app's own (`scheme://host[:port]`, lower case). */
  readonly allowedOrigins: ReadonlySet<string>;
  /** The access token pages and APIs require; null when none is (`PLAYGROUND_AUTH=none`). */
  readonly token: string | null;
  /** The ORS endpoints check keys of their own (`ORS_API_KEYS`). */
  readonly orsKeys: boolean;
  /**
   * Whether the ORS endpoints (but `/health`) ask for the token too: only when the app answers to
   * names beyond loopback (it listens off loopback, or PLAYGROUND_ALLOWED_HOSTS is set) and
   * `ORS_API_KEYS` is unset. On loopback a training client needs no browser token, as with the
   * standalone host; `ORS_API_KEYS` guards the host when set.
   */
  readonly orsToken: boolean;
  kindOf(path: string): PathKind;
}

export interface PolicyRequest {
  readonly method: string;
  /** The request target as received: path and query, still percent-encoded. */
  readonly target: string;
  /** A header by lower-case name, or null. */
  header(name: string): string | null;
}

/** A refusal (or the token redirect), ready to write: the same bytes whoever applies the policy. */
export interface PolicyAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** Methods the app answers; anything else (TRACE, CONNECT, WebDAV, ...) is refused up front. */
export const ALLOWED_METHODS = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"] as const;
const METHODS = new Set<string>(ALLOWED_METHODS);
const READS = new Set(["GET", "HEAD"]);
/** Fetch-metadata sites that are this origin itself (or no site at all: typed URL, bookmark). */
const OWN_SITES = new Set(["same-origin", "none"]);
/** Body types browsers cannot send across origins without a CORS preflight (which never succeeds). */
const JSON_TYPE = /^application\/(?:[\w.+-]+\+json|json|jsonl|x-ndjson)\s*(?:;|$)/i;

const TOKEN_COOKIE_PREFIX = "ors_playground_token_";
const SHARE_COOKIE_PREFIX = "ors_playground_share_";

/**
 * The cookie that carries the access token after `?token=`: one per port, as cookies ignore ports
 * (two playgrounds on one host do not overwrite each other's). Any of these cookies that carries
 * this playground's token is accepted, so playgrounds sharing a PLAYGROUND_TOKEN share the cookie.
 */
export function tokenCookieName(host: string | null): string {
  return `${TOKEN_COOKIE_PREFIX}${hostPortOf(host ?? "") || "default"}`;
}

const TOKEN_COOKIE_MAX_AGE_S = 7 * 24 * 3600;

/**
 * The cookie a share link's player gets when they join (docs/review.md "Share links"): it opens
 * nothing by itself (the link's token is in every path it may use); it marks the browser as a
 * player's, so every other page and API answers it 403 rather than asking for the access token.
 */
export function shareCookie(host: string | null, token: string): string {
  return `${SHARE_COOKIE_PREFIX}${hostPortOf(host ?? "") || "default"}=${encodeURIComponent(token)}; Path=/; HttpOnly; SameSite=Strict; Max-Age=${TOKEN_COOKIE_MAX_AGE_S}`;
}

/** An answer of the policy's own: never cached nor sniffed, with `headers` after those. */
function answer(status: number, body: string, headers: Record<string, string>): PolicyAnswer {
  return {
    status,
    headers: { "cache-control": "no-store", "x-content-type-options": "nosniff", ...headers },
    body,
  };
}

function json(status: number, detail: string, headers: Record<string, string> = {}): PolicyAnswer {
  return answer(status, errorBody(detail), { "content-type": "application/json", ...headers });
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** What a browser without the token sees: what to open, and where the token comes from. */
function tokenPage(host: string, path: string, wrong: boolean): string {
  const here = escapeHtml(`http://${host}${path}`);
  const root = escapeHtml(`http://${host}/`);
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>ORS Playground: access token needed</title>
<meta name="viewport" content="width=device-width, initial-scale=1"></head>
<body style="font-family: system-ui, sans-serif; max-width: 42rem; margin: 4rem auto; padding: 0 1rem; line-height: 1.5">
<h1>Access token needed</h1>
${wrong ? "<p><strong>The token given is not this playground's.</strong></p>\n" : ""}<p>This ORS Playground asks for its access token, so that nobody else who can reach this
address (another user of this machine, or of the network) can read your episodes or use its relay.</p>
<p><strong>Open the URL it printed when it started</strong>, which looks like
<code>${root}?token=…</code>. Your browser then keeps the token in a cookie, and the address
bar drops it. To come back to this very page, add <code>?token=…</code> to <code>${here}</code>.</p>
<p>A token generated at startup changes when the playground is started again: open the new URL it
printed. To keep one token across restarts, start it with <code>PLAYGROUND_TOKEN</code> set.
Scripts send <code>Authorization: Bearer &lt;token&gt;</code>.</p>
</body></html>
`;
}

function unauthorized(
  kind: PathKind,
  detail: string,
  host: string,
  path: string,
  wrong: boolean,
): PolicyAnswer {
  if (kind !== "page") return json(401, detail, { "www-authenticate": 'Bearer realm="ors-playground"' });
  return html(401, tokenPage(host, path, wrong), { "www-authenticate": 'Bearer realm="ors-playground"' });
}

/** A page the policy answers itself: not cached, not framed, no referrer. */
function html(status: number, body: string, headers: Record<string, string> = {}): PolicyAnswer {
  return answer(status, body, {
    "content-type": "text/html; charset=utf-8",
    "x-frame-options": "DENY",
    "referrer-policy": "no-referrer",
    ...headers,
  });
}

/** A share link's player (their cookie, no access token) asking for anything but their play page. */
function sharePlayerRefused(kind: PathKind): PolicyAnswer {
  const detail =
    "refused: a share link opens its play page only (/play/<token>); the rest of this playground needs its access token";
  if (kind !== "page") return json(403, detail);
  return html(
    403,
    `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>ORS Playground: not shared</title>
<meta name="viewport" content="width=device-width, initial-scale=1"></head>
<body style="font-family: system-ui, sans-serif; max-width: 42rem; margin: 4rem auto; padding: 0 1rem; line-height: 1.5">
<h1>Not shared with you</h1>
<p>The link you were given opens its play page only. The rest of this ORS Playground needs its
access token: ask whoever sent you the link.</p>
</body></html>
`,
  );
}

/** Constant-time comparison: how long it takes says nothing about how much of the token matched. */
function sameSecret(given: string, token: string): boolean {
  if (given.length !== token.length) return false;
  let diff = 0;
  for (let i = 0; i < token.length; i++) diff |= given.charCodeAt(i) ^ token.charCodeAt(i);
  return diff === 0;
}

/** Whether one of the token cookies in a `Cookie` header carries `token`; null when there is none. */
function tokenCookieMatches(cookies: string | null, token: string): boolean | null {
  if (!cookies?.includes(TOKEN_COOKIE_PREFIX)) return null;
  let found = false;
  for (const part of cookies.split(";")) {
    const eq = part.indexOf("=");
    if (eq <= 0 || !part.slice(0, eq).trim().startsWith(TOKEN_COOKIE_PREFIX)) continue;
    found = true;
    let value: string;
    try {
      value = decodeURIComponent(part.slice(eq + 1).trim());
    } catch {
      continue;
    }
    if (sameSecret(value, token)) return true;
  }
  return found ? false : null;
}

function queryParam(query: string, name: string): string | null {
  for (const pair of query.split("&")) {
    const eq = pair.indexOf("=");
    if ((eq < 0 ? pair : pair.slice(0, eq)) !== name) continue;
    try {
      return decodeURIComponent((eq < 0 ? "" : pair.slice(eq + 1)).replace(/\+/g, " "));
    } catch {
      return null;
    }
  }
  return null;
}

function withoutParam(path: string, query: string, name: string): string {
  const rest = query.split("&").filter((p) => p !== "" && (p.split("=", 1)[0] ?? "") !== name);
  return rest.length ? `${path}?${rest.join("&")}` : path;
}

/** Whether `origin` is the app's own origin (as the browser sees it: scheme + this `Host`) or allowed. */
function isOwnOrigin(origin: string, host: string, policy: RequestPolicy): boolean {
  if (policy.allowedOrigins.has(origin.toLowerCase())) return true;
  let u: URL;
  try {
    u = new URL(origin);
  } catch {
    return false; // "null" (sandboxed frames, file: pages) and garbage
  }
  if (u.protocol !== "http:" && u.protocol !== "https:") return false;
  let h = host.trim().toLowerCase();
  if (u.protocol === "http:" && h.endsWith(":80")) h = h.slice(0, -3);
  if (u.protocol === "https:" && h.endsWith(":443")) h = h.slice(0, -4);
  return u.host === h;
}

function hasBody(req: PolicyRequest): boolean {
  const length = req.header("content-length");
  if (length !== null && length.trim() !== "0") return true;
  return req.header("transfer-encoding") !== null;
}

/** Whether the request carries the token: true, false (a wrong one), or null (none at all). */
function carriesToken(req: PolicyRequest, kind: PathKind, token: string): boolean | null {
  const auth = req.header("authorization");
  if (auth && /^bearer\s+/i.test(auth)) return sameSecret(auth.replace(/^bearer\s+/i, "").trim(), token);
  const cookie = tokenCookieMatches(req.header("cookie"), token);
  if (cookie !== null) return cookie;
  // ORS clients (the reference Python one) can only send X-API-Key: the token works there too.
  const key = kind === "ors" ? req.header("x-api-key") : null;
  return key === null ? null : sameSecret(key.trim(), token);
}

/** The last Host accepted, and under which policy: nearly every request repeats it (the fast path). */
let lastAcceptedHost: { host: string; policy: RequestPolicy | null } = { host: "", policy: null };

/**
 * Applies the policy: null when the request may go on, else the answer to send instead.
 * In order: method (405), target (400), `Host` allow-list (403), browser origin and fetch metadata
 * (403), access token (401, or a redirect that turns `?token=` into a cookie), body type of browser
 * writes (415). Requests without `Origin` and `Sec-Fetch-*` (curl, scripts, training loops) are not
 * browsers and pass the browser checks.
 */
export function checkRequest(req: PolicyRequest, policy: RequestPolicy): PolicyAnswer | null {
  const method = req.method;
  if (!METHODS.has(method))
    return json(405, `Method ${JSON.stringify(method.slice(0, 32))} is not allowed here`, {
      allow: ALLOWED_METHODS.join(", "),
    });

  const target = req.target;
  if (!target.startsWith("/"))
    return json(400, "the request target must be a path starting with / (no absolute URLs, no *)");
  const q = target.indexOf("?");
  const path = q < 0 ? target : target.slice(0, q);
  const query = q < 0 ? "" : target.slice(q + 1);
  try {
    decodeURIComponent(path);
  } catch {
    return json(400, "the path has a malformed percent-escape (like %zz or a lone %)");
  }
  const kind = policy.kindOf(path);

  const host = req.header("host");
  if (host === null || host.trim() === "") return json(400, "the request has no Host header");
  if (!(host === lastAcceptedHost.host && policy === lastAcceptedHost.policy)) {
    const name = hostNameOf(host);
    if (name === null) return json(400, `the Host header ${JSON.stringify(host.slice(0, 100))} is malformed`);
    if (!isLoopbackName(name) && !policy.allowedHosts.has(name))
      return json(
        403,
        `refused: Host ${JSON.stringify(name.slice(0, 100))} is not one of this app's names (loopback names, ` +
          "the address it listens on, PLAYGROUND_ALLOWED_HOSTS)",
      );
    lastAcceptedHost = { host, policy };
  }

  const origin = req.header("origin");
  if (origin !== null && !isOwnOrigin(origin, host, policy))
    return json(
      403,
      `refused: a browser request from ${JSON.stringify(origin.slice(0, 200))}, which is not this app ` +
        "(only the playground's own pages may use it; PLAYGROUND_ALLOWED_ORIGINS adds origins)",
    );
  const site = req.header("sec-fetch-site");
  if (site !== null && !OWN_SITES.has(site)) {
    // Following a link to a page from elsewhere is fine; anything else cross-site is not.
    const dest = req.header("sec-fetch-dest");
    const navigation =
      READS.has(method) &&
      (kind === "page" || kind === "share") &&
      req.header("sec-fetch-mode") === "navigate" &&
      (dest === null || dest === "document");
    if (!navigation)
      return json(
        403,
        `refused: a ${site} browser request (Sec-Fetch-Site); only the playground's own pages may use it`,
      );
  }

  const token = policy.token;
  // A share link's play page and its APIs, and the build's static files, need no access token.
  if (token !== null && (kind === "api" || kind === "page" || (kind === "ors" && policy.orsToken))) {
    const fromQuery = READS.has(method) ? queryParam(query, "token") : null;
    if (fromQuery !== null && sameSecret(fromQuery, token)) {
      const cookie = `${tokenCookieName(host)}=${encodeURIComponent(token)}; Path=/; HttpOnly; SameSite=Strict; Max-Age=${TOKEN_COOKIE_MAX_AGE_S}`;
      return {
        status: 303,
        headers: {
          location: withoutParam(path, query, "token"),
          "set-cookie": cookie,
          "cache-control": "no-store",
          "referrer-policy": "no-referrer",
        },
        body: "",
      };
    }
    const carried = carriesToken(req, kind, token);
    if (carried !== true && req.header("cookie")?.includes(SHARE_COOKIE_PREFIX))
      return sharePlayerRefused(kind);
    if (carried !== true) {
      const wrong = carried === false || fromQuery !== null;
      return unauthorized(
        kind,
        wrong
          ? "the access token is not valid (started again without PLAYGROUND_TOKEN, the playground has a new one: see what it printed)"
          : "this playground requires its access token (Authorization: Bearer <token>, or open the URL it printed with ?token=)",
        host,
        path,
        wrong,
      );
    }
  }

  const browser = origin !== null || site !== null;
  if (browser && !READS.has(method) && hasBody(req)) {
    const type = req.header("content-type") ?? "";
    if (!JSON_TYPE.test(type))
      return json(
        415,
        `a browser request body must be application/json, not ${type ? JSON.stringify(type.slice(0, 100)) : "untyped"}`,
      );
  }
  return null;
}
