// The pinned fetch (lib/security/pinned-fetch.ts) that the relay and the registry's checks share:
// it connects to the addresses the address policy checked, whatever the URL's name resolves to now,
// and keeps the name in `Host`.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPinnedFetch, pinnedLookup } from "@/lib/security/pinned-fetch";

let server: Server;
let port = 0;
const hosts: string[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    hosts.push(req.headers.host ?? "");
    res.setHeader("content-type", "application/json");
    res.end('{"status":"ok"}');
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = (server.address() as AddressInfo).port;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

describe("createPinnedFetch", () => {
  it("connects to the checked address, not to what the name resolves to, and keeps the name as Host", async () => {
    const pinned = createPinnedFetch({ maxPools: 2 });
    try {
      // `.invalid` never resolves (RFC 6761): only the pinned address can make this work.
      const res = await pinned(`http://ors.invalid:${port}/health`, {}, ["127.0.0.1"]);
      expect(await res.json()).toEqual({ status: "ok" });
      expect(hosts.at(-1)).toBe(`ors.invalid:${port}`);
      await expect(pinned(`http://ors.invalid:${port}/health`, {}, [])).rejects.toThrow(/no checked address/);
    } finally {
      await pinned.close();
    }
  });

  it("answers lookups with the checked addresses of the family asked for", () => {
    const lookup = pinnedLookup(["127.0.0.1", "::1"]);
    const answers: unknown[] = [];
    lookup("x.invalid", { family: 6 }, (err, address, family) => answers.push([err, address, family]));
    lookup("x.invalid", { all: true } as never, (err, address) => answers.push([err, address]));
    expect(answers).toEqual([
      [null, "::1", 6],
      [
        null,
        [
          { address: "127.0.0.1", family: 4 },
          { address: "::1", family: 6 },
        ],
      ],
    ]);
    const v4only = pinnedLookup(["127.0.0.1"]);
    v4only("x.invalid", { family: 6 }, (err) => expect(err?.code).toBe("ENOTFOUND"));
  });
});
