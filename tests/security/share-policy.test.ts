// The request policy's share links (docs/review.md "Share links"): a play page and its APIs are
// answered without the access token (the link is checked where it is answered), the build's static
// files too; a browser carrying a player's cookie but no token gets 403 from every other page and
// API; paths that a server could resolve elsewhere (dot segments, encoded slashes) get nothing.
import { describe, expect, it } from "vitest";
import { appPathKind, createRequestPolicy } from "@/lib/security/policy-config";
import { checkRequest, type PolicyAnswer, shareCookie } from "@/lib/security/request-policy";

const APP = "127.0.0.1:3000";
const TOKEN = "s3cret-token-of-the-playground";
const LINK = "AbCdEfGhIjKlMnOpQrStUvWxYz012345";
const policy = createRequestPolicy({
  hosts: [],
  origins: [],
  token: TOKEN,
  orsKeys: false,
  kindOf: appPathKind,
});

function check(method: string, target: string, headers: Record<string, string> = {}): PolicyAnswer | null {
  const h: Record<string, string> = { host: APP, ...headers };
  return checkRequest({ method, target, header: (name) => h[name] ?? null }, policy);
}

const PLAYER = { cookie: shareCookie(APP, LINK).split(";")[0]! };
const SAME_ORIGIN = { origin: `http://${APP}`, "sec-fetch-site": "same-origin", "sec-fetch-mode": "cors" };

describe("share links in the request policy", () => {
  it("classifies play pages, their APIs and static files; dot segments and encoded separators are not", () => {
    expect(appPathKind(`/play/${LINK}`)).toBe("share");
    expect(appPathKind(`/play/${LINK}/`)).toBe("share");
    expect(appPathKind(`/api/play/${LINK}`)).toBe("share");
    expect(appPathKind(`/api/play/${LINK}/servers/local/math/call`)).toBe("share");
    expect(appPathKind("/_next/static/chunks/app.js")).toBe("asset");
    expect(appPathKind("/favicon.ico")).toBe("asset");
    expect(appPathKind("/play/short")).toBe("page");
    expect(appPathKind(`/play/${LINK}/more`)).toBe("page");
    expect(appPathKind(`/api/play/${LINK}/../../trajectories`)).toBe("api");
    expect(appPathKind(`/api/play/${LINK}/%2e%2e/%2e%2e/trajectories`)).toBe("api");
    expect(appPathKind(`/api/play/${LINK}/x%2F..%2Ftrajectories`)).toBe("api");
    expect(appPathKind(`/api/play/${LINK}/x\\..\\y`)).toBe("api");
    expect(appPathKind("/_next/static/../../trajectories")).toBe("page");
    expect(appPathKind("/_next/data/x.json")).toBe("page");
  });

  it("answers a play page, its APIs and static files without the access token", () => {
    expect(check("GET", `/play/${LINK}`)).toBeNull();
    expect(check("POST", `/api/play/${LINK}/join`, { ...SAME_ORIGIN, ...PLAYER })).toBeNull();
    expect(check("GET", `/api/play/${LINK}/trajectories/abc/events`, PLAYER)).toBeNull();
    expect(check("GET", "/_next/static/chunks/main.js", PLAYER)).toBeNull();
    // Followed from a message in another site: a navigation, let through.
    expect(
      check("GET", `/play/${LINK}`, {
        "sec-fetch-site": "cross-site",
        "sec-fetch-mode": "navigate",
        "sec-fetch-dest": "document",
      }),
    ).toBeNull();
    // Another site's script calling a play API: refused before anything else.
    expect(
      check("POST", `/api/play/${LINK}/next`, {
        origin: "http://evil.example",
        "sec-fetch-site": "cross-site",
      })?.status,
    ).toBe(403);
  });

  it("answers a player 403 on every other page and API, a stranger 401", () => {
    for (const target of ["/", "/trajectories", "/runs", "/review", `/s/local/e/math`, "/play/short"]) {
      const a = check("GET", target, PLAYER);
      expect(a?.status, target).toBe(403);
      expect(a?.headers["content-type"]).toMatch(/text\/html/);
      expect(a?.body).toContain("opens its play page only");
      expect(check("GET", target)?.status, target).toBe(401);
    }
    for (const [method, target] of [
      ["GET", "/api/trajectories"],
      ["GET", "/api/runs"],
      ["POST", "/api/servers/local/create_session"],
      ["GET", "/api/shares"],
      ["GET", "/api/leaderboards/local/math/train"],
      ["GET", `/api/play/${LINK}/../../trajectories`],
    ] as const) {
      const a = check(method, target, { ...SAME_ORIGIN, ...PLAYER });
      expect(a?.status, target).toBe(403);
      expect(JSON.parse(a!.body).detail).toMatch(/share link opens its play page only/);
    }
  });

  it("the access token still opens everything, with or without a player's cookie", () => {
    const both = { cookie: `${PLAYER.cookie}; ors_playground_token_3000=${TOKEN}` };
    expect(check("GET", "/trajectories", both)).toBeNull();
    expect(check("GET", "/api/runs", { ...PLAYER, authorization: `Bearer ${TOKEN}` })).toBeNull();
    expect(check("GET", `/play/${LINK}`, both)).toBeNull();
  });

  it("the cookie is HttpOnly, SameSite=Strict, named after the port", () => {
    expect(shareCookie(APP, LINK)).toBe(
      `ors_playground_share_3000=${LINK}; Path=/; HttpOnly; SameSite=Strict; Max-Age=604800`,
    );
  });
});
