// The relay's address policy: loopback for user servers, never link-local or metadata, resolved
// host names checked too; and the registry's servers.json (atomic writes, config entries).
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import {
  checkServerUrl,
  createServerRegistry,
  isLinkLocalAddress,
  isLoopbackAddress,
  isMetadataAddress,
  parseServersEnv,
} from "@/lib/registry";

const resolveTo =
  (table: Record<string, string[]>) =>
  async (host: string): Promise<string[]> => {
    const a = table[host];
    if (!a) throw Object.assign(new Error("not found"), { code: "ENOTFOUND" });
    return a;
  };

// Each class of address: a name, its test, the addresses in it and addresses that are not.
const ADDRESS_CLASSES: [string, (a: string) => boolean, string[], string[]][] = [
  [
    "loopback",
    isLoopbackAddress,
    [
      "127.0.0.1",
      "127.8.9.10",
      "::1",
      "0:0:0:0:0:0:0:1",
      "::ffff:127.0.0.1",
      "::ffff:7f00:1",
      "0:0:0:0:0:ffff:127.1.2.3",
      "0.0.0.0",
      "::",
      "0:0:0:0:0:0:0:0",
    ],
    ["10.0.0.1", "128.0.0.1", "::2", "fe80::1", "192.168.1.1", "::ffff:8000:1", "localhost", ""],
  ],
  [
    "link-local",
    isLinkLocalAddress,
    [
      "169.254.0.1",
      "169.254.169.254",
      "fe80::1",
      "FE80::abcd",
      "febf::1",
      "fe80::1%eth0",
      "fe80:0:0:0:0:0:0:1",
      "::ffff:169.254.1.1",
      "::ffff:a9fe:101",
      "0:0:0:0:0:ffff:169.254.1.1",
      "::169.254.1.1",
      "64:ff9b::169.254.1.1",
    ],
    ["169.253.0.1", "fec0::1", "127.0.0.1", "::ffff:169.253.0.1", "not an address"],
  ],
  [
    "metadata",
    isMetadataAddress,
    [
      "169.254.169.254",
      "fd00:ec2::254",
      "fd00:ec2:0:0:0:0:0:254",
      "FD00:EC2::254",
      "::ffff:169.254.169.254",
      "::ffff:a9fe:a9fe",
      "0:0:0:0:0:ffff:a9fe:a9fe",
      "100.100.100.200",
      "::ffff:100.100.100.200",
    ],
    ["fd00:ec2::253", "169.254.169.253"],
  ],
];

describe("address classes", () => {
  for (const [name, isIn, members, others] of ADDRESS_CLASSES) {
    it.each(members)(`%j is ${name}`, (a) => expect(isIn(a)).toBe(true));
    it.each(others)(`%j is not ${name}`, (a) => expect(isIn(a)).toBe(false));
  }
});

describe("checkServerUrl", () => {
  const resolve = resolveTo({
    "py.local.test": ["127.0.0.1"],
    "evil.test": ["169.254.169.254"],
    "sneaky.test": ["127.0.0.1", "fe80::1"],
    "remote.test": ["203.0.113.5"],
  });
  it("allows loopback for user servers, by address or by name", async () => {
    for (const u of [
      "http://127.0.0.1:8080",
      "http://[::1]:8080/",
      "http://localhost:8080",
      "http://py.local.test",
    ])
      expect(await checkServerUrl(u, { loopbackOnly: true, resolve }), u).toMatchObject({ ok: true });
  });
  it("refuses remote user servers unless allowed; resolves names to check them", async () => {
    const far = await checkServerUrl("http://remote.test:8080", { loopbackOnly: true, resolve });
    expect(far).toMatchObject({ ok: false, reason: expect.stringMatching(/not a loopback address/) });
    expect(await checkServerUrl("http://remote.test:8080", { loopbackOnly: false, resolve })).toMatchObject({
      ok: true,
    });
    expect(await checkServerUrl("http://nowhere.test", { loopbackOnly: false, resolve })).toMatchObject({
      ok: false,
      reason: expect.stringMatching(/cannot resolve nowhere\.test \(ENOTFOUND\)/),
    });
  });
  it("always refuses link-local and metadata, by literal, by name, or by what a name resolves to", async () => {
    const cases: Array<[string, RegExp]> = [
      ["http://169.254.169.254/latest/meta-data", /metadata/],
      ["http://[fd00:ec2::254]/", /metadata/],
      ["http://metadata.google.internal/", /metadata host/],
      ["http://METADATA.GOOGLE.INTERNAL./", /metadata host/],
      ["http://169.254.3.4:8080", /link-local/],
      ["http://[::ffff:a9fe:a9fe]/", /metadata/],
      ["http://[0:0:0:0:0:ffff:169.254.169.254]/", /metadata/],
      ["http://[fe80::abcd]:8080", /link-local/],
      ["http://[64:ff9b::169.254.169.254]/", /link-local|metadata/],
      ["http://0xa9fea9fe/", /metadata/], // WHATWG URLs read hex, octal and short IPv4 forms
      ["http://169.254.43518/", /metadata/],
      ["http://0251.0376.0251.0376/", /metadata/],
      ["http://[fe80::1%25eth0]:8080", /not a URL|link-local/], // zone ids are not valid URLs
      ["http://evil.test", /evil\.test resolves to .*metadata/],
      ["http://sneaky.test", /sneaky\.test resolves to .*link-local/],
    ];
    for (const [u, why] of cases) {
      const v = await checkServerUrl(u, { loopbackOnly: false, resolve });
      expect(v, u).toMatchObject({ ok: false, reason: expect.stringMatching(why) });
    }
  });
  it("refuses other schemes and credentials in the URL", async () => {
    expect(await checkServerUrl("file:///etc/passwd", { loopbackOnly: false })).toMatchObject({ ok: false });
    expect(await checkServerUrl("http://u:p@127.0.0.1/", { loopbackOnly: false })).toMatchObject({
      ok: false,
      reason: expect.stringMatching(/credentials/),
    });
    expect(await checkServerUrl("not a url", { loopbackOnly: false })).toMatchObject({ ok: false });
  });
});

describe("registry file", () => {
  let dir = "";
  afterEach(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it("reads config servers from servers.json, writes user servers atomically and keeps config", async () => {
    dir = mkdtempSync(path.join(tmpdir(), "servers-"));
    writeFileSync(
      path.join(dir, "servers.json"),
      JSON.stringify({ servers: [{ name: "cfg", url: "http://10.0.0.5:8080/", apiKey: "cfg-key" }] }),
    );
    const registry = createServerRegistry({
      dataDir: dir,
      env: { ORS_SERVERS: "py=http://127.0.0.1:8080/, bad name=http://x, nourl" },
      localHandler: () => async () => new Response(null),
    });
    const list = await registry.list();
    expect(list.map((s) => [s.name, s.source, s.url])).toEqual([
      ["local", "builtin", "/api/ors"],
      ["py", "env", "http://127.0.0.1:8080"],
      ["cfg", "config", "http://10.0.0.5:8080"],
    ]);
    expect(list[2]!.apiKey).toBe("cfg-key");
    // Configured servers may be remote; the address check passes for them.
    expect(await registry.checkAddress(list[2]!)).toMatchObject({ ok: true });

    await registry.add({ name: "mine", url: "http://127.0.0.1:9000" });
    await Promise.all([
      registry.add({ name: "a1", url: "http://127.0.0.1:9001" }),
      registry.add({ name: "a2", url: "http://127.0.0.1:9002" }),
    ]);
    const file = JSON.parse(readFileSync(path.join(dir, "servers.json"), "utf8"));
    expect(file.servers).toEqual([{ name: "cfg", url: "http://10.0.0.5:8080/", apiKey: "cfg-key" }]);
    expect(file.userServers.map((s: { name: string }) => s.name)).toEqual(["mine", "a1", "a2"]);
    expect(readdirSync(dir).filter((f) => f.endsWith(".tmp"))).toEqual([]);
    await expect(registry.add({ name: "cfg", url: "http://127.0.0.1:1" })).rejects.toMatchObject({
      status: 409,
    });
    await expect(registry.remove("cfg")).rejects.toMatchObject({ status: 403 });
    await registry.remove("a1");
    expect((await registry.list()).map((s) => s.name)).toEqual(["local", "py", "cfg", "mine", "a2"]);
  });

  it("allows remote user servers only with PLAYGROUND_ALLOW_REMOTE_SERVERS=1, never metadata", async () => {
    dir = mkdtempSync(path.join(tmpdir(), "servers-"));
    const registry = createServerRegistry({
      dataDir: dir,
      env: { PLAYGROUND_ALLOW_REMOTE_SERVERS: "1" },
      localHandler: () => async () => new Response(null),
      resolve: resolveTo({ "far.test": ["198.51.100.7"] }),
    });
    expect(registry.allowRemote).toBe(true);
    await expect(registry.add({ name: "far", url: "http://far.test:8080" })).resolves.toMatchObject({
      source: "user",
    });
    await expect(registry.add({ name: "meta", url: "http://169.254.169.254" })).rejects.toMatchObject({
      status: 403,
    });
  });

  it("parses ORS_SERVERS leniently", () => {
    expect(parseServersEnv(" a=http://127.0.0.1:1 ,b=https://h.test/x/ ,")).toEqual([
      { name: "a", url: "http://127.0.0.1:1" },
      { name: "b", url: "https://h.test/x" },
    ]);
  });
});
