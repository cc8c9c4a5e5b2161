// The policy's settings from the environment, listen addresses (loopback or not, which names reach
// them), secrets, and the server entry's arguments (`PORT`, --port, --host, --dev).
import { networkInterfaces } from "node:os";
import { describe, expect, it } from "vitest";
import { parseAppServerArgs } from "@/lib/app-server/args";
import { ORS_BASE_PATH } from "@/lib/playground";
import {
  isLoopbackAddress,
  isWildcardAddress,
  listenHostNames,
  newSecret,
  reachableAddress,
} from "@/lib/security/listen";
import {
  APP_ORS_BASE_PATH,
  appPolicyFromEnv,
  LISTEN_HOSTS_VAR,
  parseHostList,
  parseOriginList,
} from "@/lib/security/policy-config";

describe("appPolicyFromEnv", () => {
  it("reads hosts, listen hosts, origins, token and whether ORS keys are set", () => {
    const p = appPolicyFromEnv({
      PLAYGROUND_ALLOWED_HOSTS: " Box.Example:3000 , [fd00::2] ",
      [LISTEN_HOSTS_VAR]: "192.0.2.2",
      PLAYGROUND_ALLOWED_ORIGINS: "http://localhost:5173/, https://Box.Example",
      PLAYGROUND_TOKEN: " tok ",
      ORS_API_KEYS: "k1,k2",
    });
    expect([...p.allowedHosts]).toEqual(["box.example", "fd00::2", "192.0.2.2"]);
    expect([...p.allowedOrigins]).toEqual(["http://localhost:5173", "https://box.example"]);
    expect(p.token).toBe("tok");
    expect(p.orsKeys).toBe(true);
  });

  it("defaults to loopback only, no token, and follows changes", () => {
    const env: Record<string, string | undefined> = {};
    const p = appPolicyFromEnv(env);
    expect(p.allowedHosts.size).toBe(0);
    expect(p.token).toBeNull();
    expect(p.orsKeys).toBe(false);
    expect(appPolicyFromEnv(env)).toBe(p);
    env.PLAYGROUND_TOKEN = "now";
    expect(appPolicyFromEnv(env).token).toBe("now");
  });

  it("fails on malformed entries, naming the variable", () => {
    expect(() => parseHostList("ok.example, bad host", "PLAYGROUND_ALLOWED_HOSTS")).toThrow(
      /PLAYGROUND_ALLOWED_HOSTS: "bad host"/,
    );
    expect(() => parseOriginList("localhost:3000", "PLAYGROUND_ALLOWED_ORIGINS")).toThrow(
      /not an http\(s\) origin|not an origin/,
    );
    expect(() => parseOriginList("ftp://x", "PLAYGROUND_ALLOWED_ORIGINS")).toThrow(/http\(s\)/);
  });

  it("knows where the app mounts its ORS host", () => {
    expect(APP_ORS_BASE_PATH).toBe(ORS_BASE_PATH);
  });
});

describe("listen addresses", () => {
  it("tells loopback, wildcard and other addresses apart", () => {
    for (const h of ["127.0.0.1", "127.0.0.2", "localhost", "::1", "[::1]"])
      expect(isLoopbackAddress(h), h).toBe(true);
    for (const h of ["0.0.0.0", "::", "[::]", "", "192.0.2.2", "fd00::2", "example.com"])
      expect(isLoopbackAddress(h), h).toBe(false);
    expect(isWildcardAddress("0.0.0.0")).toBe(true);
    expect(isWildcardAddress("::")).toBe(true);
    expect(isWildcardAddress("192.0.2.2")).toBe(false);
  });

  it("names a server may be reached by: none extra on loopback, the address, or every interface", () => {
    expect(listenHostNames("127.0.0.1")).toEqual([]);
    expect(listenHostNames("192.0.2.2")).toEqual(["192.0.2.2"]);
    expect(listenHostNames("fd00::2")).toEqual(["fd00::2"]);
    const external = Object.values(networkInterfaces())
      .flat()
      .filter((a) => a && !a.internal)
      .map((a) => a!.address.toLowerCase());
    const all = listenHostNames("0.0.0.0");
    for (const a of external) expect(all).toContain(a);
    expect(all).not.toContain("127.0.0.1");
    expect(reachableAddress("192.0.2.2")).toBe("192.0.2.2");
  });

  it("makes fresh URL-safe secrets", () => {
    const a = newSecret();
    expect(a).toMatch(/^[A-Za-z0-9_-]{32}$/);
    expect(newSecret()).not.toBe(a);
  });
});

describe("parseAppServerArgs", () => {
  it("listens on 127.0.0.1:3000 by default, PORT and the flags override", () => {
    expect(parseAppServerArgs([], {})).toEqual({ port: 3000, host: "127.0.0.1", dev: false, help: false });
    expect(parseAppServerArgs([], { PORT: "4000" }).port).toBe(4000);
    expect(parseAppServerArgs(["--port", "5000"], { PORT: "4000" }).port).toBe(5000);
    expect(parseAppServerArgs(["-p", "0"], {}).port).toBe(0);
    expect(parseAppServerArgs(["--port=6000", "-H", "0.0.0.0", "--dev"], {})).toEqual({
      port: 6000,
      host: "0.0.0.0",
      dev: true,
      help: false,
    });
    expect(parseAppServerArgs(["--host=::1"], {}).host).toBe("::1");
  });

  it("refuses bad ports and unknown arguments", () => {
    expect(() => parseAppServerArgs([], { PORT: "http" })).toThrow(/PORT must be a port number/);
    expect(() => parseAppServerArgs(["--port", "70000"], {})).toThrow(/--port/);
    expect(() => parseAppServerArgs(["--port"], {})).toThrow(/--port/);
    expect(() => parseAppServerArgs(["--verbose"], {})).toThrow(/unknown argument "--verbose"/);
  });
});
