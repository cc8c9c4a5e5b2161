// Where the scaled-out host's nginx listens: `--host ::` (every interface) on IPv6 and IPv4 alike,
// as node does for the app and `serve` (nginx alone would bind IPv6 only); a given address, on it.
import { afterAll, describe, expect, it } from "vitest";
import { listenDirective } from "@/lib/scale/nginx-config";
import { nginxBinary } from "../support/nginx";
import { type ScaledHost, startScaled } from "./helpers";

const nginx = await nginxBinary("serve --workers --host ::");

describe("the nginx listen line of --host", () => {
  // Both families for ::, however written, and the address itself otherwise.
  it.each([
    ["::", "[::]:8080 ipv6only=off"],
    ["[::]", "[::]:8080 ipv6only=off"],
    ["0:0::0", "[::]:8080 ipv6only=off"],
    ["::1", "[::1]:8080"],
    ["[fe80::1]", "[fe80::1]:8080"],
    ["127.0.0.1", "127.0.0.1:8080"],
    ["0.0.0.0", "0.0.0.0:8080"],
  ])("listens on %s with %s", (host, line) => {
    expect(listenDirective({ host, port: 8080 })).toBe(line);
  });
});

describe("serve --workers 1 --host ::", { timeout: 120_000 }, () => {
  let host: ScaledHost | undefined;
  afterAll(async () => {
    await host?.proc.stop();
  });

  it("answers on IPv4 and on IPv6", async () => {
    host = await startScaled(nginx.path, 1, { args: ["--host", "::"] });
    const port = new URL(host.url).port;
    for (const base of [`http://127.0.0.1:${port}`, `http://[::1]:${port}`]) {
      const res = await fetch(`${base}/health`);
      expect({ base, status: res.status, body: await res.json() }).toEqual({
        base,
        status: 200,
        body: { status: "ok" },
      });
    }
  });
});
