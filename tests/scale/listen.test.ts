// Where the scaled-out host's nginx listens: `--host ::` (every interface) on IPv6 and IPv4 alike,
// as node does for the app and `serve` (nginx alone would bind IPv6 only); a given address, on it.
import { afterAll, describe, expect, it } from "vitest";
import { listenDirective } from "@/lib/scale/nginx-config";
import { nginxBinary } from "../support/nginx";
import { type ScaledHost, startScaled } from "./helpers";

const nginx = await nginxBinary("serve --workers --host ::");

describe("the nginx listen line of --host", () => {
  it("is both families for ::, however written, and the address itself otherwise", () => {
    const on = (host: string) => listenDirective({ host, port: 8080 });
    expect(on("::")).toBe("[::]:8080 ipv6only=off");
    expect(on("[::]")).toBe("[::]:8080 ipv6only=off");
    expect(on("0:0::0")).toBe("[::]:8080 ipv6only=off");
    expect(on("::1")).toBe("[::1]:8080");
    expect(on("[fe80::1]")).toBe("[fe80::1]:8080");
    expect(on("127.0.0.1")).toBe("127.0.0.1:8080");
    expect(on("0.0.0.0")).toBe("0.0.0.0:8080");
  });
});

describe.skipIf(!nginx.ok)("serve --workers 1 --host ::", { timeout: 120_000 }, () => {
  let host: ScaledHost | undefined;
  afterAll(async () => {
    await host?.proc.stop();
  });

  it("answers on IPv4 and on IPv6", async () => {
    if (!nginx.ok) return;
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
