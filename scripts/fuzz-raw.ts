// The raw requests of `npm run fuzz`: bytes node:http's client will not send (bad methods and
// versions, bad header lines, smuggling-shaped framing, random noise), written to a socket as they are.
import type { FuzzRequest, Rand } from "./fuzz-rand";

/** A request to `p` on 127.0.0.1:`port` that node:http's client will not send: bad methods, bad bytes,
 *  smuggling-shaped framing. */
export function rawRequest(r: Rand, port: number, p: string): FuzzRequest {
  const host = `127.0.0.1:${port}`;
  const shapes: [string, () => Buffer][] = [
    ["random bytes", () => r.bytes(r.pick([1, 10, 100, 5000]))],
    [
      "unknown method",
      () => Buffer.from(`${r.pick(["FOO", "get", "G3T", "BREW"])} ${p} HTTP/1.1\r\nHost: ${host}\r\n\r\n`),
    ],
    ["CONNECT", () => Buffer.from(`CONNECT 127.0.0.1:22 HTTP/1.1\r\nHost: 127.0.0.1:22\r\n\r\n`)],
    ["absolute target", () => Buffer.from(`GET http://evil.example${p} HTTP/1.1\r\nHost: ${host}\r\n\r\n`)],
    ["asterisk target", () => Buffer.from(`OPTIONS * HTTP/1.1\r\nHost: ${host}\r\n\r\n`)],
    ["HTTP/1.0 without Host", () => Buffer.from(`GET ${p} HTTP/1.0\r\n\r\n`)],
    ["HTTP/1.1 without Host", () => Buffer.from(`GET ${p} HTTP/1.1\r\n\r\n`)],
    ["two Hosts", () => Buffer.from(`GET ${p} HTTP/1.1\r\nHost: ${host}\r\nHost: evil.example\r\n\r\n`)],
    [
      "control bytes in the path",
      () => Buffer.from(`GET /api/ors/\x01\x7f HTTP/1.1\r\nHost: ${host}\r\n\r\n`, "latin1"),
    ],
    ["non-ASCII path", () => Buffer.from(`GET /s/é🙂 HTTP/1.1\r\nHost: ${host}\r\n\r\n`)],
    ["bad header line", () => Buffer.from(`GET ${p} HTTP/1.1\r\nHost: ${host}\r\nNo Colon Here\r\n\r\n`)],
    [
      "CL and TE",
      () =>
        Buffer.from(
          `POST ${p} HTTP/1.1\r\nHost: ${host}\r\nContent-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n`,
        ),
    ],
    [
      "two Content-Lengths",
      () =>
        Buffer.from(
          `POST ${p} HTTP/1.1\r\nHost: ${host}\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\n{}`,
        ),
    ],
    [
      "bad chunk",
      () =>
        Buffer.from(
          `POST ${p} HTTP/1.1\r\nHost: ${host}\r\nTransfer-Encoding: chunked\r\nContent-Type: application/json\r\n\r\nzz\r\n{}\r\n0\r\n\r\n`,
        ),
    ],
    [
      "short body",
      () =>
        Buffer.from(
          `POST ${p} HTTP/1.1\r\nHost: ${host}\r\nContent-Type: application/json\r\nContent-Length: 100\r\nConnection: close\r\n\r\n{"a":1}`,
        ),
    ],
    [
      "negative length",
      () => Buffer.from(`POST ${p} HTTP/1.1\r\nHost: ${host}\r\nContent-Length: -1\r\n\r\n`),
    ],
    ["bad version", () => Buffer.from(`GET ${p} HTTP/9.9\r\nHost: ${host}\r\n\r\n`)],
    ["HTTP/0.9", () => Buffer.from(`GET ${p}\r\n\r\n`)],
    [
      "upgrade",
      () =>
        Buffer.from(
          `GET ${p} HTTP/1.1\r\nHost: ${host}\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n\r\n`,
        ),
    ],
    ["huge request line", () => Buffer.from(`GET /${"a".repeat(100_000)} HTTP/1.1\r\nHost: ${host}\r\n\r\n`)],
    [
      "obs-fold header",
      () => Buffer.from(`GET ${p} HTTP/1.1\r\nHost: ${host}\r\nX-A: 1\r\n  folded\r\n\r\n`),
    ],
  ];
  const [kind, make] = r.pick(shapes);
  let raw = make();
  // A client that gives up half-way (or sends noise) closes its side; the others wait for the
  // answer, as a real client would (a half-closed request is dropped by node:http unanswered).
  const halfClose = kind === "random bytes" || kind === "short body";
  const text = raw.toString("latin1");
  if (!halfClose && !/\r\nConnection:/i.test(text) && text.includes("\r\n\r\n"))
    raw = Buffer.from(text.replace("\r\n\r\n", "\r\nConnection: close\r\n\r\n"), "latin1");
  return { kind: `raw: ${kind}`, method: "(raw)", path: p, headers: {}, raw, halfClose };
}
