// The policy on a real node:http server (lib/app-server/node-http.ts): refusals as `{detail}` JSON,
// CONNECT, malformed HTTP and upgrades (which never reach a `request` listener), and a refused
// request with a body that does not hold the connection.
import { request } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { guardListener, guardServer } from "@/lib/app-server/node-http";
import { type Listening, listenHttp } from "@/lib/ors/host";
import { appPolicy, rawExchange } from "./helpers";

const policy = appPolicy();
let server: Listening;
let port = 0;
let served = 0;
const upgraded: string[] = [];

beforeAll(async () => {
  server = await listenHttp(
    guardListener(
      () => policy,
      (_req, res) => {
        served++;
        res.end("ok");
      },
    ),
    { host: "127.0.0.1", port: 0 },
  );
  guardServer(
    server.server,
    () => policy,
    (req, socket) => {
      upgraded.push(req.url ?? "");
      socket.end("HTTP/1.1 101 Switching Protocols\r\nconnection: upgrade\r\nupgrade: test\r\n\r\n");
    },
  );
  port = server.port;
});
afterAll(() => server.close(0));

function bodyOf(response: string): { detail: string } {
  return JSON.parse(response.slice(response.indexOf("\r\n\r\n") + 4));
}

describe("guarded node:http server", () => {
  it("answers TRACE and bad escapes with a JSON detail, and serves the rest", async () => {
    const t = await rawExchange(
      port,
      `TRACE / HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nConnection: close\r\n\r\n`,
    );
    expect(t).toMatch(/^HTTP\/1\.1 405 /);
    expect(bodyOf(t).detail).toMatch(/TRACE/);
    const esc = await fetch(`http://127.0.0.1:${port}/api/trajectories/%zz`);
    expect(esc.status).toBe(400);
    expect(((await esc.json()) as { detail: string }).detail).toMatch(/percent-escape/);
    const before = served;
    expect(await (await fetch(`http://127.0.0.1:${port}/trajectories`)).text()).toBe("ok");
    expect(served).toBe(before + 1);
  });

  it("refuses CONNECT: it is not a proxy", async () => {
    const r = await rawExchange(port, "CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n");
    expect(r).toMatch(/^HTTP\/1\.1 405 /);
    expect(bodyOf(r).detail).toMatch(/not a proxy/);
  });

  it("answers malformed HTTP with 400 and oversized headers with 431", async () => {
    const bad = await rawExchange(port, "GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nBad Header\r\n\r\n");
    expect(bad).toMatch(/^HTTP\/1\.1 400 /);
    expect(bodyOf(bad).detail).toMatch(/malformed HTTP request/);
    const big = await rawExchange(
      port,
      `GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: ${"a".repeat(100_000)}\r\n\r\n`,
    );
    expect(big).toMatch(/^HTTP\/1\.1 431 /);
    // The answer to a HEAD has no body, or the client would read it as the next answer.
    const head = await rawExchange(
      port,
      `HEAD / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: ${"a".repeat(20_000)}\r\n\r\n`,
    );
    expect(head).toMatch(/^HTTP\/1\.1 431 [\s\S]*\r\n\r\n$/);
  });

  it("applies the policy to upgrades before handing them on", async () => {
    const upgrade = (host: string, origin?: string) =>
      rawExchange(
        port,
        `GET /_next/hmr HTTP/1.1\r\nHost: ${host}\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n${
          origin ? `Origin: ${origin}\r\n` : ""
        }\r\n`,
      );
    const foreign = await upgrade("evil.example");
    expect(foreign).toMatch(/^HTTP\/1\.1 403 /);
    const crossOrigin = await upgrade(`127.0.0.1:${port}`, "http://evil.example");
    expect(crossOrigin).toMatch(/^HTTP\/1\.1 403 /);
    expect(upgraded).toEqual([]);
    const ok = await upgrade(`127.0.0.1:${port}`, `http://127.0.0.1:${port}`);
    expect(ok).toMatch(/^HTTP\/1\.1 101 /);
    expect(upgraded).toEqual(["/_next/hmr"]);
  });

  it("a refused request with a large body gets its answer and the connection closes", async () => {
    const res = await new Promise<{ status: number; connection: string | undefined; body: string }>(
      (resolve, reject) => {
        const req = request(
          {
            host: "127.0.0.1",
            port,
            method: "POST",
            path: "/api/servers",
            headers: {
              origin: "http://evil.example",
              "content-type": "text/plain",
              "content-length": "20000000",
            },
          },
          (r) => {
            let body = "";
            r.on("data", (d) => {
              body += d;
            });
            r.on("end", () => resolve({ status: r.statusCode!, connection: r.headers.connection, body }));
          },
        );
        req.on("error", reject);
        req.write("x".repeat(1000)); // the rest never comes
      },
    );
    expect(res.status).toBe(403);
    expect(res.connection).toBe("close");
    expect(JSON.parse(res.body).detail).toMatch(/not this app/);
  });

  it("a refused request with a small body is drained: the connection serves the next request", async () => {
    const out = await rawExchange(
      port,
      `POST /api/servers HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nOrigin: http://evil.example\r\nContent-Type: text/plain\r\nContent-Length: 5\r\n\r\nhello` +
        `GET /trajectories HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nConnection: close\r\n\r\n`,
    );
    const [refused, served] = out.split(/(?=HTTP\/1\.1 )/);
    expect(refused).toMatch(/^HTTP\/1\.1 403 /);
    expect(refused).not.toMatch(/connection: close/i);
    expect(served).toMatch(/^HTTP\/1\.1 200 [\s\S]*\r\n\r\nok$/);
  });
});
