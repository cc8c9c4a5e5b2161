// `npm run fuzz`: malformed requests against the production app (the server entry, as `npm start`
// runs it) on a loopback port: ORS paths (under /api/ors and at the root), the relay, the
// trajectories and servers APIs, pages; bad methods, bad JSON, wrong content types, bad escapes,
// huge and odd headers, oversized bodies, smuggling-shaped framing and random bytes. It counts the
// answers by status class, checks the server stays up, lists every 5xx, and stops the server it
// started (by its process group id). Exit code 1 on any 5xx or crash. Needs `npm run build` first.
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import { Agent, request } from "node:http";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { seededRandom } from "@/envs/shared/seeded-random";
import { ENV_ENDPOINTS, ROOT_ENDPOINTS } from "@/lib/ors/protocol/paths";
import { anyFreeLoopbackPort, processExists, spawnServer, treeCpuSeconds, treeRssBytes } from "./bench-proc";

const USAGE = `Usage: npm run fuzz -- [options]
  --requests <n>      requests to send (default 10000)
  --concurrency <n>   requests in flight (default 8)
  --seed <n>          PRNG seed, for a reproducible run (default: random, printed)
  --port <n>          port for the app (default: a free one)
  --next-dist-dir <d> the build directory (default $NEXT_DIST_DIR or .next)
  --json              print the figures as one JSON line too`;

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
/** The started app's access token (pages and APIs ask for it). */
const FUZZ_TOKEN = randomBytes(24).toString("base64url");
const AUTH = { authorization: `Bearer ${FUZZ_TOKEN}` };

/** Characters of random text, by code point (no lone surrogates). */
const TEXT_ALPHABET = Array.from(
  "abcdefghijklmnopqrstuvwxyz0123456789-_.~!$&'()*+,;=:@ %/?#[]\"<>\\^`{|}é✓🙂\u0000\u007f",
);

class Rand {
  constructor(readonly next: () => number) {}
  int(n: number): number {
    return Math.floor(this.next() * n);
  }
  pick<T>(xs: readonly T[]): T {
    return xs[this.int(xs.length)]!;
  }
  chance(p: number): boolean {
    return this.next() < p;
  }
  bytes(n: number): Buffer {
    const b = Buffer.alloc(n);
    for (let i = 0; i < n; i++) b[i] = this.int(256);
    return b;
  }
  text(n: number): string {
    let s = "";
    for (let i = 0; i < n; i++) s += TEXT_ALPHABET[this.int(TEXT_ALPHABET.length)];
    return s;
  }
}

// ---------------------------------------------------------------------------------------------
// What to send.

const ENVS = [
  "math",
  "guess",
  "paint",
  "tasktools",
  "bigoutput",
  "slow",
  "secret",
  "brokensetup",
  "bigsplit",
  "dice",
  "schemas",
];
const METHODS = [
  "GET",
  "POST",
  "PUT",
  "PATCH",
  "DELETE",
  "OPTIONS",
  "HEAD",
  "TRACE",
  "PROPFIND",
  "MKCOL",
  "PURGE",
];
const CONTENT_TYPES = [
  "application/json",
  "application/json; charset=utf-8",
  "text/plain",
  "text/plain;charset=UTF-8",
  "application/x-www-form-urlencoded",
  "multipart/form-data; boundary=----x",
  "application/jsonl",
  "text/event-stream",
  "application/octet-stream",
  "application/json; charset=nope",
  ";;;",
  "",
];

interface Fixture {
  sids: string[];
  trajectoryIds: string[];
  base: string;
  port: number;
}

interface FuzzRequest {
  kind: string;
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: Buffer;
  /** Sent over a raw socket, byte for byte (what node:http's client refuses to send). */
  raw?: Buffer;
  /** Raw only: close our side after sending. */
  halfClose?: boolean;
}

function envName(r: Rand): string {
  return r.pick([
    ...ENVS,
    "nope",
    encodeURIComponent(r.text(8)),
    "%2e%2e",
    "..",
    "a".repeat(300),
    "%F0%9F%99%82",
    "MATH",
  ]);
}

function orsPath(r: Rand): string {
  return r.chance(0.4) ? `/${r.pick(ROOT_ENDPOINTS)}` : `/${envName(r)}/${r.pick(ENV_ENDPOINTS)}`;
}

function pathFor(r: Rand, f: Fixture): { kind: string; path: string } {
  const id = () =>
    r.chance(0.7) && f.trajectoryIds.length ? r.pick(f.trajectoryIds) : encodeURIComponent(r.text(10));
  const sid = () => (r.chance(0.6) && f.sids.length ? r.pick(f.sids) : encodeURIComponent(r.text(12)));
  switch (r.int(6)) {
    case 0:
      return { kind: "ors /api/ors", path: `/api/ors${orsPath(r)}` };
    case 1:
      return { kind: "ors root", path: orsPath(r) };
    case 2:
      return {
        kind: "relay",
        path: `/api/servers/${r.chance(0.85) ? "local" : encodeURIComponent(r.text(6))}${
          r.chance(0.9) ? orsPath(r) : `/${encodeURIComponent(r.text(10))}`
        }`,
      };
    case 3:
      return {
        kind: "servers",
        path: r.pick([
          "/api/servers",
          `/api/servers/${r.pick(["local", "nope", encodeURIComponent(r.text(5))])}`,
        ]),
      };
    case 4:
      return {
        kind: "trajectories",
        path: r.pick([
          "/api/trajectories",
          `/api/trajectories?${r.pick(["limit=-1", "limit=abc", "offset=1e99", "sort=nope", "min_reward=x", "q=%zz", `q=${encodeURIComponent(r.text(50))}`, "order=sideways", "limit=100000000"])}`,
          `/api/trajectories/${id()}`,
          `/api/trajectories/${id()}/fork`,
          `/api/trajectories/${id()}/replay`,
          `/api/trajectories/${id()}/events`,
          `/api/trajectories/by-session/local/${sid()}`,
          `/api/trajectories/by-session/${encodeURIComponent(r.text(4))}/${sid()}`,
          `/api/trajectories/export?${r.pick(["", "server=local", "limit=zz", "end_reason=bogus"])}`,
          "/api/trajectories/import",
          "/api/trajectories/live",
          "/api/trajectories/live/events",
        ]),
      };
    default:
      return {
        kind: "pages",
        path: r.pick([
          "/",
          "/trajectories",
          `/trajectories/${id()}`,
          "/trajectories/compare?a=x&b=y",
          "/live",
          `/s/local/e/${envName(r)}`,
          `/s/${encodeURIComponent(r.text(5))}`,
          "/_next/static/nope.js",
          "/favicon.ico",
        ]),
      };
  }
}

/** Makes a path worse: bad escapes, dot segments, doubled slashes, junk queries, great length. */
function manglePath(r: Rand, p: string): string {
  switch (r.int(10)) {
    case 0:
      return `${p}${r.pick(["%", "%z", "%zz", "%E0%A4%A", "%C0%AF", "%00", "%ff%fe"])}`;
    case 1:
      return p.replace(/\/([^/]*)$/, `/${r.pick(["..", ".", "%2e%2e", "..%2f..%2f"])}/$1`);
    case 2:
      return `/${p}`;
    case 3:
      return `${p}${p.includes("?") ? "&" : "?"}${r.pick(["a=%zz", "=", "&&&", "token=x", "a[]=1&a[b]=2", "%", `x=${"y".repeat(4000)}`])}`;
    case 4:
      return `${p}/${"a".repeat(r.pick([1000, 8000, 20_000]))}`;
    case 5:
      return `${p}#frag`;
    default:
      return p;
  }
}

function jsonBody(r: Rand, f: Fixture): string {
  const valid = [
    {
      env_name: r.pick(ENVS),
      split: r.pick(["train", "test", "nope"]),
      index: r.pick([0, 1, -1, 1e12, 0.5]),
    },
    { env_name: "math", task_spec: { question: "1+1", answer: "2" } },
    { split: "train" },
    { split: "train", index: r.int(1000) },
    { split: "train", start: r.pick([0, -5, 1e9]), stop: r.pick([10, -1, 1e9, null]) },
    {
      name: r.pick(["submit", "guess", "dump", "nope", ""]),
      input: r.pick([{ answer: "4" }, {}, null, [], "x", { size: 1e9 }]),
    },
    { name: "x", input: {}, task_id: r.text(20) },
    {
      name: r.text(5),
      url: r.pick(["http://127.0.0.1:9", "http://169.254.169.254", "ftp://x", r.text(10), 5]),
    },
    { step: r.pick([0, 1, -1, 1e9, "a", null]) },
    { secrets: r.pick([{ k: "v" }, "x", [1], { k: 5 }]) },
    {},
    [],
    null,
    r.pick(f.sids.length ? f.sids : ["x"]),
  ];
  const v = r.pick(valid);
  return JSON.stringify(v);
}

function badJson(r: Rand): string {
  return r.pick([
    "{",
    "}",
    '{"a":',
    "[1,2",
    "nul",
    "{'a':1}",
    '{"a":1,}',
    "\u0000",
    "NaN",
    "1e999999",
    '"unterminated',
    `${"[".repeat(100_000)}${"]".repeat(100_000)}`,
    `${'{"a":'.repeat(50_000)}1${"}".repeat(50_000)}`,
    '{"__proto__":{"polluted":1}}',
    '{"constructor":{"prototype":{"x":1}}}',
    r.text(200),
    "\ufeff{}",
    '{"a":"\\ud800"}',
  ]);
}

function bodyFor(r: Rand, f: Fixture): Buffer | undefined {
  switch (r.int(9)) {
    case 0:
      return undefined;
    case 1:
      return Buffer.alloc(0);
    case 2:
    case 3:
    case 4:
      return Buffer.from(jsonBody(r, f));
    case 5:
    case 6:
      return Buffer.from(badJson(r));
    case 7:
      return r.bytes(r.pick([1, 16, 1000, 70_000]));
    default:
      // Large bodies: around the host's and the relay's limits (10 MiB, 16 MiB).
      return r.chance(0.03)
        ? Buffer.alloc(r.pick([10 * 1024 * 1024 + 1, 11 * 1024 * 1024]), 0x61)
        : Buffer.from(`{"pad":"${"x".repeat(r.pick([100_000, 1_000_000]))}"}`);
  }
}

function headersFor(r: Rand, f: Fixture): Record<string, string> {
  const h: Record<string, string> = {};
  if (r.chance(0.8)) h["content-type"] = r.pick(CONTENT_TYPES);
  if (r.chance(0.5))
    h["x-session-id"] = r.pick([
      ...(f.sids.length ? f.sids : ["x"]),
      "",
      "a".repeat(300),
      encodeURIComponent(r.text(10)),
      "00000000-0000-0000-0000-000000000000",
    ]);
  if (r.chance(0.3))
    h.accept = r.pick([
      "text/event-stream",
      "application/json",
      "*/*",
      "text/html",
      r.text(10).replace(/[^\x20-\x7e]/g, ""),
    ]);
  if (r.chance(0.15)) h["x-api-key"] = r.pick(["", "k", "a".repeat(2000)]);
  if (r.chance(0.15))
    h["x-secrets"] = r.pick(["{", '{"k":"v"}', "[]", "null", r.text(20).replace(/[^\x20-\x7e]/g, "")]);
  if (r.chance(0.1)) h["x-ors-relay-hops"] = r.pick(["-5", "-2000", "1e9", "NaN", "3", "abc"]);
  if (r.chance(0.2))
    h.origin = r.pick([f.base, "http://evil.example", "null", "http://localhost:1", "garbage"]);
  if (r.chance(0.2))
    h["sec-fetch-site"] = r.pick(["same-origin", "cross-site", "same-site", "none", "bogus"]);
  if (r.chance(0.05))
    h.host = r.pick(["evil.example", "", `localhost:${f.port}`, "[::1]", "a b", "127.0.0.1:99999"]);
  // Most requests carry the app's token (or its cookie), so they reach past the policy; some carry a
  // wrong one, a malformed one, or none.
  if (r.chance(0.85)) h.authorization = `Bearer ${FUZZ_TOKEN}`;
  else if (r.chance(0.3)) h.cookie = `ors_playground_token_${f.port}=${FUZZ_TOKEN}`;
  if (r.chance(0.05)) h.authorization = r.pick(["Bearer", "Bearer x", "Basic Zm9vOmJhcg==", ""]);
  if (r.chance(0.05)) h.cookie = r.pick(["ors_playground_token_default=%zz", "a=b; ; =c", "x".repeat(5000)]);
  if (r.chance(0.05)) h["x-big"] = "v".repeat(r.pick([8000, 15_000, 20_000, 70_000]));
  if (r.chance(0.03)) for (let i = 0; i < r.pick([50, 200]); i++) h[`x-many-${i}`] = String(i);
  if (r.chance(0.05)) h["content-encoding"] = r.pick(["gzip", "br", "bogus"]);
  if (r.chance(0.05)) h.range = r.pick(["bytes=0-1", "bytes=-1", "bytes=x"]);
  if (r.chance(0.03)) h.expect = "100-continue";
  return h;
}

/** Requests node:http's client will not send: bad methods, bad bytes, smuggling-shaped framing. */
function rawRequestFor(r: Rand, f: Fixture): FuzzRequest {
  const p = pathFor(r, f).path;
  const host = `127.0.0.1:${f.port}`;
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

function makeRequest(r: Rand, f: Fixture): FuzzRequest {
  if (r.chance(0.12)) return rawRequestFor(r, f);
  const { kind, path: p } = pathFor(r, f);
  const method = r.chance(0.75) ? r.pick(["GET", "POST", "POST", "DELETE"]) : r.pick(METHODS);
  // GET with a body now and then; HEAD never (node:http's client misreads the answer to one).
  let body: Buffer | undefined;
  if (method === "GET") body = r.chance(0.05) ? bodyFor(r, f) : undefined;
  else if (method !== "HEAD") body = bodyFor(r, f);
  const headers = headersFor(r, f);
  // node:http's client sends the body of a GET or DELETE without any length (the server then reads
  // it as the next request): say how long it is, or send it chunked.
  if (body) {
    if (r.chance(0.9)) headers["content-length"] = String(body.length);
    else headers["transfer-encoding"] = "chunked";
  }
  return { kind, method, path: r.chance(0.35) ? manglePath(r, p) : p, headers, body };
}

// ---------------------------------------------------------------------------------------------
// Sending.

interface Outcome {
  status: number | null;
  detail: string;
  error?: string;
}

const READ_LIMIT = 4096;
const guarded = new WeakSet<object>();
const TIMEOUT_MS = 15_000;

function send(agent: Agent | false, port: number, req: FuzzRequest): Promise<Outcome> {
  if (req.raw) return sendRaw(port, req.raw, req.halfClose ?? false);
  return new Promise((resolve) => {
    let settled = false;
    const done = (o: Outcome) => {
      if (settled) return;
      settled = true;
      resolve(o);
    };
    let r: ReturnType<typeof request>;
    try {
      r = request({
        host: "127.0.0.1",
        port,
        method: req.method,
        path: req.path,
        headers: { host: `127.0.0.1:${port}`, ...req.headers },
        agent,
        timeout: TIMEOUT_MS,
      });
    } catch (e) {
      done({ status: null, detail: "", error: `client refused to send: ${(e as Error).message}` });
      return;
    }
    // A server that answers early and closes (a refused 11 MB body) resets the rest of the upload:
    // that error may come after the request is done with its socket.
    r.on("socket", (sock) => {
      if (!guarded.has(sock)) {
        guarded.add(sock);
        sock.on("error", () => {});
      }
    });
    r.on("response", (res) => {
      let detail = "";
      res.on("data", (d: Buffer) => {
        if (detail.length < READ_LIMIT) detail += d.toString("utf8");
        else res.destroy(); // a stream (SSE feed): its status is what counts
      });
      res.on("end", () => done({ status: res.statusCode ?? null, detail }));
      res.on("close", () => done({ status: res.statusCode ?? null, detail }));
      res.on("error", () => done({ status: res.statusCode ?? null, detail }));
      setTimeout(() => res.destroy(), 5000).unref();
    });
    r.on("timeout", () => {
      r.destroy();
      done({ status: null, detail: "", error: "timeout" });
    });
    r.on("error", (e) =>
      done({ status: null, detail: "", error: (e as NodeJS.ErrnoException).code ?? e.message }),
    );
    if (req.body) r.end(req.body);
    else r.end();
  });
}

function sendRaw(port: number, bytes: Buffer, halfClose: boolean): Promise<Outcome> {
  return new Promise((resolve) => {
    const s = net.connect(port, "127.0.0.1", () => (halfClose ? s.end(bytes) : s.write(bytes)));
    let out = "";
    const finish = (error?: string) => {
      s.destroy();
      const m = /^HTTP\/1\.[01] (\d{3})/.exec(out);
      resolve({
        status: m ? Number(m[1]) : null,
        detail: out.slice(out.indexOf("\r\n\r\n") + 4, 600),
        error,
      });
    };
    s.on("data", (d: Buffer) => {
      out += d.toString("latin1");
      if (out.length > READ_LIMIT) finish();
    });
    s.on("end", () => finish());
    s.on("error", (e: NodeJS.ErrnoException) => finish(out ? undefined : (e.code ?? e.message)));
    s.setTimeout(TIMEOUT_MS, () => finish("timeout"));
  });
}

// ---------------------------------------------------------------------------------------------
// Main.

async function fixture(base: string, port: number): Promise<Fixture> {
  // A few live sessions and recorded trajectories, so requests reach past "unknown session".
  const sids: string[] = [];
  const json = { ...AUTH, "content-type": "application/json" };
  for (let i = 0; i < 4; i++) {
    const relay = `${base}/api/servers/local`;
    const { sid } = (await (
      await fetch(`${relay}/create_session`, { method: "POST", headers: AUTH })
    ).json()) as {
      sid: string;
    };
    await fetch(`${relay}/create`, {
      method: "POST",
      headers: { ...json, "x-session-id": sid },
      body: JSON.stringify({ env_name: i % 2 ? "guess" : "math", split: "train", index: i }),
    });
    await (
      await fetch(`${relay}/math/call`, {
        method: "POST",
        headers: { ...json, "x-session-id": sid },
        body: JSON.stringify({ name: "submit", input: { answer: "1" } }),
      })
    ).text();
    sids.push(sid);
  }
  let trajectoryIds: string[] = [];
  for (let i = 0; i < 50 && trajectoryIds.length === 0; i++) {
    const list = (await (await fetch(`${base}/api/trajectories`, { headers: AUTH })).json()) as {
      items: { id: string }[];
    };
    trajectoryIds = list.items.map((t) => t.id);
    if (!trajectoryIds.length) await new Promise((r) => setTimeout(r, 100));
  }
  return { sids, trajectoryIds, base, port };
}

function shortHeaders(h: Record<string, string>): string {
  return JSON.stringify(
    Object.fromEntries(
      Object.entries(h).map(([k, v]) => [k, v.length > 40 ? `${v.slice(0, 40)}…(${v.length})` : v]),
    ),
  );
}

function describeBody(b: Buffer | undefined): string {
  if (!b) return "(none)";
  const printable = /^[\x20-\x7e\t\r\n]*$/.test(b.subarray(0, 200).toString("latin1"));
  if (b.length > 200 || !printable)
    return `<${b.length} bytes${printable ? `: ${b.subarray(0, 80).toString()}…` : ""}>`;
  return b.toString();
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      requests: { type: "string", default: "10000" },
      concurrency: { type: "string", default: "8" },
      seed: { type: "string" },
      port: { type: "string" },
      "next-dist-dir": { type: "string" },
      json: { type: "boolean", default: false },
      help: { type: "boolean", short: "h", default: false },
    },
  });
  if (values.help) {
    console.log(USAGE);
    return;
  }
  const total = Number(values.requests);
  const concurrency = Number(values.concurrency);
  const seed = values.seed ? Number(values.seed) : randomBytes(4).readUInt32LE(0);
  if (!Number.isInteger(total) || total < 1 || !Number.isInteger(concurrency) || concurrency < 1)
    throw new Error(`--requests and --concurrency must be positive integers\n${USAGE}`);
  const port = values.port ? Number(values.port) : await anyFreeLoopbackPort();
  // A server already on that port would answer the health check in place of ours.
  await new Promise<void>((resolve, reject) => {
    const probe = net.createServer();
    probe.once("error", () => reject(new Error(`port ${port} is in use`)));
    probe.listen(port, "127.0.0.1", () => probe.close(() => resolve()));
  });
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "ors-fuzz-"));

  const server = await spawnServer({
    label: "fuzz-app",
    command: process.execPath,
    args: ["--import", "tsx", "lib/app-server/main.ts", "--port", String(port), "--host", "127.0.0.1"],
    cwd: ROOT,
    env: {
      NODE_ENV: "production",
      NEXT_DIST_DIR: values["next-dist-dir"] ?? process.env.NEXT_DIST_DIR ?? ".next",
      PLAYGROUND_DATA_DIR: dataDir,
      ORS_SERVERS: "",
      ORS_API_KEYS: "",
      PLAYGROUND_TOKEN: FUZZ_TOKEN,
      // Short-lived sessions and calls keep the run's memory flat; limits are part of what is fuzzed.
      ORS_CALL_TIMEOUT_MS: "5000",
    },
    baseUrl: `http://127.0.0.1:${port}`,
    healthUrl: `http://127.0.0.1:${port}/api/ors/health`,
    timeoutMs: 120_000,
  });
  console.log(
    `started the app (pid ${server.pid}) at ${server.baseUrl}; log ${server.logFile}; seed ${seed}`,
  );
  // Whatever happens to this script, the server it started goes with it.
  const stopOnCrash = (e: unknown) => {
    console.error("fuzz: failed:", e);
    void server.stop().finally(() => process.exit(2));
  };
  process.once("uncaughtException", stopOnCrash);
  process.once("SIGINT", () => stopOnCrash("SIGINT"));

  const counts: Record<string, number> = { "1xx": 0, "2xx": 0, "3xx": 0, "4xx": 0, "5xx": 0, "no answer": 0 };
  const byKind = new Map<string, Record<string, number>>();
  const noAnswer = new Map<string, number>();
  const fives: { req: FuzzRequest; out: Outcome }[] = [];
  const noAnswerSamples: { req: FuzzRequest; out: Outcome }[] = [];
  let crashed = false;
  let healthFailures = 0;
  const agent = new Agent({ keepAlive: true, maxSockets: concurrency });
  const started = Date.now();
  const cpu0 = treeCpuSeconds(server.pid);
  const rss0 = treeRssBytes(server.pid);
  let peakRss = rss0;

  try {
    const f = await fixture(server.baseUrl, port);
    const rand = new Rand(seededRandom(seed));
    let sent = 0;
    let done = 0;
    let retried = 0;
    const worker = async () => {
      while (sent < total && !crashed) {
        const req = makeRequest(rand, f);
        sent++;
        let out = await send(agent, port, req);
        // A reset on a reused keep-alive connection (the server closed it after an earlier answer,
        // e.g. a refused oversized upload) says nothing about this request: send it once more on a
        // connection of its own.
        if (out.status === null && !req.raw) {
          retried++;
          out = await send(false, port, req);
        }
        done++;
        const cls = out.status === null ? "no answer" : `${String(out.status)[0]}xx`;
        counts[cls] = (counts[cls] ?? 0) + 1;
        const k = byKind.get(req.kind) ?? {};
        k[cls] = (k[cls] ?? 0) + 1;
        byKind.set(req.kind, k);
        if (out.status === null) {
          const why = `${req.kind}: ${out.error ?? "closed"}`;
          noAnswer.set(why, (noAnswer.get(why) ?? 0) + 1);
          if (noAnswerSamples.length < 15) noAnswerSamples.push({ req, out });
        }
        if (out.status !== null && out.status >= 500) fives.push({ req, out });
        if (done % 500 === 0) {
          if (!processExists(server.pid)) {
            crashed = true;
            break;
          }
          peakRss = Math.max(peakRss, treeRssBytes(server.pid));
          const ok = await fetch(`${server.baseUrl}/api/ors/health`, {
            signal: AbortSignal.timeout(10_000),
          }).then(
            (r) => r.status === 200,
            () => false,
          );
          if (!ok) healthFailures++;
          process.stdout.write(`\r  ${done} / ${total} answered`);
        }
      }
    };
    await Promise.all(Array.from({ length: concurrency }, worker));
    process.stdout.write("\n");
    if (!processExists(server.pid)) crashed = true;
    const alive =
      !crashed &&
      (await fetch(`${server.baseUrl}/`, { headers: AUTH, signal: AbortSignal.timeout(20_000) }).then(
        (r) => r.status === 200,
        () => false,
      )) &&
      (await fetch(`${server.baseUrl}/api/ors/health`).then(
        (r) => r.status === 200,
        () => false,
      ));
    const seconds = (Date.now() - started) / 1000;
    const cpu = treeCpuSeconds(server.pid) - cpu0;
    const rssEnd = treeRssBytes(server.pid);
    const mb = (b: number) => `${Math.round(b / 1024 / 1024)} MB`;

    console.log(
      `\nFuzzing the app's server entry (next start) — ${total} requests, ${concurrency} in flight, seed ${seed}`,
    );
    console.log(`  duration         ${seconds.toFixed(1)} s (${Math.round(total / seconds)} requests/s)`);
    console.log(
      `  answers          ${Object.entries(counts)
        .map(([k, v]) => `${k} ${v}`)
        .join(", ")}`,
    );
    console.log("  by kind:");
    for (const [kind, c] of [...byKind.entries()].sort())
      console.log(
        `    ${kind.padEnd(34)} ${Object.entries(c)
          .map(([k, v]) => `${k} ${v}`)
          .join(", ")}`,
      );
    console.log(`  resent on a new connection after a reset of a reused one: ${retried}`);
    if (noAnswer.size) {
      console.log("  no answer (connection closed or reset without a status line):");
      for (const [why, n] of [...noAnswer.entries()].sort((a, b) => b[1] - a[1]))
        console.log(`    ${n}× ${why}`);
      console.log("  some of them:");
      for (const { req, out } of noAnswerSamples)
        console.log(
          `    ${out.error ?? "closed"}: ${req.method} ${req.path.slice(0, 100)} body ${describeBody(req.raw ?? req.body).slice(0, 100)} headers ${shortHeaders(req.headers)}`,
        );
    }
    console.log(
      `  server           ${crashed ? "CRASHED" : "up"}; health checks failed: ${healthFailures}; answers / after the run: ${alive ? "yes" : "NO"}`,
    );
    console.log(
      `  server CPU       ${cpu.toFixed(1)} s; RSS ${mb(rss0)} before, ${mb(peakRss)} peak (sampled), ${mb(rssEnd)} after`,
    );
    console.log(`  5xx              ${fives.length}`);
    // Grouped by status, kind of path and answer, with one example each; then the first few in full.
    const groups = new Map<string, { n: number; example: { req: FuzzRequest; out: Outcome } }>();
    for (const x of fives) {
      const key = `${x.out.status} ${x.req.kind}: ${x.out.detail.replace(/\d+/g, "N").slice(0, 90) || "(empty answer)"}`;
      const g = groups.get(key);
      if (g) g.n++;
      else groups.set(key, { n: 1, example: x });
    }
    for (const [key, g] of groups) console.log(`    ${g.n}× ${key}`);
    for (const { req, out } of fives.slice(0, 30))
      console.log(
        `    ${out.status} ${req.method} ${req.path.slice(0, 160)}\n      kind: ${req.kind}; headers: ${shortHeaders(req.headers)}\n      body: ${describeBody(req.raw ?? req.body).slice(0, 300)}\n      answer: ${out.detail.slice(0, 300).replace(/\s+/g, " ")}`,
      );
    if (values.json)
      console.log(
        JSON.stringify({
          seed,
          total,
          counts,
          fives: fives.length,
          crashed,
          healthFailures,
          alive,
          seconds,
          cpu,
        }),
      );
    if (fives.length || crashed || !alive) process.exitCode = 1;
  } finally {
    agent.destroy();
    await server.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((e) => {
  console.error(e instanceof Error ? e.message : e);
  process.exit(1);
});
