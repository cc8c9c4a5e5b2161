// What `npm run fuzz` sends: seeded random requests, most of them malformed, to every surface of the
// app (the ORS host under /api/ors and at the root, the relay, the playground's APIs, pages) or of the
// scaled-out host (its ORS paths behind nginx): bad methods and paths, bad and deep JSON, wrong
// content types, odd headers, bodies around the size limits, and raw bytes node:http will not send.
import { randomBytes } from "node:crypto";
import { ENV_ENDPOINTS, ROOT_ENDPOINTS } from "@/lib/ors/protocol/paths";
import type { FuzzRequest, Rand } from "./fuzz-rand";
import { rawRequest } from "./fuzz-raw";

/** The started app's access token (pages and APIs ask for it). */
export const FUZZ_TOKEN = randomBytes(24).toString("base64url");

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

export interface Fixture {
  /** `app`: the playground (its host, relay, APIs and pages); `host`: an ORS host alone (serve --workers). */
  surface: "app" | "host";
  sids: string[];
  trajectoryIds: string[];
  runIds: string[];
  base: string;
  port: number;
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

/** A known id most of the time, else random text (NUL and all: `%00` reaches the store as one). */
function idFrom(r: Rand, known: readonly string[]): string {
  return r.chance(0.7) && known.length ? r.pick(known) : encodeURIComponent(r.text(10));
}

/** The runs API (docs/runs.md "HTTP API"). */
function runsPath(r: Rand, f: Fixture): string {
  const run = () => idFrom(r, f.runIds);
  return r.pick([
    "/api/runs",
    `/api/runs?${r.pick(["status=bogus", "limit=0", "limit=1e9", "offset=-1", "server=%00", `env=${encodeURIComponent(r.text(8))}`])}`,
    `/api/runs/${run()}`,
    `/api/runs/${run()}/cancel`,
    `/api/runs/${run()}/resume`,
    `/api/runs/${run()}/events`,
    `/api/runs/${run()}/export?format=${r.pick(["atif", "chat-jsonl", "jsonl", "html", "bogus", "%00"])}`,
    `/api/runs/compare?a=${run()}&b=${run()}`,
    "/api/runs/compare",
  ]);
}

/** The other APIs of one trajectory and of the server list: models, the protocol log, golden, exports. */
function episodeApiPath(r: Rand, f: Fixture): { kind: string; path: string } {
  const id = () => idFrom(r, f.trajectoryIds);
  return r.pick([
    { kind: "models", path: "/api/models" },
    { kind: "models", path: `/api/trajectories/${id()}/model-turn` },
    {
      kind: "exchanges",
      path: `/api/trajectories/${id()}/exchanges?after=${r.pick(["0", "3", "-1", "x", "1e400", "%00"])}`,
    },
    { kind: "golden", path: `/api/trajectories/${id()}/golden` },
    {
      kind: "playwright",
      path: `/api/trajectories/${id()}/playwright?${r.pick(["", "ignore=metadata", "ignore=%zz", "mask=(", "reward_tolerance=x", "normalize_whitespace=2"])}`,
    },
    { kind: "check", path: `/api/servers/${r.pick(["local", "nope", "%00"])}/check` },
    { kind: "exports", path: `/api/trajectories/${id()}/export?format=${r.pick(["html", "json", "%00"])}` },
    {
      kind: "exports",
      path: `/api/trajectories/export?format=${r.pick(["html", "atif", "chat-jsonl", "jsonl"])}&${r.pick(["limit=1", "limit=0", "server=%00", "q=%00", "env=math"])}`,
    },
  ]);
}

function pathFor(r: Rand, f: Fixture): { kind: string; path: string } {
  const id = () => idFrom(r, f.trajectoryIds);
  const sid = () => (r.chance(0.6) && f.sids.length ? r.pick(f.sids) : encodeURIComponent(r.text(12)));
  if (f.surface === "host") return { kind: "ors (scaled-out host)", path: orsPath(r) };
  switch (r.int(9)) {
    case 6:
      return { kind: "runs", path: runsPath(r, f) };
    case 7:
    case 8:
      return episodeApiPath(r, f);
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
    // The runs API: a run to start (one small task), and shapes it must refuse.
    {
      server: r.pick(["local", "nope", "lo\u0000cal"]),
      env: r.pick(["math", "guess", "nope"]),
      split: "train",
      tasks: r.pick([[0], "0-1", { sample: 1 }, [-1], "zz", []]),
      repeats: r.pick([1, 0, 101]),
      timeoutMs: r.pick([5000, 1, 1e12]),
      policy: r.pick([
        { kind: "random", seed: 1 },
        { kind: "model" },
        { kind: "script", module: "/etc/passwd" },
        { kind: "nope" },
        null,
      ]),
    },
    {
      endpoint: r.pick(["fake", "", "x".repeat(100)]),
      model: r.pick(["m", ""]),
      temperature: r.pick([0, 3, -1]),
    },
    { golden: r.pick([true, false, "yes", null]) },
    // The check API: its options (a quality run plays episodes; the check stops when we go away).
    {
      env: r.pick(["math", "nope", ""]),
      task: r.pick(["train:0", "train", ":1", "x:y"]),
      tool: r.pick(["submit", ""]),
      input: r.pick([{ answer: "1" }, [], "x"]),
      idleTimeoutMs: r.pick([1000, -1, 1e12]),
      quality: r.pick([undefined, {}, { tasks: 0 }, { oracle: "/etc/passwd" }]),
    },
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

/** A value nested `depth` arrays deep (JSON.parse takes it; recursive code overflows its stack). */
function deep(depth: number): string {
  return `${"[".repeat(depth)}1${"]".repeat(depth)}`;
}

/**
 * The relay's `/create` with a body nested thousands of levels deep inside a valid request: the
 * host refuses it with a 400; the relay, which reads it too, must not answer a 5xx.
 */
function deepCreate(r: Rand, f: Fixture): FuzzRequest {
  const depth = r.pick([500, 2000, 5000, 20_000]);
  const body = Buffer.from(`{"env_name":"math","split":"train","index":0,"task_spec":{"a":${deep(depth)}}}`);
  const headers: Record<string, string> = {
    "content-type": "application/json",
    "content-length": String(body.length),
    authorization: `Bearer ${FUZZ_TOKEN}`,
  };
  if (f.sids.length) headers["x-session-id"] = r.pick(f.sids);
  const path = f.surface === "app" ? "/api/servers/local/create" : "/create";
  return {
    kind: `deep /create (${f.surface === "app" ? "relay" : "host"})`,
    method: "POST",
    path,
    headers,
    body,
  };
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

export function makeRequest(r: Rand, f: Fixture): FuzzRequest {
  if (r.chance(0.12)) return rawRequest(r, f.port, pathFor(r, f).path);
  if (r.chance(0.04)) return deepCreate(r, f);
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
