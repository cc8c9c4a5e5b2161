// The request policy as pure rules: methods, targets, the Host allow-list, browser origin and fetch
// metadata, the access token, and the body types of browser writes (lib/security/request-policy.ts).
import { describe, expect, it } from "vitest";
import { appPathKind, hostPathKind } from "@/lib/security/policy-config";
import { checkRequest, type PolicyAnswer, tokenCookieName } from "@/lib/security/request-policy";
import { appPolicy } from "./helpers";

const APP = "127.0.0.1:3000";
const policy = appPolicy();
const withToken = appPolicy({ hosts: ["192.0.2.2"], token: "s3cret-token" });

function check(
  method: string,
  target: string,
  headers: Record<string, string> = {},
  p = policy,
): PolicyAnswer | null {
  const h: Record<string, string> = { host: APP, ...headers };
  for (const k of Object.keys(h)) if (h[k] === "") delete h[k];
  return checkRequest({ method, target, header: (name) => h[name] ?? null }, p);
}

function detail(a: PolicyAnswer | null): string {
  return a ? (JSON.parse(a.body) as { detail: string }).detail : "";
}

const SAME_ORIGIN_FETCH = {
  origin: `http://${APP}`,
  "sec-fetch-site": "same-origin",
  "sec-fetch-mode": "cors",
};
const JSON_BODY = { "content-type": "application/json", "content-length": "2" };

describe("methods and targets", () => {
  it("refuses TRACE, CONNECT and unknown methods with 405 and the allowed ones", () => {
    for (const m of ["TRACE", "CONNECT", "PROPFIND", "FOO"]) {
      const a = check(m, "/api/trajectories");
      expect(a?.status, m).toBe(405);
      expect(a?.headers.allow).toBe("GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS");
      expect(detail(a)).toContain(m);
    }
    for (const m of ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"])
      expect(check(m, "/")).toBeNull();
  });

  it("refuses malformed percent-escapes in the path (400), not well-formed ones", () => {
    for (const t of ["/%zz", "/api/trajectories/%", "/api/ors/%E0%A4%A", "/s/%/e/x"]) {
      expect(check("GET", t)?.status, t).toBe(400);
      expect(detail(check("GET", t))).toMatch(/percent-escape/);
    }
    expect(check("GET", "/s/my%20server/e/math")).toBeNull();
    expect(check("GET", "/trajectories?q=%zz")).toBeNull();
  });

  it("refuses targets that are not paths (absolute URLs, *)", () => {
    expect(check("GET", "http://evil.example/")?.status).toBe(400);
    expect(check("OPTIONS", "*")?.status).toBe(400);
  });
});

describe("Host allow-list", () => {
  it.each([
    "127.0.0.1:3000",
    "127.0.0.1",
    "127.9.8.7:3000",
    "localhost:3000",
    "LOCALHOST.:3000",
    "app.localhost:3000",
    "[::1]:3000",
    "[::ffff:127.0.0.1]:3000",
    "[::ffff:7f00:1]:3000",
  ])("accepts the loopback name %j by default", (host) => {
    expect(check("GET", "/", { host })).toBeNull();
  });

  it("refuses every other name with 403, whatever the path (DNS rebinding)", () => {
    for (const host of [
      "evil.example",
      "evil.example:3000",
      "127.0.0.1.nip.io:3000",
      "localhost.evil.example",
      "192.168.1.10:3000",
      "[fe80::1]:3000",
      "0.0.0.0:3000",
      "127.0.0.256",
    ])
      for (const path of [
        "/",
        "/api/trajectories",
        "/api/servers/local/health",
        "/api/ors/health",
        "/health",
      ]) {
        const a = check("GET", path, { host });
        expect(a?.status, `${host} ${path}`).toBe(403);
        expect(detail(a)).toMatch(/Host .* is not one of this app's names/);
      }
  });

  it("400 for a missing or malformed Host", () => {
    expect(check("GET", "/", { host: "" })?.status).toBe(400);
    for (const host of ["a b", "[::1", "evil.example:http", "x/y", "@evil"])
      expect(check("GET", "/", { host })?.status, host).toBe(400);
  });

  it("accepts configured names and addresses (with or without port)", () => {
    const p = appPolicy({ hosts: ["playground.example", "192.0.2.2", "fd00::2"] });
    expect(check("GET", "/", { host: "playground.example" }, p)).toBeNull();
    expect(check("GET", "/", { host: "Playground.Example:8080" }, p)).toBeNull();
    expect(check("GET", "/", { host: "192.0.2.2:3000" }, p)).toBeNull();
    expect(check("GET", "/", { host: "[fd00::2]:3000" }, p)).toBeNull();
    expect(check("GET", "/", { host: "sub.playground.example" }, p)?.status).toBe(403);
  });
});

describe("browser requests from other origins", () => {
  const writes: [string, string][] = [
    ["POST", "/api/trajectories/import"],
    ["POST", "/api/trajectories/t1/fork"],
    ["POST", "/api/trajectories/t1/replay"],
    ["DELETE", "/api/trajectories/t1"],
    ["POST", "/api/servers"],
    ["DELETE", "/api/servers/py"],
    ["POST", "/api/servers/py/create_session"],
    ["POST", "/api/servers/py/math/call"],
    ["POST", "/api/ors/create_session"],
    ["POST", "/create"],
    ["POST", "/math/call"],
  ];

  it("refuses writes from another origin: another site, another port of the same site, null", () => {
    for (const [method, path] of writes) {
      for (const [origin, site] of [
        ["http://evil.example", "cross-site"],
        ["http://localhost:3000", "cross-site"], // the same port, another name: another origin
        ["http://127.0.0.1:9999", "same-site"],
        ["null", "cross-site"],
      ]) {
        const a = check(method, path, { origin, "sec-fetch-site": site, ...JSON_BODY });
        expect(a?.status, `${method} ${path} from ${origin}`).toBe(403);
      }
      // Without Origin (fetch metadata only) and without fetch metadata (Origin only).
      expect(check(method, path, { "sec-fetch-site": "same-site", ...JSON_BODY })?.status).toBe(403);
      expect(check(method, path, { origin: "http://evil.example", ...JSON_BODY })?.status).toBe(403);
    }
  });

  it("lets the app's own pages write, with JSON bodies", () => {
    for (const [method, path] of writes)
      expect(check(method, path, { ...SAME_ORIGIN_FETCH, ...JSON_BODY })).toBeNull();
    expect(
      check("POST", "/api/servers", { ...SAME_ORIGIN_FETCH, ...JSON_BODY, origin: "https://127.0.0.1:3000" }),
    ).toBeNull();
    expect(
      check("POST", "/api/servers", { ...JSON_BODY, origin: "http://localhost", host: "localhost:80" }),
    ).toBeNull();
  });

  it("refuses cross-site reads of APIs and the ORS host, also no-cors ones", () => {
    for (const path of [
      "/api/trajectories",
      "/api/trajectories/t1",
      "/api/trajectories/export",
      "/api/trajectories/live",
      "/api/trajectories/live/events",
      "/api/servers",
      "/api/servers/py/list_environments",
      "/api/ors/list_environments",
      "/list_environments",
    ])
      for (const site of ["cross-site", "same-site", "bogus"])
        for (const mode of ["cors", "no-cors", "navigate"])
          expect(
            check("GET", path, { "sec-fetch-site": site, "sec-fetch-mode": mode }),
            `${path} ${site} ${mode}`,
          ).not.toBeNull();
    expect(check("GET", "/api/trajectories", { origin: "http://evil.example" })?.status).toBe(403);
  });

  it("lets another site link to a page (a top-level navigation), nothing else", () => {
    const nav = {
      "sec-fetch-site": "cross-site",
      "sec-fetch-mode": "navigate",
      "sec-fetch-dest": "document",
    };
    expect(check("GET", "/trajectories/t1", nav)).toBeNull();
    expect(check("GET", "/trajectories/t1", { ...nav, "sec-fetch-dest": "iframe" })?.status).toBe(403);
    expect(check("GET", "/", { "sec-fetch-site": "cross-site", "sec-fetch-mode": "no-cors" })?.status).toBe(
      403,
    );
    expect(check("POST", "/", { ...nav, origin: "http://evil.example" })?.status).toBe(403);
  });

  it("accepts origins from the configuration", () => {
    const p = appPolicy({ origins: ["http://localhost:5173"] });
    expect(check("POST", "/api/servers", { origin: "http://localhost:5173", ...JSON_BODY }, p)).toBeNull();
    expect(check("POST", "/api/servers", { origin: "http://localhost:5174", ...JSON_BODY }, p)?.status).toBe(
      403,
    );
  });
});

describe("body types of browser writes", () => {
  it.each([
    "text/plain",
    "text/plain;charset=UTF-8",
    "application/x-www-form-urlencoded",
    "multipart/form-data; boundary=x",
    "",
    "application/jsonp",
  ])("415 for a browser's body of type %j (text, forms, untyped)", (type) => {
    const a = check("POST", "/api/trajectories/import", {
      ...SAME_ORIGIN_FETCH,
      "content-length": "10",
      "content-type": type,
    });
    expect(a?.status).toBe(415);
    expect(detail(a)).toMatch(/application\/json/);
  });

  it("accepts JSON types, and bodiless writes", () => {
    for (const type of [
      "application/json",
      "application/json; charset=utf-8",
      "application/jsonl",
      "application/x-ndjson",
      "application/vnd.x+json",
    ])
      expect(
        check("POST", "/api/trajectories/import", {
          ...SAME_ORIGIN_FETCH,
          "content-length": "9",
          "content-type": type,
        }),
        type,
      ).toBeNull();
    expect(check("DELETE", "/api/trajectories/t1", SAME_ORIGIN_FETCH)).toBeNull();
    expect(
      check("POST", "/api/ors/create_session", { ...SAME_ORIGIN_FETCH, "content-length": "0" }),
    ).toBeNull();
    expect(
      check("POST", "/api/servers/py/math/call", { ...SAME_ORIGIN_FETCH, "transfer-encoding": "chunked" })
        ?.status,
    ).toBe(415);
  });

  it("leaves non-browser clients (no Origin, no Sec-Fetch-*) alone", () => {
    expect(
      check("POST", "/api/trajectories/import", { "content-type": "text/plain", "content-length": "9" }),
    ).toBeNull();
    expect(
      check("POST", "/create_session", {
        "content-type": "application/x-www-form-urlencoded",
        "content-length": "3",
      }),
    ).toBeNull();
  });
});

describe("access token", () => {
  const remote = (headers: Record<string, string> = {}) => ({ host: "192.0.2.2:3000", ...headers });

  it("401 without it: JSON for APIs and the ORS host, a page for pages", () => {
    const api = check("GET", "/api/trajectories", remote(), withToken);
    expect(api?.status).toBe(401);
    expect(api?.headers["content-type"]).toBe("application/json");
    expect(detail(api)).toMatch(/requires its access token/);
    const ors = check("POST", "/api/ors/create_session", remote(), withToken);
    expect(ors?.status).toBe(401);
    const page = check("GET", "/trajectories", remote(), withToken);
    expect(page?.status).toBe(401);
    expect(page?.headers["content-type"]).toMatch(/^text\/html/);
    expect(page?.body).toMatch(/Access token needed/);
    // The build's static files (code and styles, no data) are served without it: a share link's
    // play page loads them (tests/security/share-policy.test.ts).
    expect(check("GET", "/_next/static/chunks/x.js", remote(), withToken)).toBeNull();
    expect(check("GET", "/", remote({ authorization: "Bearer wrong" }), withToken)?.status).toBe(401);
    expect(
      detail(check("GET", "/api/servers", remote({ authorization: "Bearer wrong" }), withToken)),
    ).toMatch(/not valid/);
  });

  it("is required on loopback too: pages and APIs, but not the ORS host (a training client needs no browser token)", () => {
    const loopback = appPolicy({ token: "s3cret-token" });
    expect(loopback.orsToken).toBe(false);
    for (const [method, path] of [
      ["GET", "/"],
      ["GET", "/trajectories"],
      ["GET", "/api/trajectories"],
      ["GET", "/api/trajectories/live"],
      ["POST", "/api/servers/local/create_session"],
      ["DELETE", "/api/trajectories/x"],
    ])
      expect(check(method!, path!, {}, loopback)?.status, `${method} ${path}`).toBe(401);
    for (const [method, path] of [
      ["GET", "/api/ors/list_environments"],
      ["POST", "/api/ors/create_session"],
      ["GET", "/list_environments"],
      ["POST", "/create_session"],
      ["POST", "/math/call"],
      ["GET", "/health"],
    ])
      expect(check(method!, path!, {}, loopback), `${method} ${path}`).toBeNull();
    expect(check("GET", "/api/trajectories", { authorization: "Bearer s3cret-token" }, loopback)).toBeNull();
    // Answering to other names (a tunnel's, a proxy's) asks ORS clients for it as well.
    const named = appPolicy({ hosts: ["box.example"], token: "s3cret-token" });
    expect(check("POST", "/api/ors/create_session", {}, named)?.status).toBe(401);
  });

  it("accepts Authorization: Bearer and the cookie (named after the port, carrying this token)", () => {
    expect(
      check("GET", "/api/trajectories", remote({ authorization: "Bearer s3cret-token" }), withToken),
    ).toBeNull();
    expect(
      check("GET", "/api/trajectories", remote({ authorization: "bearer  s3cret-token" }), withToken),
    ).toBeNull();
    const cookie = `other=1; ${tokenCookieName("192.0.2.2:3000")}=s3cret-token`;
    expect(check("GET", "/trajectories", remote({ cookie }), withToken)).toBeNull();
    // The cookie of a playground on another port of the same host, with its own token, is not this
    // one's; one set by a playground sharing this token (PLAYGROUND_TOKEN) is.
    const other = `${tokenCookieName("x:3001")}=other-token`;
    expect(check("GET", "/trajectories", remote({ cookie: other }), withToken)?.status).toBe(401);
    expect(
      check(
        "GET",
        "/trajectories",
        remote({ cookie: `${other}; ${tokenCookieName("x:3002")}=s3cret-token` }),
        withToken,
      ),
    ).toBeNull();
    expect(
      check("GET", "/trajectories", remote({ cookie: "ors_playground_token_3000=%zz" }), withToken)?.status,
    ).toBe(401);
    // A wrong bearer is not rescued by a right cookie: what a script sends is what counts.
    expect(
      check(
        "GET",
        "/api/trajectories",
        remote({ authorization: "Bearer nope", cookie: `${tokenCookieName("192.0.2.2:3000")}=s3cret-token` }),
        withToken,
      )?.status,
    ).toBe(401);
  });

  it("the page without the token says what to open, on this very address", () => {
    const page = check("GET", "/trajectories/abc", { host: "127.0.0.1:3000" }, withToken);
    expect(page?.status).toBe(401);
    expect(page?.body).toContain("<code>http://127.0.0.1:3000/?token=…</code>");
    expect(page?.body).toContain("<code>http://127.0.0.1:3000/trajectories/abc</code>");
    expect(page?.body).toMatch(/changes when the playground is started again/);
    expect(page?.body).not.toMatch(/not this playground's/);
    expect(page?.headers["x-frame-options"]).toBe("DENY");
    const wrong = check("GET", "/?token=nope", { host: "127.0.0.1:3000" }, withToken);
    expect(wrong?.body).toMatch(/The token given is not this playground's/);
    const escaped = check("GET", '/"><script>x</script>', { host: "127.0.0.1:3000" }, withToken);
    expect(escaped?.body).not.toContain("<script>");
    expect(escaped?.body).toContain("/&#34;&#62;&#60;script&#62;x&#60;/script&#62;");
  });

  it("turns ?token= on a page load into an HttpOnly SameSite=Strict cookie and a redirect without it", () => {
    const a = check("GET", "/trajectories?token=s3cret-token&q=math", remote(), withToken);
    expect(a?.status).toBe(303);
    expect(a?.headers.location).toBe("/trajectories?q=math");
    const cookie = a?.headers["set-cookie"] ?? "";
    expect(cookie).toMatch(new RegExp(`^${tokenCookieName("192.0.2.2:3000")}=s3cret-token;`));
    expect(cookie).toContain("HttpOnly");
    expect(cookie).toContain("SameSite=Strict");
    expect(cookie).toContain("Path=/");
    expect(check("GET", "/?token=s3cret-token", remote(), withToken)?.headers.location).toBe("/");
    expect(check("GET", "/?token=nope", remote(), withToken)?.status).toBe(401);
    expect(detail(check("GET", "/api/trajectories?token=nope", remote(), withToken))).toMatch(/not valid/);
    expect(check("POST", "/api/servers?token=s3cret-token", remote(), withToken)?.status).toBe(401);
  });

  it("ORS clients may send it as X-API-Key (not to the app's APIs: the relay forwards that header)", () => {
    expect(check("POST", "/create_session", remote({ "x-api-key": "s3cret-token" }), withToken)).toBeNull();
    expect(
      check("POST", "/api/ors/create_session", remote({ "x-api-key": "s3cret-token" }), withToken),
    ).toBeNull();
    expect(
      check("POST", "/api/servers/py/create_session", remote({ "x-api-key": "s3cret-token" }), withToken)
        ?.status,
    ).toBe(401);
  });

  it("leaves the ORS host to its own keys when ORS_API_KEYS is set, and /health open", () => {
    const keyed = appPolicy({ hosts: ["192.0.2.2"], token: "t", orsKeys: true });
    expect(check("POST", "/api/ors/create_session", remote(), keyed)).toBeNull();
    expect(check("GET", "/api/trajectories", remote(), keyed)?.status).toBe(401);
    expect(check("GET", "/api/ors/health", remote(), withToken)).toBeNull();
    expect(check("GET", "/health", remote(), withToken)).toBeNull();
  });

  it("a cross-site request is refused as such before the token is asked for", () => {
    expect(check("POST", "/api/servers", remote({ origin: "http://evil.example" }), withToken)?.status).toBe(
      403,
    );
  });
});

describe("path kinds", () => {
  // The bare ORS paths are ORS (no access token; ORS_API_KEYS rules), the pages are pages.
  it.each([
    ["/api/ors/math/call", "ors"],
    ["/api/ors/nope", "ors"],
    ["/math/call", "ors"],
    ["/create_session", "ors"],
    ["/splits", "ors"],
    ["/tasks", "ors"],
    ["/task", "ors"],
    ["/task_range", "ors"],
    ["/num_tasks", "ors"],
    ["/tools", "ors"],
    ["/prompt", "ors"],
    ["/task_tools", "ors"],
    ["/call", "ors"],
    ["/health", "health"],
    ["/api/ors/health", "health"],
    ["/api/servers/local/health", "api"],
    ["/api/trajectories", "api"],
    ["/", "page"],
    ["/live", "page"],
    ["/trajectories", "page"],
    ["/s/local/e/math", "page"],
    ["/_next/static/x.js", "asset"],
  ])("the app takes %s as %s", (path, kind) => {
    expect(appPathKind(path)).toBe(kind);
  });

  it("the host takes its health path as health, anything else as ORS", () => {
    expect(hostPathKind("/health")).toBe("health");
    expect(hostPathKind("/anything")).toBe("ors");
  });
});
