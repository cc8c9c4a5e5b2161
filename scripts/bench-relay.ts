// `npm run bench:relay`: what the recording relay of a built app costs in CPU, latency and memory.
//   calls, sessions, large, outside (./bench-relay-speed.ts): CPU per small relayed and recorded call,
//            its p50/p99, against the same call on /api/ors; with 256 sessions; under large outputs;
//            64 sessions × 20 calls as measured from outside. `--store postgres` records into a
//            throwaway PostgreSQL cluster (tests/support/postgres.ts) instead of SQLite.
//   load:    N clients call bigoutput `dump` for 1 MB results through /api/servers/<server>/ for a
//            while; the app's RSS is printed every few seconds, then while it idles.
//            Targets: RSS below 600 MB, no growth over the last 30 s of load, lower after idling.
//   hostile: each case of the hostile test server (tests/fixtures/hostile-server) once through the
//            relay: what the client got, what was recorded, and the app's peak RSS added.
//            Target: each case adds under 200 MB at its peak.
// Loopback only. It starts the app and the servers it needs and stops them (by process id).
// Figures are printed, not asserted (docs/architecture.md "Measuring performance").
import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { ensurePostgresBinaries, startPostgresCluster } from "../tests/support/postgres";
import { BenchHttp, reassembleCall } from "./bench-http";
import { describeMemory, idleRss, memoryFlags, readMemory, takeHeapSnapshot } from "./bench-memory";
import {
  freeLoopbackPort,
  type SpawnedServer,
  settle,
  spawnServer,
  spawnStandaloneServe,
  treeRssBytes,
} from "./bench-proc";
import { runSpeed } from "./bench-relay-speed";

const USAGE = `Usage: npm run bench:relay -- [options]
  --part <p>            all (default: every part below) | speed (calls, sessions, large, outside) |
                        calls | sessions | large | outside | load | hostile | idle (the idle RSS of
                        the app, asked only its health, and of the standalone host, scripts/serve.ts)
  --store <s>           sqlite (default: a file in a temporary data folder) | postgres (a throwaway
                        cluster, its steps/s for the team-scale store)
  --outside-sessions <n>  outside: sessions calling at once (default 64)
  --outside-calls <n>   outside: calls each (default 20)
  --app <a>             entry (default: npm start's server entry, lib/app-server) | next (next start)
  --server <s>          local (default: the built-in host, in the app's process) or standalone
                        (scripts/serve.ts, a second process reached over HTTP)
  --clients <n>         calls, large: small-call clients, each with its session (default 16);
                        load: concurrent clients (default 4)
  --sessions <n>        sessions: sessions calling at once (default 256)
  --large-clients <n>   large: clients streaming large results (default 8)
  --large-size <chars>  large: their result size (default 4194304)
  --warmup <s>          speed parts: seconds before measuring (default 5)
  --seconds <s>         speed parts: seconds measured (default 10)
  --cpu-prof <dir>      run the app under node --cpu-prof, profiles written to <dir> when it stops
  --node-flags <flags>  more node flags for the app (space-separated, e.g. "--max-semi-space-size=8")
  --memory              load: the app's heap, external and array-buffer memory beside each RSS sample
                        (scripts/bench-memory-probe.mjs loaded into it)
  --heap-snapshots <d>  load (implies --memory): heap snapshots of the app into <d> before the load,
                        half-way through it and after idling (summarize: tsx scripts/heap-summary.ts);
                        each blocks the app while it is written, so the RSS figures of such a run differ
  --duration <s>        load: seconds of load (default 60)
  --idle <s>            load: seconds watched after the load (default 30)
  --size <chars>        load: result size (default 1048576)
  --every <s>           load: print RSS every this many seconds (default 5)
  --timeout-ms <ms>     the app's PLAYGROUND_RELAY_TIMEOUT_MS for the hostile part (default 5000)
  --next-dist-dir <d>   the build directory (default $NEXT_DIST_DIR or .next); run npm run build first
  --json                print the figures as one JSON line too`;

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const PORTS: [number, number] = [8740, 8749];
const MB = 1024 * 1024;
/** The app's access token: the relay and the trajectories API ask for it. */
const TOKEN = randomBytes(24).toString("base64url");
const AUTH = { authorization: `Bearer ${TOKEN}` };

const PARTS = ["all", "speed", "calls", "sessions", "large", "outside", "load", "hostile", "idle"] as const;
type Part = (typeof PARTS)[number];

interface Config {
  part: Part;
  store: "sqlite" | "postgres";
  outsideSessions: number;
  outsideCalls: number;
  app: "entry" | "next";
  server: "local" | "standalone";
  clients: number | null;
  sessions: number;
  largeClients: number;
  largeSize: number;
  warmup: number;
  seconds: number;
  cpuProf: string | null;
  nodeFlags: string[];
  memory: boolean;
  heapSnapshots: string | null;
  duration: number;
  idle: number;
  size: number;
  every: number;
  timeoutMs: number;
  nextDistDir: string;
  json: boolean;
}

function parseConfig(argv: string[]): Config {
  const { values } = parseArgs({
    args: argv,
    options: {
      part: { type: "string", default: "all" },
      store: { type: "string", default: "sqlite" },
      "outside-sessions": { type: "string", default: "64" },
      "outside-calls": { type: "string", default: "20" },
      app: { type: "string", default: "entry" },
      server: { type: "string", default: "local" },
      clients: { type: "string" },
      sessions: { type: "string", default: "256" },
      "large-clients": { type: "string", default: "8" },
      "large-size": { type: "string", default: String(4 * MB) },
      warmup: { type: "string", default: "5" },
      seconds: { type: "string", default: "10" },
      "cpu-prof": { type: "string" },
      "node-flags": { type: "string", default: "" },
      memory: { type: "boolean", default: false },
      "heap-snapshots": { type: "string" },
      duration: { type: "string", default: "60" },
      idle: { type: "string", default: "30" },
      size: { type: "string", default: String(MB) },
      every: { type: "string", default: "5" },
      "timeout-ms": { type: "string", default: "5000" },
      "next-dist-dir": { type: "string", default: process.env.NEXT_DIST_DIR || ".next" },
      json: { type: "boolean", default: false },
      help: { type: "boolean", default: false },
    },
  });
  if (values.help) {
    console.log(USAGE);
    process.exit(0);
  }
  const part = values.part as Part;
  const app = values.app as Config["app"];
  const server = values.server as Config["server"];
  if (!PARTS.includes(part)) throw new Error(`--part: ${part}?`);
  if (values.store !== "sqlite" && values.store !== "postgres") throw new Error(`--store: ${values.store}?`);
  if (!["entry", "next"].includes(app)) throw new Error(`--app: ${app}?`);
  if (!["local", "standalone"].includes(server)) throw new Error(`--server: ${server}?`);
  return {
    part,
    store: values.store,
    outsideSessions: Number(values["outside-sessions"]),
    outsideCalls: Number(values["outside-calls"]),
    app,
    server,
    clients: values.clients === undefined ? null : Number(values.clients),
    sessions: Number(values.sessions),
    largeClients: Number(values["large-clients"]),
    largeSize: Number(values["large-size"]),
    warmup: Number(values.warmup),
    seconds: Number(values.seconds),
    cpuProf: values["cpu-prof"] ? path.resolve(values["cpu-prof"]) : null,
    nodeFlags: values["node-flags"]!.split(/\s+/).filter(Boolean),
    memory: values.memory! || Boolean(values["heap-snapshots"]),
    heapSnapshots: values["heap-snapshots"] ? path.resolve(values["heap-snapshots"]) : null,
    duration: Number(values.duration),
    idle: Number(values.idle),
    size: Number(values.size),
    every: Number(values.every),
    timeoutMs: Number(values["timeout-ms"]),
    nextDistDir: values["next-dist-dir"]!,
    json: values.json!,
  };
}

const mb = (bytes: number) => `${(bytes / MB).toFixed(0)} MB`;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A helper process of the benchmark (hostile or standalone server), stopped by its id. */
async function startHelper(label: string, args: string[], env: Record<string, string>, ready: RegExp) {
  const child: ChildProcess = spawn(process.execPath, args, {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ["pipe", "pipe", "pipe"],
  });
  let out = "";
  await new Promise<void>((resolve, reject) => {
    const onData = (d: Buffer) => {
      out += d.toString();
      if (ready.test(out)) resolve();
    };
    child.stdout!.on("data", onData);
    child.stderr!.on("data", onData);
    child.once("exit", (code) => reject(new Error(`${label} exited (${code}): ${out}`)));
    setTimeout(() => reject(new Error(`${label} did not start: ${out}`)), 60_000).unref();
  });
  return {
    pid: child.pid!,
    stop: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise<void>((r) => child.once("exit", () => r()));
      process.kill(child.pid!, "SIGTERM");
      const t = setTimeout(() => process.kill(child.pid!, "SIGKILL"), 5_000);
      await exited;
      clearTimeout(t);
    },
  };
}

async function startApp(
  cfg: Config,
  env: Record<string, string>,
  memoryFile: string,
): Promise<SpawnedServer> {
  const buildId = path.join(ROOT, cfg.nextDistDir, "BUILD_ID");
  if (!fs.existsSync(buildId)) throw new Error(`no build in ${cfg.nextDistDir}: run npm run build first`);
  const port = await freeLoopbackPort(...PORTS);
  const base = `http://127.0.0.1:${port}`;
  if (cfg.heapSnapshots) fs.mkdirSync(cfg.heapSnapshots, { recursive: true });
  const prof = [
    ...(cfg.cpuProf ? ["--cpu-prof", "--cpu-prof-dir", cfg.cpuProf] : []),
    ...cfg.nodeFlags,
    ...(cfg.memory ? memoryFlags(path.join(ROOT, "scripts/bench-memory-probe.mjs"), cfg.heapSnapshots) : []),
  ];
  // npm start's server entry (the request policy, the ORS fast path, Next for the rest), or bare
  // `next start` (Next's proxy applies the same policy).
  const args =
    cfg.app === "entry"
      ? [...prof, "--import", "tsx", path.join(ROOT, "lib/app-server/main.ts"), "--port", String(port)]
      : [...prof, path.join(ROOT, "node_modules/next/dist/bin/next"), "start", "-p", String(port)];
  return spawnServer({
    command: process.execPath,
    args: [...args, "-H", "127.0.0.1"],
    env: {
      NODE_ENV: "production",
      NEXT_DIST_DIR: cfg.nextDistDir,
      PLAYGROUND_TOKEN: TOKEN,
      BENCH_MEMORY_FILE: memoryFile,
      ...env,
    },
    cwd: ROOT,
    baseUrl: base,
    // Open without the token: the app is up.
    healthUrl: `${base}/api/ors/health`,
    timeoutMs: 90_000,
    label: "relay-app",
  });
}

// ---------------------------------------------------------------------------------------------
// Load: 1 MB results through the relay.

interface LoadFigures {
  samples: Array<{ t: number; rssMb: number; calls: number }>;
  calls: number;
  failures: number;
  mbPerS: number;
  peakMb: number;
  /** RSS growth over the last 30 s of load: the least-squares slope of the samples × 30 s. */
  growth30Mb: number;
  atEndMb: number;
  afterIdleMb: number;
  dbMb: number;
}

async function runLoad(
  cfg: Config,
  app: SpawnedServer,
  server: string,
  dataDir: string,
  memoryFile: string,
): Promise<LoadFigures> {
  const clients = cfg.clients ?? 4;
  // Next loads every route's code in the background after it starts: the load begins once it is done.
  const waited = await settle(app.pid);
  console.log(`\napp idle after ${waited.toFixed(0)} s: RSS ${mb(treeRssBytes(app.pid))}`);
  const snapshot = async (label: string) => {
    if (!cfg.heapSnapshots) return;
    const s = await takeHeapSnapshot(app.pid, cfg.heapSnapshots, label, `${app.baseUrl}/api/ors/health`);
    console.log(`  heap snapshot ${s.file} (${s.seconds.toFixed(1)} s)`);
  };
  await snapshot("1-before");
  console.log(
    `load: ${clients} clients, ${cfg.size} -character results from "${server}" through the relay, ${cfg.duration} s, then ${cfg.idle} s idle`,
  );
  const http = new BenchHttp(new URL(`${app.baseUrl}/api/servers/${server}`), clients, undefined, AUTH);
  let calls = 0;
  let failures = 0;
  let bytes = 0;
  let lastError = "";
  const start = performance.now();
  const deadline = start + cfg.duration * 1000;
  const client = async () => {
    const created = await http.request("POST", "/create_session");
    const sid = (JSON.parse(created.body) as { sid: string }).sid;
    await http.request("POST", "/create", { sid, json: { env_name: "bigoutput", split: "train", index: 0 } });
    while (performance.now() < deadline) {
      try {
        const res = await http.request("POST", "/bigoutput/call", {
          sid,
          json: { name: "dump", input: { size: cfg.size } },
          accept: "text/event-stream",
          timeoutMs: 60_000,
        });
        bytes += res.bytes;
        const r = reassembleCall(res.body);
        if (res.status === 200 && r.json && r.json.length > cfg.size) calls++;
        else {
          failures++;
          lastError = `HTTP ${res.status} ${r.error ?? res.body.slice(0, 200)}`;
        }
      } catch (err) {
        failures++;
        lastError = (err as Error).message;
      }
    }
    await http.request("POST", "/delete", { sid }).catch(() => {});
  };
  const samples: LoadFigures["samples"] = [];
  const sample = () => {
    const t = (performance.now() - start) / 1000;
    const rssMb = treeRssBytes(app.pid) / MB;
    samples.push({ t, rssMb, calls });
    const memory = cfg.memory ? `  ${describeMemory(readMemory(memoryFile))}` : "";
    console.log(
      `  t=${t.toFixed(0).padStart(3)} s  rss ${rssMb.toFixed(0).padStart(5)} MB  calls ${calls}${memory}`,
    );
  };
  sample();
  const timer = setInterval(sample, cfg.every * 1000);
  const during = sleep((cfg.duration * 1000) / 2).then(() => snapshot("2-during"));
  await Promise.all(Array.from({ length: clients }, client));
  await during;
  const loadSeconds = (performance.now() - start) / 1000;
  await sleep(cfg.idle * 1000);
  clearInterval(timer);
  sample();
  await snapshot("3-after-idle");
  http.close();
  if (lastError) console.log(`  last failure: ${lastError}`);

  const loaded = samples.filter((s) => s.t <= cfg.duration + 0.5);
  // A slope, not two points: RSS saws up and down with every collection.
  const last = loaded.filter((s) => s.t >= loaded.at(-1)!.t - 30);
  const mt = last.reduce((a, s) => a + s.t, 0) / last.length;
  const mr = last.reduce((a, s) => a + s.rssMb, 0) / last.length;
  const varT = last.reduce((a, s) => a + (s.t - mt) ** 2, 0);
  const slope = varT ? last.reduce((a, s) => a + (s.t - mt) * (s.rssMb - mr), 0) / varT : 0;
  const db = path.join(dataDir, "trajectories.sqlite");
  const dbBytes = ["", "-wal"].reduce(
    (n, ext) => n + (fs.existsSync(db + ext) ? fs.statSync(db + ext).size : 0),
    0,
  );
  return {
    samples,
    calls,
    failures,
    mbPerS: bytes / MB / loadSeconds,
    peakMb: Math.max(...samples.map((s) => s.rssMb)),
    growth30Mb: slope * 30,
    atEndMb: loaded.at(-1)!.rssMb,
    afterIdleMb: samples.at(-1)!.rssMb,
    dbMb: dbBytes / MB,
  };
}

// ---------------------------------------------------------------------------------------------
// Hostile upstream cases.

interface HostileFigures {
  name: string;
  status: number;
  got: string;
  recorded: string;
  seconds: number;
  addedMb: number;
}

const CASES: Array<{
  name: string;
  mode: string;
  endpoint: "call" | "tasks" | "tools";
  leaveAfter?: number;
}> = [
  { name: "huge JSON (512 MB, chunked)", mode: "huge-json", endpoint: "tasks" },
  { name: "endless SSE chunks", mode: "endless-sse", endpoint: "call" },
  { name: "endless unknown frames", mode: "endless-frames", endpoint: "call" },
  { name: "client leaves endless frames", mode: "endless-frames", endpoint: "call", leaveAfter: MB },
  { name: "SSE line without newline", mode: "no-newline", endpoint: "call" },
  { name: "garbage frames", mode: "garbage", endpoint: "call" },
  { name: "mid-stream close", mode: "mid-close", endpoint: "call" },
  { name: "never answers", mode: "hang", endpoint: "call" },
  { name: "headers then hang (JSON)", mode: "headers-hang", endpoint: "tools" },
  { name: "headers then hang (SSE)", mode: "headers-hang", endpoint: "call" },
];

/** Reads an answer to its end without keeping it: its status, size and last few hundred characters. */
async function drainAnswer(res: Response, leaveAfter = Number.POSITIVE_INFINITY) {
  const reader = res.body!.getReader();
  const dec = new TextDecoder();
  let tail = "";
  let bytes = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      bytes += value.byteLength;
      tail = (tail + dec.decode(value, { stream: true })).slice(-400);
      if (bytes > leaveAfter) {
        await reader.cancel();
        return { tail: `(left after ${mb(bytes)})`, bytes };
      }
    }
  } catch (err) {
    return { tail: `${tail.slice(-80)} … broken: ${(err as Error).message}`, bytes };
  }
  return { tail, bytes };
}

function summarize(tail: string): string {
  const err = /event: error\ndata: ([^\n]*)/.exec(tail);
  if (err) return `event: error: ${err[1]!.slice(0, 110)}`;
  try {
    const { detail } = JSON.parse(tail) as { detail?: unknown };
    if (typeof detail === "string") return detail.slice(0, 140);
  } catch {
    // not a {detail} body
  }
  return tail.replace(/\s+/g, " ").slice(-120);
}

async function runHostile(app: SpawnedServer): Promise<HostileFigures[]> {
  console.log("\nhostile upstream cases (each once, through the relay of the running app):");
  const base = `${app.baseUrl}/api/servers/hostile`;
  const session = await fetch(`${base}/create_session`, { method: "POST", headers: AUTH });
  const sid = ((await session.json()) as { sid: string }).sid;
  const out: HostileFigures[] = [];
  for (const c of CASES) {
    await sleep(1_500); // let the previous case's garbage go
    const baseRss = treeRssBytes(app.pid);
    let peak = baseRss;
    const sampler = setInterval(() => {
      peak = Math.max(peak, treeRssBytes(app.pid));
    }, 50);
    const t0 = performance.now();
    let status = 0;
    let got = "";
    try {
      const res = await fetch(`${base}/${c.mode}/${c.endpoint}`, {
        method: c.endpoint === "tools" ? "GET" : "POST",
        headers: {
          ...AUTH,
          "content-type": "application/json",
          "x-session-id": sid,
          accept: "text/event-stream",
        },
        body:
          c.endpoint === "tools"
            ? undefined
            : JSON.stringify(
                c.endpoint === "call" ? { name: "go", input: { case: c.name } } : { split: "train" },
              ),
      });
      status = res.status;
      const { tail, bytes } = await drainAnswer(res, c.leaveAfter);
      got = `${summarize(tail)} [${mb(bytes)}]`;
    } catch (err) {
      got = `request failed: ${(err as Error).message}`;
    }
    const seconds = (performance.now() - t0) / 1000;
    // A call's step is recorded after its answer ends (the app reads on after a client leaves).
    let recorded = "";
    if (c.endpoint === "call" && status !== 200) recorded = "no step: the answer never started";
    else if (c.endpoint === "call") {
      const until = Date.now() + 20_000;
      while (Date.now() < until && !recorded) {
        const r = await fetch(`${app.baseUrl}/api/trajectories/by-session/hostile/${sid}`, { headers: AUTH });
        if (r.ok) {
          const t = (await r.json()) as {
            steps: Array<{
              input: { case?: string };
              ok: boolean | null;
              error: string | null;
              truncated?: unknown;
            }>;
          };
          const step = t.steps.filter((s) => s.input.case === c.name).at(-1);
          if (step && step.ok !== null)
            recorded = `${step.ok ? "ok" : `error: ${step.error?.slice(0, 100)}`}${step.truncated ? ` truncated ${JSON.stringify(step.truncated)}` : ""}`;
        }
        if (!recorded) await sleep(250);
      }
      recorded ||= "(no finished step within 20 s)";
    }
    await sleep(500);
    clearInterval(sampler);
    const added = (peak - baseRss) / MB;
    out.push({ name: c.name, status, got, recorded, seconds, addedMb: added });
    console.log(
      `  ${c.name.padEnd(30)} HTTP ${status}  ${seconds.toFixed(1).padStart(5)} s  peak +${added.toFixed(0).padStart(3)} MB  ${added < 200 ? "ok" : "OVER 200 MB"}`,
    );
    console.log(`      client: ${got}`);
    if (recorded) console.log(`      step:   ${recorded}`);
  }
  // And the app still answers.
  const health = await fetch(`${app.baseUrl}/api/servers/local/health`, { headers: AUTH });
  console.log(
    `  afterwards: /api/servers/local/health → HTTP ${health.status}; app RSS ${mb(treeRssBytes(app.pid))}`,
  );
  return out;
}

// ---------------------------------------------------------------------------------------------

async function main() {
  const cfg = parseConfig(process.argv.slice(2));
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "bench-relay-"));
  const stops: Array<() => Promise<void>> = [];
  const result: Record<string, unknown> = { config: cfg };
  try {
    const speed = new Set(
      (["calls", "sessions", "large", "outside"] as const).filter(
        (x) => cfg.part === x || cfg.part === "speed" || cfg.part === "all",
      ),
    );
    const load = cfg.part === "load" || cfg.part === "all";
    const hostile = cfg.part === "hostile" || cfg.part === "all";
    const servers: string[] = [];
    if (hostile) {
      const port = await freeLoopbackPort(...PORTS);
      const hostile = await startHelper(
        "hostile server",
        [path.join(ROOT, "tests/fixtures/hostile-server/server.mjs"), "--port", String(port)],
        {},
        /listening/,
      );
      stops.push(hostile.stop);
      servers.push(`hostile=http://127.0.0.1:${port}`);
    }
    if ((load || speed.size > 0) && cfg.server === "standalone") {
      const port = await freeLoopbackPort(...PORTS);
      const standalone = await startHelper(
        "standalone server",
        [
          "--import",
          "tsx",
          path.join(ROOT, "scripts/serve.ts"),
          "--port",
          String(port),
          "--host",
          "127.0.0.1",
        ],
        {},
        /listening|http:\/\//i,
      );
      stops.push(standalone.stop);
      servers.push(`standalone=http://127.0.0.1:${port}`);
    }
    const database: Record<string, string> = {};
    if (cfg.store === "postgres") {
      const found = ensurePostgresBinaries();
      if (!found.ok) throw new Error(`--store postgres: ${found.reason}`);
      const cluster = await startPostgresCluster({ binDir: found.path, maxMs: 2 * 60 * 60_000 });
      stops.push(() => cluster.stop());
      database.PLAYGROUND_DATABASE_URL = await cluster.createDatabase("bench_relay");
    }
    const memoryFile = path.join(dataDir, "memory.json");
    const app = await startApp(
      cfg,
      {
        ...database,
        PLAYGROUND_DATA_DIR: dataDir,
        ORS_SERVERS: servers.join(","),
        PLAYGROUND_RELAY_TIMEOUT_MS: String(cfg.timeoutMs),
      },
      memoryFile,
    );
    stops.unshift(app.stop);
    console.log(
      `app: ${cfg.app === "entry" ? "npm start's server entry" : "next start"} (pid ${app.pid}) at ${app.baseUrl}, ${cfg.store === "postgres" ? "recording into PostgreSQL (its CPU not counted)" : `data in ${dataDir}`}; RSS ${mb(treeRssBytes(app.pid))}; load average ${os.loadavg()[0]!.toFixed(1)}`,
    );

    if (speed.size > 0) {
      result.speed = await runSpeed(
        speed,
        {
          clients: cfg.clients ?? 16,
          outsideSessions: cfg.outsideSessions,
          outsideCalls: cfg.outsideCalls,
          sessions: cfg.sessions,
          largeClients: cfg.largeClients,
          largeSize: cfg.largeSize,
          warmup: cfg.warmup,
          duration: cfg.seconds,
        },
        app,
        cfg.server,
        AUTH,
      );
      console.log(`  load average after: ${os.loadavg()[0]!.toFixed(1)}`);
    }
    if (load) {
      const f = await runLoad(cfg, app, cfg.server, dataDir, memoryFile);
      result.load = f;
      const growth = f.growth30Mb;
      console.log(
        `load: ${f.calls} results (${f.failures} failed), ${f.mbPerS.toFixed(1)} MB/s; RSS peak ${f.peakMb.toFixed(0)} MB, ` +
          `${f.atEndMb.toFixed(0)} MB at the end, trend over the last 30 s ${growth >= 0 ? "+" : ""}${growth.toFixed(0)} MB, ` +
          `${f.afterIdleMb.toFixed(0)} MB after ${cfg.idle} s idle; SQLite ${f.dbMb.toFixed(0)} MB`,
      );
      console.log(
        `  targets: below 600 MB ${f.peakMb < 600 ? "yes" : "NO"}; no growth over the last 30 s ${growth < 25 ? "yes" : "NO"}; lower after idling ${f.afterIdleMb < f.peakMb ? "yes" : "NO"}`,
      );
    }
    if (hostile) result.hostile = await runHostile(app);
    if (cfg.part === "idle") {
      console.log("\nidle RSS (VmRSS of the process, and of its tree):");
      const entry = await idleRss(
        "the app",
        app.pid,
        30,
        treeRssBytes,
        settle,
        cfg.memory ? memoryFile : null,
      );
      const serve = await spawnStandaloneServe(ROOT, "idle-serve");
      stops.push(serve.stop);
      await fetch(`${serve.baseUrl}/health`);
      const host = await idleRss("the standalone host", serve.pid, 30, treeRssBytes, settle, null);
      result.idle = [entry, host];
    }
  } finally {
    for (const stop of stops) await stop().catch(() => {});
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
  if (cfg.json) console.log(JSON.stringify(result));
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
