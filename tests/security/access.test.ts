// The access of a start (lib/security/access.ts): the token given, PLAYGROUND_TOKEN's, or a fresh
// one at each start; none with PLAYGROUND_AUTH=none; and what the start says about it.
import { describe, expect, it } from "vitest";
import { describeAccess, resolveAccess } from "@/lib/security/access";

describe("resolveAccess", () => {
  it("a token by default: generated at each start unless PLAYGROUND_TOKEN or an option sets it", () => {
    const a = resolveAccess({});
    const b = resolveAccess({});
    expect(a).toEqual({ token: expect.stringMatching(/^[A-Za-z0-9_-]{32}$/), generated: true });
    expect(b.token).not.toBe(a.token);
    expect(resolveAccess({ PLAYGROUND_TOKEN: " fixed-token " })).toEqual({
      token: "fixed-token",
      generated: false,
    });
    expect(resolveAccess({ PLAYGROUND_TOKEN: "env" }, "given")).toEqual({ token: "given", generated: false });
    expect(resolveAccess({ PLAYGROUND_TOKEN: "  " }).generated).toBe(true);
  });

  it("none with PLAYGROUND_AUTH=none; contradictions are refused", () => {
    expect(resolveAccess({ PLAYGROUND_AUTH: "none" })).toEqual({ token: null, generated: false });
    expect(() => resolveAccess({ PLAYGROUND_AUTH: "none", PLAYGROUND_TOKEN: "t" })).toThrow(/both set/);
    expect(() => resolveAccess({ PLAYGROUND_AUTH: "none" }, "t")).toThrow(/both given/);
    expect(() => resolveAccess({ PLAYGROUND_AUTH: "yes" })).toThrow(/expected "none"/);
  });
});

describe("describeAccess", () => {
  const on = { where: "http://127.0.0.1:3000", loopback: true, orsKeys: false, allowedHosts: false };

  it("says where the token comes from, whether it lasts, and what ORS clients need", () => {
    const generated = describeAccess({ token: "x".repeat(32), generated: true }, on);
    expect(generated.warning).toBeNull();
    expect(generated.lines.join(" ")).toMatch(/generated at startup and changes with every start/);
    expect(generated.lines.join(" ")).toMatch(
      /ORS clients \(\/api\/ors and the root\) need no token on loopback/,
    );
    const fixed = describeAccess({ token: "y".repeat(20), generated: false }, { ...on, loopback: false });
    expect(fixed.lines.join(" ")).toMatch(/PLAYGROUND_TOKEN's: it stays the same across restarts/);
    expect(fixed.lines.join(" ")).toMatch(/ORS clients send the token as X-API-Key/);
    expect(
      describeAccess({ token: "y".repeat(20), generated: false }, { ...on, orsKeys: true }).lines.join(" "),
    ).toMatch(/keys of ORS_API_KEYS/);
    expect(describeAccess({ token: "short", generated: false }, on).warning).toMatch(/only 5 characters/);
  });

  it("PLAYGROUND_AUTH=none is announced loudly, saying who can get in", () => {
    const loopback = describeAccess({ token: null, generated: false }, on);
    expect(loopback.lines).toEqual([
      "No access token (PLAYGROUND_AUTH=none): pages, APIs and the relay are open.",
    ]);
    expect(loopback.warning).toMatch(
      /^WARNING: PLAYGROUND_AUTH=none: the playground at http:\/\/127\.0\.0\.1:3000 has NO ACCESS TOKEN\. Every user and every program of this machine can read/,
    );
    expect(describeAccess({ token: null, generated: false }, { ...on, loopback: false }).warning).toMatch(
      /Anyone who can reach it over the network/,
    );
  });
});
