// `npm run fuzz`: malformed requests against the production app (the server entry, as `npm start`
// runs it) on a loopback port — on its embedded SQLite store, or (`--postgres`) on a throwaway
// PostgreSQL — or against the host scaled out behind nginx (`--workers N`, `serve --workers`). What
// is sent is in ./fuzz-requests.ts. It counts the answers by status class and by kind of request,
// checks the server stays up, lists every 5xx, and stops what it started (by process id). Exit code
// 1 on any 5xx or crash. The app needs `npm run build` first.
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import { Agent } from "node:http";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { seededRandom } from "@/envs/shared/seeded-random";
import { ensurePostgresBinaries, startPostgresCluster } from "../tests/support/postgres";
import {
  anyFreeLoopbackPort,
  processExists,
  type SpawnedServer,
  spawnServer,
  treeCpuSeconds,
  treeRssBytes,
} from "./bench-proc";
import { type FuzzRequest, Rand } from "./fuzz-rand";
import { type Fixture, FUZZ_TOKEN, makeRequest } from "./fuzz-requests";
import { type Outcome, send } from "./fuzz-send";

const USAGE = `Usage: npm run fuzz -- [options]
  --requests <n>      requests to send (default 10000)
  --concurrency <n>   requests in flight (default 8)
  --seed <n>          PRNG seed, for a reproducible run (default: random, printed)
  --port <n>          port for the app (default: a free one)
  --postgres          the app on a throwaway PostgreSQL (PLAYGROUND_DATABASE_URL), not SQLite
  --workers <n>       the ORS host scaled out: serve --workers n behind nginx (its ORS paths)
  --next-dist-dir <d> the build directory (default $NEXT_DIST_DIR or .next)
  --json              print the figures as one JSON line too`;

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const AUTH = { authorization: `Bearer ${FUZZ_TOKEN}` };

interface Options {
  total: number;
  concurrency: number;
  seed: number;
  port: number | null;
  postgres: boolean;
  workers: number | null;
  nextDistDir: string;
  json: boolean;
}

function parseOptions(): Options | null {
  const { values } = parseArgs({
    options: {
      requests: { type: "string", default: "10000" },
      concurrency: { type: "string", default: "8" },
      seed: { type: "string" },
      port: { type: "string" },
      postgres: { type: "boolean", default: false },
      workers: { type: "string" },
      "next-dist-dir": { type: "string" },
      json: { type: "boolean", default: false },
      help: { type: "boolean", short: "h", default: false },
    },
  });
  if (values.help) return null;
  const whole = (v: string | undefined, what: string) => {
    const n = Number(v);
    if (!Number.isInteger(n) || n < 1) throw new Error(`${what} must be a positive integer\n${USAGE}`);
    return n;
  };
  const workers = values.workers === undefined ? null : whole(values.workers, "--workers");
  if (workers !== null && values.postgres)
    throw new Error(`--postgres is the app's; --workers fuzzes the host alone\n${USAGE}`);
  return {
    total: whole(values.requests, "--requests"),
    concurrency: whole(values.concurrency, "--concurrency"),
    seed: values.seed ? Number(values.seed) : randomBytes(4).readUInt32LE(0),
    port: values.port ? whole(values.port, "--port") : null,
    postgres: values.postgres,
    workers,
    nextDistDir: values["next-dist-dir"] ?? process.env.NEXT_DIST_DIR ?? ".next",
    json: values.json,
  };
}

// ---------------------------------------------------------------------------------------------
// What is fuzzed.

interface Target {
  label: string;
  surface: Fixture["surface"];
  server: SpawnedServer;
  /** The root process of everything that answers (its tree's CPU and memory are measured). */
  pid: number;
  healthUrl: string;
  /** Stops what was started besides the server (a database, a data folder). */
  cleanUp(): Promise<void>;
}

/** A port nothing listens on now (a server already there would answer the health checks instead). */
async function portFor(o: Options): Promise<number> {
  const port = o.port ?? (await anyFreeLoopbackPort());
  await new Promise<void>((resolve, reject) => {
    const probe = net.createServer();
    probe.once("error", () => reject(new Error(`port ${port} is in use`)));
    probe.listen(port, "127.0.0.1", () => probe.close(() => resolve()));
  });
  return port;
}

/** The production app through its server entry, on SQLite or on a throwaway PostgreSQL. */
async function startApp(o: Options, port: number): Promise<Target> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "ors-fuzz-"));
  const stops: (() => Promise<void>)[] = [async () => fs.rmSync(dataDir, { recursive: true, force: true })];
  const cleanUp = async () => {
    for (const stop of stops.reverse()) await stop().catch(() => {});
  };
  const env: Record<string, string> = {
    NODE_ENV: "production",
    NEXT_DIST_DIR: o.nextDistDir,
    PLAYGROUND_DATA_DIR: dataDir,
    ORS_SERVERS: "",
    ORS_API_KEYS: "",
    PLAYGROUND_TOKEN: FUZZ_TOKEN,
    // Short-lived sessions and calls keep the run's memory flat; limits are part of what is fuzzed.
    ORS_CALL_TIMEOUT_MS: "5000",
  };
  try {
    if (o.postgres) {
      const bins = ensurePostgresBinaries();
      if (!bins.ok) throw new Error(`--postgres: ${bins.reason}`);
      const cluster = await startPostgresCluster({ binDir: bins.path, maxMs: 60 * 60_000 });
      stops.push(() => cluster.stop());
      env.PLAYGROUND_DATABASE_URL = await cluster.createDatabase("fuzz");
    }
    const server = await spawnServer({
      label: "fuzz-app",
      command: process.execPath,
      args: ["--import", "tsx", "lib/app-server/main.ts", "--port", String(port), "--host", "127.0.0.1"],
      cwd: ROOT,
      env,
      baseUrl: `http://127.0.0.1:${port}`,
      healthUrl: `http://127.0.0.1:${port}/api/ors/health`,
      timeoutMs: 120_000,
    });
    const label = `the app's server entry (next start) on ${o.postgres ? "PostgreSQL" : "SQLite"}`;
    return {
      label,
      surface: "app",
      server,
      pid: server.pid,
      healthUrl: `${server.baseUrl}/api/ors/health`,
      cleanUp,
    };
  } catch (e) {
    await cleanUp();
    throw e;
  }
}

/** `serve --workers N`: the ORS host as N processes behind nginx, as the CLI runs it. */
async function startWorkers(o: Options, port: number): Promise<Target> {
  const server = await spawnServer({
    label: "fuzz-workers",
    command: process.execPath,
    args: ["bin/ors-playground.mjs", "serve", "--workers", String(o.workers), "--port", String(port)],
    cwd: ROOT,
    env: { ORS_CALL_TIMEOUT_MS: "5000", ORS_API_KEYS: "" },
    baseUrl: `http://127.0.0.1:${port}`,
    healthUrl: `http://127.0.0.1:${port}/health`,
    timeoutMs: 180_000,
  });
  return {
    label: `serve --workers ${o.workers} (nginx in front)`,
    surface: "host",
    server,
    pid: server.pid,
    healthUrl: `${server.baseUrl}/health`,
    cleanUp: async () => {},
  };
}

/** A few live sessions, recorded trajectories and a run, so requests reach past "unknown". */
async function fixture(t: Target, port: number): Promise<Fixture> {
  const base = t.server.baseUrl;
  const ors = t.surface === "app" ? `${base}/api/servers/local` : base;
  const json = { ...AUTH, "content-type": "application/json" };
  const sids: string[] = [];
  for (let i = 0; i < 4; i++) {
    const res = await fetch(`${ors}/create_session`, { method: "POST", headers: AUTH });
    const { sid } = (await res.json()) as { sid: string };
    await fetch(`${ors}/create`, {
      method: "POST",
      headers: { ...json, "x-session-id": sid },
      body: JSON.stringify({ env_name: i % 2 ? "guess" : "math", split: "train", index: i }),
    });
    const call = await fetch(`${ors}/math/call`, {
      method: "POST",
      headers: { ...json, "x-session-id": sid },
      body: JSON.stringify({ name: "submit", input: { answer: "1" } }),
    });
    await call.text();
    sids.push(sid);
  }
  const f: Fixture = { surface: t.surface, sids, trajectoryIds: [], runIds: [], base, port };
  if (t.surface === "host") return f;
  const run = await fetch(`${base}/api/runs`, {
    method: "POST",
    headers: json,
    body: JSON.stringify({
      server: "local",
      env: "math",
      split: "train",
      tasks: [0, 1],
      policy: { kind: "random", seed: 1 },
    }),
  });
  if (run.status === 201) f.runIds.push(((await run.json()) as { id: string }).id);
  for (let i = 0; i < 50 && f.trajectoryIds.length === 0; i++) {
    const list = (await (await fetch(`${base}/api/trajectories`, { headers: AUTH })).json()) as {
      items: { id: string }[];
    };
    f.trajectoryIds = list.items.map((x) => x.id);
    if (!f.trajectoryIds.length) await new Promise((r) => setTimeout(r, 100));
  }
  return f;
}

// ---------------------------------------------------------------------------------------------
// The run and its report.

interface Tally {
  counts: Record<string, number>;
  byKind: Map<string, Record<string, number>>;
  noAnswer: Map<string, number>;
  fives: { req: FuzzRequest; out: Outcome }[];
  noAnswerSamples: { req: FuzzRequest; out: Outcome }[];
  crashed: boolean;
  healthFailures: number;
  retried: number;
  peakRss: number;
}

function count(t: Tally, req: FuzzRequest, out: Outcome): void {
  const cls = out.status === null ? "no answer" : `${String(out.status)[0]}xx`;
  t.counts[cls] = (t.counts[cls] ?? 0) + 1;
  const k = t.byKind.get(req.kind) ?? {};
  k[cls] = (k[cls] ?? 0) + 1;
  t.byKind.set(req.kind, k);
  if (out.status === null) {
    const why = `${req.kind}: ${out.error ?? "closed"}`;
    t.noAnswer.set(why, (t.noAnswer.get(why) ?? 0) + 1);
    if (t.noAnswerSamples.length < 15) t.noAnswerSamples.push({ req, out });
  }
  if (out.status !== null && out.status >= 500) t.fives.push({ req, out });
}

/** Sends `o.total` requests, `o.concurrency` at a time; every 500 answers, checks the server lives. */
async function fuzz(o: Options, t: Target, f: Fixture): Promise<Tally> {
  const tally: Tally = {
    counts: { "1xx": 0, "2xx": 0, "3xx": 0, "4xx": 0, "5xx": 0, "no answer": 0 },
    byKind: new Map(),
    noAnswer: new Map(),
    fives: [],
    noAnswerSamples: [],
    crashed: false,
    healthFailures: 0,
    retried: 0,
    peakRss: treeRssBytes(t.pid),
  };
  const agent = new Agent({ keepAlive: true, maxSockets: o.concurrency });
  const rand = new Rand(seededRandom(o.seed));
  let sent = 0;
  let done = 0;
  const worker = async () => {
    while (sent < o.total && !tally.crashed) {
      const req = makeRequest(rand, f);
      sent++;
      let out = await send(agent, f.port, req);
      // A reset on a reused keep-alive connection (the server closed it after an earlier answer,
      // e.g. a refused oversized upload) says nothing about this request: send it once more on a
      // connection of its own.
      if (out.status === null && !req.raw) {
        tally.retried++;
        out = await send(false, f.port, req);
      }
      done++;
      count(tally, req, out);
      if (done % 500 === 0) await checkAlive(t, tally, done, o.total);
    }
  };
  try {
    await Promise.all(Array.from({ length: o.concurrency }, worker));
  } finally {
    agent.destroy();
  }
  process.stdout.write("\n");
  if (!processExists(t.pid)) tally.crashed = true;
  return tally;
}

async function checkAlive(t: Target, tally: Tally, done: number, total: number): Promise<void> {
  if (!processExists(t.pid)) {
    tally.crashed = true;
    return;
  }
  tally.peakRss = Math.max(tally.peakRss, treeRssBytes(t.pid));
  const ok = await fetch(t.healthUrl, { signal: AbortSignal.timeout(10_000) }).then(
    (r) => r.status === 200,
    () => false,
  );
  if (!ok) tally.healthFailures++;
  process.stdout.write(`\r  ${done} / ${total} answered`);
}

/** Whether the server still answers afterwards (its pages too, for the app). */
async function answersAfter(t: Target): Promise<boolean> {
  const ok = (url: string, headers: Record<string, string> = {}) =>
    fetch(url, { headers, signal: AbortSignal.timeout(20_000) }).then(
      (r) => r.status === 200,
      () => false,
    );
  if (t.surface === "app" && !(await ok(`${t.server.baseUrl}/`, AUTH))) return false;
  return ok(t.healthUrl);
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

const classes = (c: Record<string, number>) =>
  Object.entries(c)
    .map(([k, v]) => `${k} ${v}`)
    .join(", ");

function printNoAnswer(t: Tally): void {
  if (!t.noAnswer.size) return;
  console.log("  no answer (connection closed or reset without a status line):");
  for (const [why, n] of [...t.noAnswer.entries()].sort((a, b) => b[1] - a[1]))
    console.log(`    ${n}× ${why}`);
  console.log("  some of them:");
  for (const { req, out } of t.noAnswerSamples)
    console.log(
      `    ${out.error ?? "closed"}: ${req.method} ${req.path.slice(0, 100)} body ${describeBody(req.raw ?? req.body).slice(0, 100)} headers ${shortHeaders(req.headers)}`,
    );
}

/** Every 5xx, grouped by status, kind of path and answer (one example each), then the first few whole. */
function printFives(t: Tally): void {
  console.log(`  5xx              ${t.fives.length}`);
  const groups = new Map<string, number>();
  for (const x of t.fives) {
    const key = `${x.out.status} ${x.req.kind}: ${x.out.detail.replace(/\d+/g, "N").slice(0, 90) || "(empty answer)"}`;
    groups.set(key, (groups.get(key) ?? 0) + 1);
  }
  for (const [key, n] of groups) console.log(`    ${n}× ${key}`);
  for (const { req, out } of t.fives.slice(0, 30))
    console.log(
      `    ${out.status} ${req.method} ${req.path.slice(0, 160)}\n      kind: ${req.kind}; headers: ${shortHeaders(req.headers)}\n      body: ${describeBody(req.raw ?? req.body).slice(0, 300)}\n      answer: ${out.detail.slice(0, 300).replace(/\s+/g, " ")}`,
    );
}

function report(
  o: Options,
  t: Target,
  tally: Tally,
  m: { seconds: number; cpu: number; rss0: number; alive: boolean },
) {
  const mb = (b: number) => `${Math.round(b / 1024 / 1024)} MB`;
  console.log(`\nFuzzing ${t.label} — ${o.total} requests, ${o.concurrency} in flight, seed ${o.seed}`);
  console.log(`  duration         ${m.seconds.toFixed(1)} s (${Math.round(o.total / m.seconds)} requests/s)`);
  console.log(`  answers          ${classes(tally.counts)}`);
  console.log("  by kind:");
  for (const [kind, c] of [...tally.byKind.entries()].sort())
    console.log(`    ${kind.padEnd(34)} ${classes(c)}`);
  console.log(`  resent on a new connection after a reset of a reused one: ${tally.retried}`);
  printNoAnswer(tally);
  console.log(
    `  server           ${tally.crashed ? "CRASHED" : "up"}; health checks failed: ${tally.healthFailures}; answers after the run: ${m.alive ? "yes" : "NO"}`,
  );
  console.log(
    `  server CPU       ${m.cpu.toFixed(1)} s; RSS ${mb(m.rss0)} before, ${mb(tally.peakRss)} peak (sampled), ${mb(treeRssBytes(t.pid))} after`,
  );
  printFives(tally);
  if (o.json)
    console.log(
      JSON.stringify({
        target: t.label,
        seed: o.seed,
        total: o.total,
        counts: tally.counts,
        fives: tally.fives.length,
        crashed: tally.crashed,
        healthFailures: tally.healthFailures,
        alive: m.alive,
        seconds: m.seconds,
        cpu: m.cpu,
      }),
    );
}

async function main(): Promise<void> {
  const o = parseOptions();
  if (!o) {
    console.log(USAGE);
    return;
  }
  const port = await portFor(o);
  const t = o.workers !== null ? await startWorkers(o, port) : await startApp(o, port);
  console.log(
    `started ${t.label} (pid ${t.pid}) at ${t.server.baseUrl}; log ${t.server.logFile}; seed ${o.seed}`,
  );
  // Whatever happens to this script, what it started goes with it.
  const stopOnCrash = (e: unknown) => {
    console.error("fuzz: failed:", e);
    void t.server
      .stop()
      .then(() => t.cleanUp())
      .finally(() => process.exit(2));
  };
  process.once("uncaughtException", stopOnCrash);
  process.once("SIGINT", () => stopOnCrash("SIGINT"));
  try {
    const started = Date.now();
    const cpu0 = treeCpuSeconds(t.pid);
    const rss0 = treeRssBytes(t.pid);
    const tally = await fuzz(o, t, await fixture(t, port));
    const alive = !tally.crashed && (await answersAfter(t));
    const seconds = (Date.now() - started) / 1000;
    report(o, t, tally, { seconds, cpu: treeCpuSeconds(t.pid) - cpu0, rss0, alive });
    if (tally.fives.length || tally.crashed || !alive) process.exitCode = 1;
  } finally {
    await t.server.stop();
    await t.cleanUp();
  }
}

main().catch((e) => {
  console.error(e instanceof Error ? e.message : e);
  process.exit(1);
});
