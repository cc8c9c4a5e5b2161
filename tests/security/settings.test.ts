// The policy's settings from the environment, listen addresses (loopback or not, which names reach
// them), secrets, and the server entry's arguments (`PORT`, --port, --host, --dev).
import { type NetworkInterfaceInfo, networkInterfaces } from "node:os";
import { describe, expect, it, vi } from "vitest";
import { parseAppServerArgs } from "@/lib/app-server/args";
import { ORS_BASE_PATH } from "@/lib/playground";
import {
  isLoopbackAddress,
  isWildcardAddress,
  listenHostNames,
  type MachineAddresses,
  newSecret,
  reachableAddress,
  urlHost,
} from "@/lib/security/listen";
import {
  APP_ORS_BASE_PATH,
  appPolicyFromEnv,
  authModeOf,
  LISTEN_HOSTS_VAR,
  parseHostList,
  parseOriginList,
} from "@/lib/security/policy-config";
import { checkRequest } from "@/lib/security/request-policy";

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

  it("defaults to loopback only and a token, and follows changes", () => {
    const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
    const env: Record<string, string | undefined> = {};
    const p = appPolicyFromEnv(env);
    expect(p.allowedHosts.size).toBe(0);
    // Nobody set a token nor turned it off (Next run without the server entry): pages and APIs
    // answer 401 to everyone, with a token nobody knows, and it says why.
    expect(p.token).toMatch(/^[0-9a-f]{48}$/);
    expect(warn).toHaveBeenCalledWith(expect.stringMatching(/every page and API answers 401/));
    warn.mockRestore();
    expect(p.orsKeys).toBe(false);
    expect(p.orsToken).toBe(false);
    expect(appPolicyFromEnv(env)).toBe(p);
    env.PLAYGROUND_TOKEN = "now";
    expect(appPolicyFromEnv(env).token).toBe("now");
    // Off loopback the ORS endpoints ask for it too, unless ORS_API_KEYS guards them.
    env[LISTEN_HOSTS_VAR] = "192.0.2.2";
    expect(appPolicyFromEnv(env).orsToken).toBe(true);
    env.ORS_API_KEYS = "k";
    expect(appPolicyFromEnv(env).orsToken).toBe(false);
  });

  it("PLAYGROUND_AUTH=none turns the token off; anything else than none or token is refused", () => {
    expect(appPolicyFromEnv({ PLAYGROUND_AUTH: "none" }).token).toBeNull();
    expect(appPolicyFromEnv({ PLAYGROUND_AUTH: " NONE " }).token).toBeNull();
    expect(appPolicyFromEnv({ PLAYGROUND_AUTH: "token", PLAYGROUND_TOKEN: "t" }).token).toBe("t");
    expect(authModeOf({})).toBe("token");
    expect(() => authModeOf({ PLAYGROUND_AUTH: "off" })).toThrow(
      'PLAYGROUND_AUTH="off": expected "none" (no access token) or "token" (the default)',
    );
    expect(() => appPolicyFromEnv({ PLAYGROUND_AUTH: "none", PLAYGROUND_TOKEN: "t" })).toThrow(
      /PLAYGROUND_AUTH=none and PLAYGROUND_TOKEN are both set/,
    );
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
    expect(listenHostNames("FD00:0:0:0:0:0:0:2")).toEqual(["fd00::2"]);
    expect(listenHostNames("fe80::1%eth0")).toEqual(["fe80::1"]);
    const external = Object.values(networkInterfaces())
      .flat()
      .filter((a) => a && !a.internal)
      .map(
        (a) => new URL(`http://${a!.family === "IPv6" ? `[${a!.address.replace(/%.*/, "")}]` : a!.address}/`),
      );
    const all = listenHostNames("0.0.0.0");
    for (const u of external) expect(all).toContain(u.hostname.replace(/^\[|\]$/g, ""));
    expect(all).not.toContain("127.0.0.1");
    expect(reachableAddress("192.0.2.2")).toBe("192.0.2.2");
    expect(reachableAddress("[fd00::2]")).toBe("fd00::2");
  });
});

// ---------------------------------------------------------------------------------------------
// Starting off loopback: every interface address, in every spelling an OS reports, becomes a name
// the policy accepts (it used to be parsed as host:port, so `--host 0.0.0.0` refused to start on
// any machine with a global IPv6 address).

/** One interface address as os.networkInterfaces() reports it (scope 4: a link-local one). */
function nic(address: string, internal = false): NetworkInterfaceInfo {
  const base = { address, internal, netmask: "", mac: "", cidr: null };
  if (!address.includes(":")) return { ...base, family: "IPv4" };
  return { ...base, family: "IPv6", scopeid: address.startsWith("fe80") ? 4 : 0 };
}

/** Every spelling: IPv4, global and unique-local IPv6 (compressed, expanded, upper case), link-local
 *  with and without a zone id, IPv4-mapped (dotted and hex), an IPv4 link-local address. */

const SYNTHETIC: MachineAddresses = {
  hostname: () => "Lab-Box",
  interfaces: () => ({
    lo: [nic("127.0.0.1", true), nic("::1", true)],
    eth0: [
      nic("192.0.2.2"),
      nic("fd00::2"),
      nic("2001:DB8:0:0:0:0:0:1"),
      nic("fe80::fc:ff:fe00:1"),
      nic("fe80::1%eth0"),
    ],
    tun0: [nic("::ffff:198.51.100.7"), nic("0:0:0:0:0:ffff:c633:6408"), nic("169.254.10.20")],
  }),
};

/** The `Host` a browser or curl sends for an address: URL-parsed, as `http://[addr]:3000/`. */
function hostHeaderFor(address: string): string {
  const bare = address.replace(/%.*$/, "");
  return new URL(`http://${bare.includes(":") ? `[${bare}]` : bare}:3000/`).host;
}

describe("listening on every interface", () => {
  const machines: [string, MachineAddresses | undefined][] = [
    ["this machine (os.networkInterfaces())", undefined],
    ["a synthetic machine with every spelling", SYNTHETIC],
  ];
  for (const [label, machine] of machines)
    for (const wildcard of ["0.0.0.0", "::", "[::]"])
      it(`${label}, --host ${wildcard}: the names parse back and every address is an allowed Host`, () => {
        const names = listenHostNames(wildcard, machine);
        // What the server entry hands Next's proxy.ts in PLAYGROUND_LISTEN_HOSTS reads back whole.
        const policy = appPolicyFromEnv({ [LISTEN_HOSTS_VAR]: names.join(","), PLAYGROUND_AUTH: "none" });
        expect([...policy.allowedHosts]).toEqual(names);
        const interfaces = Object.values((machine ?? { interfaces: networkInterfaces }).interfaces())
          .flat()
          .filter((a) => a && !a.internal);
        expect(interfaces.length).toBeGreaterThan(0);
        for (const a of interfaces) {
          const host = hostHeaderFor(a!.address);
          const answer = checkRequest(
            { method: "GET", target: "/", header: (h) => (h === "host" ? host : null) },
            policy,
          );
          expect(answer, `Host ${host} (${a!.address})`).toBeNull();
        }
        const foreign = checkRequest(
          { method: "GET", target: "/", header: (h) => (h === "host" ? "attacker.example:3000" : null) },
          policy,
        );
        expect(foreign?.status).toBe(403);
      });

  it("lists each synthetic address once, canonical, and the machine's name", () => {
    expect(listenHostNames("0.0.0.0", SYNTHETIC)).toEqual([
      "192.0.2.2",
      "fd00::2",
      "2001:db8::1",
      "fe80::fc:ff:fe00:1",
      "fe80::1",
      "::ffff:c633:6407",
      "::ffff:c633:6408",
      "169.254.10.20",
      "lab-box",
    ]);
  });

  it("prints an address other machines can use: IPv4 first, else a routable IPv6 one", () => {
    expect(reachableAddress("0.0.0.0", SYNTHETIC)).toBe("192.0.2.2");
    const v6only: MachineAddresses = {
      hostname: () => "box",
      interfaces: () => ({
        eth0: (SYNTHETIC.interfaces().eth0 ?? []).filter((a) => a.family === "IPv6").reverse(),
      }),
    };
    expect(reachableAddress("::", v6only)).toBe("2001:db8::1");
    expect(reachableAddress("::", { hostname: () => "x", interfaces: () => ({}) })).toBe("127.0.0.1");
    expect(urlHost("fd00::2")).toBe("[fd00::2]");
    expect(urlHost("192.0.2.2")).toBe("192.0.2.2");
  });

  it("reads IPv6 entries of PLAYGROUND_ALLOWED_HOSTS bare, bracketed, with a port or a zone id", () => {
    expect(
      parseHostList("fd00::2, [FD00::3]:3000, fe80::1%eth0, ::ffff:192.0.2.9, host.example:80", "X"),
    ).toEqual(["fd00::2", "fd00::3", "fe80::1", "::ffff:c000:209", "host.example"]);
    expect(() => parseHostList("fd00::zz", "X")).toThrow(/X: "fd00::zz" is not a host name or address/);
  });
});

describe("secrets", () => {
  it("makes fresh URL-safe secrets", () => {
    const a = newSecret();
    expect(a).toMatch(/^[A-Za-z0-9_-]{32}$/);
    expect(newSecret()).not.toBe(a);
  });
});

describe("parseAppServerArgs", () => {
  it("listens on 127.0.0.1:3000 by default, PORT and the flags override", () => {
    expect(parseAppServerArgs([], {})).toEqual({
      port: 3000,
      host: "127.0.0.1",
      dev: false,
      help: false,
      spawn: [],
    });
    expect(parseAppServerArgs([], { PORT: "4000" }).port).toBe(4000);
    expect(parseAppServerArgs(["--port", "5000"], { PORT: "4000" }).port).toBe(5000);
    expect(parseAppServerArgs(["-p", "0"], {}).port).toBe(0);
    expect(parseAppServerArgs(["--port=6000", "-H", "0.0.0.0", "--dev"], {})).toEqual({
      port: 6000,
      host: "0.0.0.0",
      dev: true,
      help: false,
      spawn: [],
    });
    expect(parseAppServerArgs(["--host=::1"], {}).host).toBe("::1");
  });

  it("takes --spawn as the CLI's start does (npm start -- --spawn ..., npm run dev -- --spawn ...)", () => {
    const argv = [
      "--dev",
      "--spawn",
      "python my_env.py --port {port}",
      "--watch",
      "src",
      "--restart=on-failure",
    ];
    expect(parseAppServerArgs(argv, {}, "/work/author")).toEqual({
      port: 3000,
      host: "127.0.0.1",
      dev: true,
      help: false,
      spawn: [
        {
          name: "my_env",
          command: "python my_env.py --port {port}",
          cwd: "/work/author",
          watch: ["/work/author/src"],
          restart: "on-failure",
        },
      ],
    });
    expect(parseAppServerArgs(["--spawn", "./serve", "--spawn-name", "mine"], {}, "/w").spawn).toMatchObject([
      { name: "mine", command: "./serve", watch: [] },
    ]);
    expect(() => parseAppServerArgs(["--watch", "src"], {})).toThrow(
      "--watch and --spawn-name go with --spawn",
    );
    expect(() => parseAppServerArgs(["--spawn"], {})).toThrow(/--spawn needs a value/);
    expect(() => parseAppServerArgs(["--spawn", "x", "--spawn-name", "local"], {})).toThrow(
      /--spawn-name "local"/,
    );
  });

  it("refuses bad ports and unknown arguments", () => {
    expect(() => parseAppServerArgs([], { PORT: "http" })).toThrow(/PORT must be a port number/);
    expect(() => parseAppServerArgs(["--port", "70000"], {})).toThrow(/--port/);
    expect(() => parseAppServerArgs(["--port"], {})).toThrow(/--port/);
    expect(() => parseAppServerArgs(["--verbose"], {})).toThrow(/unknown argument "--verbose"/);
  });
});
