// `npm run bench -- --workers 2`: the host scaled out, in one run (docs/benchmarks.md, "Team scale").
//   1. episodes through nginx in front of N workers (`serve --workers N`) against one host process
//      direct (`serve`): episodes/s, call p99, and the server's CPU per episode from /proc — every
//      worker, nginx and the supervisor — broken down by part;
//   2. the recording relay on PostgreSQL: an app process (the app's route handlers on node:http, as
//      tests/replicas runs them) on a throwaway cluster relays 64 concurrent episodes to the scaled-
//      out host; call p99, and the steps lost (recorded vs played: should be 0).
// Loopback only; every process it starts is stopped by its PID (group) at the end, or on Ctrl-C.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { ensurePostgresBinaries, startPostgresCluster } from "../tests/support/postgres";
import { benchEpisodes, type Config, parseConfig, serveArgs, startServer } from "./bench";
import { BenchHttp, type HttpReply, reassembleCall } from "./bench-http";
import {
  anyFreeLoopbackPort,
  freeLoopbackPort,
  type SpawnedServer,
  spawnServer,
  treeCpuByProcess,
  treeCpuSeconds,
} from "./bench-proc";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const PORT_RANGE: [number, number] = [8350, 8399];

const USAGE = `Usage: npm run bench -- --workers <n> [options]
  --workers <n>         host processes behind nginx (serve --workers n)
  --nginx <file>        the nginx binary (default: found on PATH or in /usr/sbin)
  --no-pg               leave out part 2 (the relay on PostgreSQL)
  --pg-episodes <n>     part 2: episodes in all (default 640)
  --pg-clients <n>      part 2: concurrent episodes (default 64)
  --pg-calls <n>        part 2: tool calls per episode (default 4: 3 echo, then stop)
  --pg-warmup <n>       part 2: episodes played first, not in the latency and CPU figures (their
                        steps are counted too; default 64)
  and, for part 1, the options of npm run bench (--clients, --duration, --warmup, --rate, --env, --json)`;

interface WorkersConfig {
  workers: number;
  nginx?: string;
  pg: boolean;
  pgEpisodes: number;
  pgClients: number;
  pgCalls: number;
  pgWarmup: number;
  json: boolean;
  /** The rest: npm run bench's own options, for part 1. */
  rest: string[];
}

function parseWorkersConfig(argv: string[]): WorkersConfig {
  const { values, tokens } = parseArgs({
    args: argv,
    options: {
      workers: { type: "string" },
      nginx: { type: "string" },
      "no-pg": { type: "boolean", default: false },
      "pg-episodes": { type: "string", default: "640" },
      "pg-clients": { type: "string", default: "64" },
      "pg-calls": { type: "string", default: "4" },
      "pg-warmup": { type: "string", default: "64" },
      json: { type: "boolean", default: false },
      help: { type: "boolean", short: "h", default: false },
    },
    strict: false,
    allowPositionals: true,
    tokens: true,
  });
  if (values.help) {
    console.log(USAGE);
    process.exit(0);
  }
  const mine = new Set([
    "workers",
    "nginx",
    "no-pg",
    "pg-episodes",
    "pg-clients",
    "pg-calls",
    "pg-warmup",
    "help",
    "h",
  ]);
  const rest: string[] = [];
  for (const t of tokens ?? []) {
    if (t.kind === "option" && mine.has(t.name)) continue;
    if (t.kind === "option") {
      rest.push(t.rawName);
      if (t.value !== undefined && !t.inlineValue) rest.push(t.value);
      else if (t.inlineValue) rest[rest.length - 1] = `${t.rawName}=${t.value}`;
    } else if (t.kind === "positional") rest.push(t.value);
  }
  const int = (name: string, v: unknown, min: number) => {
    const n = Number(v);
    if (!Number.isInteger(n) || n < min)
      throw new Error(`--${name} must be a whole number ≥ ${min}, got ${v}`);
    return n;
  };
  if (rest.includes("--url") || rest.includes("--spawn") || rest.includes("--mode"))
    throw new Error(
      "--workers measures episodes on the servers it starts: leave out --url, --spawn and --mode",
    );
  return {
    workers: int("workers", values.workers, 1),
    nginx: values.nginx as string | undefined,
    pg: !values["no-pg"],
    pgEpisodes: int("pg-episodes", values["pg-episodes"], 1),
    pgClients: int("pg-clients", values["pg-clients"], 1),
    pgCalls: int("pg-calls", values["pg-calls"], 1),
    pgWarmup: int("pg-warmup", values["pg-warmup"], 0),
    json: values.json as boolean,
    rest,
  };
}

const fmt = (x: number, digits = 1) => (Number.isFinite(x) ? x.toFixed(digits) : "n/a");

/** CPU seconds of a process tree by part: the root (supervisor), nginx, node workers, the rest. */
function cpuByPart(root: number): Record<string, number> {
  const parts: Record<string, number> = { supervisor: 0, workers: 0, nginx: 0, other: 0 };
  for (const p of treeCpuByProcess(root)) {
    const part =
      p.pid === root
        ? "supervisor"
        : p.command.startsWith("nginx")
          ? "nginx"
          : p.command === "node"
            ? "workers"
            : "other";
    parts[part]! += p.seconds;
  }
  return parts;
}

/** `serve --workers N` as the benchmark's server: the supervisor's pid, nginx's URL. */
async function startWorkers(wc: WorkersConfig, cfg: Config): Promise<SpawnedServer> {
  const port = await freeLoopbackPort(...PORT_RANGE);
  return spawnServer({
    label: "workers",
    command: process.execPath,
    args: [
      path.join(ROOT, "bin/ors-playground.mjs"),
      "serve",
      "--workers",
      String(wc.workers),
      ...(wc.nginx ? ["--nginx", wc.nginx] : []),
      // As part 1's direct process serves them (bench.ts startServer "standalone").
      ...serveArgs(port),
    ],
    cwd: ROOT,
    env: { NODE_ENV: "production", ORS_MAX_SESSIONS: String(Math.max(50_000, cfg.sessions * 2)) },
    baseUrl: `http://127.0.0.1:${port}`,
    healthUrl: `http://127.0.0.1:${port}/health`,
    timeoutMs: 180_000,
  });
}

async function part1(wc: WorkersConfig, stops: Array<() => Promise<void>>) {
  const base = parseConfig([...wc.rest, "--spawn", "standalone"]);
  console.log(
    `part 1: episodes on ${base.env}, ${base.clients} clients, one process direct, then ${wc.workers} workers behind nginx`,
  );

  const direct = await startServer(base);
  stops.push(direct.stop);
  console.log(`  direct: scripts/serve.ts pid ${direct.pid} at ${direct.baseUrl}`);
  const directHttp = new BenchHttp(new URL(direct.baseUrl), base.clients);
  const one = await benchEpisodes({ http: directHttp, pid: direct.pid, label: "one process, direct" }, base);
  directHttp.close();
  await direct.stop();

  const scaled = await startWorkers(wc, base);
  stops.push(scaled.stop);
  console.log(
    `\n  behind nginx: serve --workers ${wc.workers}, supervisor pid ${scaled.pid} at ${scaled.baseUrl} (log ${scaled.logFile})`,
  );
  const http = new BenchHttp(new URL(scaled.baseUrl), base.clients);
  let before: Record<string, number> = {};
  let split: Record<string, number> = {};
  const nginx = await benchEpisodes(
    {
      http,
      pid: scaled.pid,
      label: `${wc.workers} workers behind nginx`,
      window: (edge) => {
        const now = cpuByPart(scaled.pid);
        if (edge === "start") before = now;
        else split = Object.fromEntries(Object.entries(now).map(([k, v]) => [k, v - (before[k] ?? 0)]));
      },
    },
    base,
  );
  http.close();
  const episodes = Number(nginx.episodes) || 1;
  const perEpisode = Object.fromEntries(
    Object.entries(split).map(([k, v]) => [k, Number(((v * 1000) / episodes).toFixed(3))]),
  );
  console.log(
    `  server CPU by part  workers ${fmt(perEpisode.workers!, 3)} + nginx ${fmt(perEpisode.nginx!, 3)} + supervisor ${fmt(perEpisode.supervisor!, 3)} ms/episode`,
  );
  console.log(
    `\n  => ${fmt(Number(one.episodesPerSec))} episodes/s direct vs ${fmt(Number(nginx.episodesPerSec))} through nginx; ` +
      `CPU ${fmt(Number(one.serverCpuMsPerEpisode), 3)} vs ${fmt(Number(nginx.serverCpuMsPerEpisode), 3)} ms/episode`,
  );
  return { scaled, result: { direct: one, nginx: { ...nginx, cpuMsPerEpisodeByPart: perEpisode } } };
}

// ---------------------------------------------------------------------------------------------
// Part 2: the relay on PostgreSQL

class CallTimes {
  readonly ms: number[] = [];
  p(q: number): number {
    const s = [...this.ms].sort((a, b) => a - b);
    return s.length
      ? s[Math.min(s.length - 1, Math.max(0, Math.ceil((q / 100) * s.length) - 1))]!
      : Number.NaN;
  }
}

async function part2(wc: WorkersConfig, orsUrl: string, stops: Array<() => Promise<void>>) {
  console.log(
    `\npart 2: the relay on PostgreSQL — ${wc.pgEpisodes} episodes of ${wc.pgCalls} calls, ${wc.pgClients} at a time, to the scaled-out host`,
  );
  const bins = ensurePostgresBinaries((m) => console.log(`  ${m}`));
  if (!bins.ok) {
    console.log(`  skipped: no PostgreSQL here (${bins.reason})`);
    return { skipped: bins.reason };
  }
  const cluster = await startPostgresCluster({
    binDir: bins.path,
    log: (m) => console.log(`  ${m}`),
    maxMs: 30 * 60_000,
  });
  stops.push(() => cluster.stop());
  const databaseUrl = await cluster.createDatabase("bench_workers");
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "bench-workers-app-"));
  stops.push(async () => fs.rmSync(dataDir, { recursive: true, force: true }));
  const port = await anyFreeLoopbackPort();
  const app = await spawnServer({
    label: "relay-app",
    command: process.execPath,
    args: ["--import", "tsx", "tests/replicas/replica-server.ts", "--port", String(port)],
    cwd: ROOT,
    env: {
      NODE_ENV: "production",
      PLAYGROUND_DATABASE_URL: databaseUrl,
      PLAYGROUND_AUTH: "none",
      PLAYGROUND_TOKEN: "",
      PLAYGROUND_DATA_DIR: dataDir,
      PLAYGROUND_MAX_TRAJECTORIES: "1000000",
      ORS_SERVERS: `scaled=${orsUrl}`,
    },
    baseUrl: `http://127.0.0.1:${port}`,
    healthUrl: `http://127.0.0.1:${port}/api/servers/scaled/health`,
    timeoutMs: 120_000,
  });
  stops.push(app.stop);
  console.log(
    `  PostgreSQL pid ${cluster.pid} on port ${cluster.port}; app pid ${app.pid} at ${app.baseUrl}`,
  );

  const http = new BenchHttp(new URL(`${app.baseUrl}/api/servers/scaled`), wc.pgClients);
  const calls = new CallTimes();
  const played = new Map<string, number>();
  let errors = 0;
  let lastError = "";
  let next = 0;
  const ok = (r: HttpReply, what: string) => {
    if (r.status !== 200) throw new Error(`${what}: HTTP ${r.status} ${r.body.slice(0, 200)}`);
    return r;
  };
  const episode = async () => {
    const sid = (
      JSON.parse(ok(await http.request("POST", "/create_session"), "create_session").body) as { sid: string }
    ).sid;
    ok(
      await http.request("POST", "/create", { sid, json: { env_name: "dice", split: "train", index: 0 } }),
      "create",
    );
    ok(await http.request("GET", "/dice/prompt", { sid }), "prompt");
    let done = 0;
    played.set(sid, 0);
    for (let i = 0; i < wc.pgCalls; i++) {
      const last = i === wc.pgCalls - 1;
      const t0 = performance.now();
      const r = await http.request("POST", "/dice/call", {
        sid,
        json: last ? { name: "stop", input: {} } : { name: "echo", input: { text: `step ${i}` } },
        accept: "text/event-stream",
        timeoutMs: 60_000,
      });
      calls.ms.push(performance.now() - t0);
      const { json, error } = reassembleCall(ok(r, "call").body);
      if (error !== undefined || !json) throw new Error(`call: ${error}`);
      played.set(sid, ++done);
    }
    ok(await http.request("POST", "/delete", { sid }), "delete");
  };
  const play = (count: number) => {
    next = 0;
    return Promise.all(
      Array.from({ length: wc.pgClients }, async () => {
        while (next < count) {
          next++;
          await episode().catch((e: Error) => {
            errors++;
            lastError = e.message;
          });
        }
      }),
    );
  };
  // A warm-up first (a fresh process compiles as it goes): its steps are checked below too.
  await play(wc.pgWarmup);
  const warmupErrors = errors;
  calls.ms.length = 0;
  errors = 0;
  const t0 = performance.now();
  const cpu0 = { app: treeCpuSeconds(app.pid), pg: treeCpuSeconds(cluster.pid) };
  await play(wc.pgEpisodes);
  const seconds = (performance.now() - t0) / 1000;
  const cpu = { app: treeCpuSeconds(app.pid) - cpu0.app, pg: treeCpuSeconds(cluster.pid) - cpu0.pg };
  http.close();

  // Every call that was answered must be a recorded step (the by-session API waits for the recorder).
  const api = new BenchHttp(new URL(app.baseUrl), 16);
  let recorded = 0;
  let missingEpisodes = 0;
  const sids = [...played.keys()];
  await Promise.all(
    Array.from({ length: 16 }, async (_, k) => {
      for (let i = k; i < sids.length; i += 16) {
        const r = await api.request("GET", `/api/trajectories/by-session/scaled/${sids[i]}`);
        if (r.status !== 200) {
          missingEpisodes++;
          continue;
        }
        const steps = (JSON.parse(r.body) as { steps: Array<{ ok: boolean | null }> }).steps;
        recorded += steps.filter((s) => s.ok !== null).length;
      }
    }),
  );
  api.close();
  const playedCalls = [...played.values()].reduce((a, b) => a + b, 0);
  const result = {
    episodes: wc.pgEpisodes - errors,
    errors,
    warmupEpisodes: wc.pgWarmup,
    warmupErrors,
    seconds: Number(seconds.toFixed(2)),
    episodesPerSec: Number(((wc.pgEpisodes - errors) / seconds).toFixed(1)),
    callP50Ms: Number(fmt(calls.p(50), 2)),
    callP99Ms: Number(fmt(calls.p(99), 2)),
    callsAnswered: playedCalls,
    stepsRecorded: recorded,
    stepsLost: playedCalls - recorded,
    episodesNotFound: missingEpisodes,
    appCpuMsPerEpisode: Number(((cpu.app * 1000) / Math.max(1, wc.pgEpisodes - errors)).toFixed(2)),
    postgresCpuMsPerEpisode: Number(((cpu.pg * 1000) / Math.max(1, wc.pgEpisodes - errors)).toFixed(2)),
  };
  console.log(
    `  episodes         ${result.episodes} in ${fmt(seconds, 2)} s (${fmt(result.episodesPerSec)}/s), errors ${errors} (after ${wc.pgWarmup} warm-up episodes: errors ${warmupErrors})`,
  );
  if (lastError) console.log(`    last error: ${lastError}`);
  console.log(
    `  call latency     p50 ${fmt(result.callP50Ms, 2)} ms   p99 ${fmt(result.callP99Ms, 2)} ms (through the relay)`,
  );
  console.log(
    `  steps            ${playedCalls} calls answered, ${recorded} steps recorded: ${result.stepsLost} lost${missingEpisodes ? ` (${missingEpisodes} episodes not found)` : ""}`,
  );
  console.log(
    `  CPU              app ${fmt(result.appCpuMsPerEpisode, 2)} ms/episode, PostgreSQL ${fmt(result.postgresCpuMsPerEpisode, 2)} ms/episode`,
  );
  return result;
}

/** Runs both parts; everything started is stopped before it returns (or on Ctrl-C). */
export async function benchWorkers(argv: string[]): Promise<void> {
  let wc: WorkersConfig;
  try {
    wc = parseWorkersConfig(argv);
  } catch (e) {
    console.error(`bench: ${(e as Error).message}\n\n${USAGE}`);
    process.exit(2);
  }
  const stops: Array<() => Promise<void>> = [];
  const stopAll = async () => {
    for (const stop of stops.splice(0).reverse()) await stop().catch(() => {});
  };
  const onSignal = () => void stopAll().finally(() => process.exit(130));
  process.once("SIGINT", onSignal);
  process.once("SIGTERM", onSignal);
  const load = os.loadavg().map((l) => l.toFixed(1));
  console.log(
    `load average ${load.join(" ")} on ${os.availableParallelism()} cores (shared machine: compare figures of one run)`,
  );
  try {
    const { scaled, result } = await part1(wc, stops);
    const out: Record<string, unknown> = { part1: result };
    if (wc.pg) out.part2 = await part2(wc, scaled.baseUrl, stops);
    if (wc.json) console.log(JSON.stringify(out));
  } finally {
    await stopAll();
  }
}
