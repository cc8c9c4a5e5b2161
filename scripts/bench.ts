// `npm run bench`: load an ORS server on loopback and report what it costs.
//   episodes (default): N clients run whole episodes (create_session → create → prompt → call → delete)
//   large:              N clients call bigoutput `dump` for 1 MB results, reassembling the SSE (MB/s)
//   image:              the same with one 1 MB PNG image block per call (scripts/bench-env.ts)
//   idle:               open 10,000 sessions and report the server's RSS before/after
//   --workers N:        `serve --workers N` behind nginx against one process direct, then the relay
//                       on PostgreSQL (scripts/bench-workers.ts)
// Besides throughput and latency it reports the server's own CPU time per episode from /proc (the
// figure that is stable from run to run on a shared 2-core machine; docs/architecture.md "Measuring performance").

import os from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { BenchHttp, type HttpReply, reassembleCall } from "./bench-http";
import {
  freeLoopbackPort,
  processExists,
  type SpawnedServer,
  settle,
  spawnServer,
  treeCpuSeconds,
  treeRssBytes,
} from "./bench-proc";

const USAGE = `Usage: npm run bench -- [options]
  --url <base>          ORS base URL on loopback (e.g. http://127.0.0.1:8080 or http://127.0.0.1:3000/api/ors)
  --spawn <kind>        start the server to measure instead: standalone (scripts/serve.ts), next
                        (the app's server entry as npm start runs it, lib/app-server/main.ts; needs a
                        prior build; targets /api/ors; --root: its root), or floor (fixed answers on
                        node:http, scripts/bench-floor.ts: the least a Node host can cost); it is
                        stopped afterwards
  --root                --spawn next: target the app's root ORS shapes instead of /api/ors
  --pid <pid>           the server's process id, for CPU/RSS figures when using --url
  --mode <m>            episodes (default) | large | image | idle
  --clients <n>         concurrent clients (default 64)
  --duration <s>        measured seconds (default 10)
  --warmup <s>          seconds run first and not counted (default 2)
  --max-episodes <n>    stop after this many measured episodes (default 1000000)
  --rate <n>            at most n episodes (or calls) per second in all, to compare servers at one load
  --env <name>          environment for episodes (default math; large mode: bigoutput)
  --split <name>        split of the tasks (default train)
  --tool <name>         tool to call (default: the tool with an "answer" field, answered from the task)
  --input <json>        tool input (default {"answer": <task.answer>})
  --size <bytes>        large mode: dump size; image mode: PNG size (default 1048576)
  --ascii               large mode: ASCII-only text (default has some é ✓ 🙂, making it a two-byte string)
  --escapes             large mode: escape-heavy ASCII text (quotes, backslashes, newlines, runs of
                        spaces: benchtext's escaped, scripts/bench-env.ts)
  --sessions <n>        idle mode: sessions to open (default 10000)
  --api-key <key>       sent as X-API-Key
  --next-dist-dir <d>   --spawn next: the build directory (default $NEXT_DIST_DIR or .next)
  --port <n>            --spawn: the spawned server's port (default: a free one in 8350-8399)
  --cpu-prof <dir>      spawned server runs with node --cpu-prof, profiles written to <dir>
  --json                print the figures as one JSON line too
  --workers <n>         the host scaled out: see npm run bench -- --workers 2 --help`;

const PORT_RANGE: [number, number] = [8350, 8399];
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

export interface Config {
  url?: string;
  spawn?: "standalone" | "next" | "floor";
  root: boolean;
  pid?: number;
  mode: "episodes" | "large" | "image" | "idle";
  clients: number;
  duration: number;
  warmup: number;
  maxEpisodes: number;
  rate?: number;
  env: string;
  split: string;
  tool?: string;
  input?: Record<string, unknown>;
  size: number;
  sessions: number;
  apiKey?: string;
  nextDistDir: string;
  port?: number;
  cpuProf?: string;
  json: boolean;
  ascii: boolean;
  escapes: boolean;
  /** The checkout a spawned server runs from (default: this one), to measure another revision. */
  dir?: string;
  /** Print nothing but what the caller prints (scripts/bench-compare.ts). */
  quiet?: boolean;
}

export function parseConfig(argv: string[]): Config {
  const { values } = parseArgs({
    args: argv,
    options: {
      url: { type: "string" },
      spawn: { type: "string" },
      pid: { type: "string" },
      mode: { type: "string", default: "episodes" },
      clients: { type: "string", default: "64" },
      duration: { type: "string", default: "10" },
      warmup: { type: "string", default: "2" },
      "max-episodes": { type: "string", default: "1000000" },
      rate: { type: "string" },
      env: { type: "string" },
      split: { type: "string", default: "train" },
      tool: { type: "string" },
      input: { type: "string" },
      size: { type: "string", default: "1048576" },
      sessions: { type: "string", default: "10000" },
      "api-key": { type: "string" },
      "next-dist-dir": { type: "string" },
      port: { type: "string" },
      "cpu-prof": { type: "string" },
      json: { type: "boolean", default: false },
      ascii: { type: "boolean", default: false },
      escapes: { type: "boolean", default: false },
      root: { type: "boolean", default: false },
      help: { type: "boolean", short: "h", default: false },
    },
    allowPositionals: false,
  });
  if (values.help) {
    console.log(USAGE);
    process.exit(0);
  }
  const num = (name: string, v: string | undefined, min: number): number => {
    const n = Number(v);
    if (!Number.isFinite(n) || n < min) throw new Error(`--${name} must be a number ≥ ${min}, got ${v}`);
    return n;
  };
  const mode = values.mode as Config["mode"];
  if (!["episodes", "large", "image", "idle"].includes(mode))
    throw new Error(`--mode must be episodes, large, image or idle`);
  if (values.spawn && !["standalone", "next", "floor"].includes(values.spawn))
    throw new Error(`--spawn must be standalone, next or floor`);
  if (!values.url === !values.spawn) throw new Error(`give exactly one of --url or --spawn\n\n${USAGE}`);
  if (values.pid && values.spawn) throw new Error("--pid goes with --url (a spawned server's pid is known)");
  return {
    url: values.url,
    spawn: values.spawn as Config["spawn"],
    root: values.root!,
    pid: values.pid ? num("pid", values.pid, 1) : undefined,
    mode,
    clients: Math.floor(num("clients", values.clients, 1)),
    duration: num("duration", values.duration, 0.1),
    warmup: num("warmup", values.warmup, 0),
    maxEpisodes: Math.floor(num("max-episodes", values["max-episodes"], 1)),
    rate: values.rate ? num("rate", values.rate, 1) : undefined,
    env:
      values.env ??
      (mode === "large"
        ? values.escapes
          ? "benchtext"
          : "bigoutput"
        : mode === "image"
          ? "benchimage"
          : "math"),
    split: values.split!,
    tool: values.tool,
    input: values.input ? (JSON.parse(values.input) as Record<string, unknown>) : undefined,
    size: Math.floor(num("size", values.size, 0)),
    sessions: Math.floor(num("sessions", values.sessions, 1)),
    apiKey: values["api-key"],
    nextDistDir: values["next-dist-dir"] ?? process.env.NEXT_DIST_DIR ?? ".next",
    port: values.port ? num("port", values.port, 1) : undefined,
    cpuProf: values["cpu-prof"],
    json: values.json!,
    ascii: values.ascii!,
    escapes: values.escapes!,
  };
}

// ---------------------------------------------------------------------------------------------
// Statistics

class Latencies {
  private values = new Float64Array(1 << 16);
  private n = 0;
  add(ms: number): void {
    if (this.n === this.values.length) {
      const bigger = new Float64Array(this.values.length * 2);
      bigger.set(this.values);
      this.values = bigger;
    }
    this.values[this.n++] = ms;
  }
  get count(): number {
    return this.n;
  }
  reset(): void {
    this.n = 0;
  }
  percentile(p: number): number {
    if (!this.n) return Number.NaN;
    const sorted = this.values.slice(0, this.n).sort();
    return sorted[Math.min(this.n - 1, Math.max(0, Math.ceil((p / 100) * this.n) - 1))]!;
  }
}

class Stats {
  episodes = 0;
  toolCalls = 0;
  requests = 0;
  errors = 0;
  wrongRewards = 0;
  bytes = 0;
  errorSamples: string[] = [];
  readonly episode = new Latencies();
  readonly byEndpoint = new Map<string, Latencies>();
  endpoint(name: string): Latencies {
    let l = this.byEndpoint.get(name);
    if (!l) {
      l = new Latencies();
      this.byEndpoint.set(name, l);
    }
    return l;
  }
  error(message: string): void {
    this.errors++;
    if (this.errorSamples.length < 5 && !this.errorSamples.includes(message)) this.errorSamples.push(message);
  }
  /** Bumped when the warm-up ends: latencies of work started before then are not recorded. */
  epoch = 0;
  reset(): void {
    this.epoch++;
    this.episodes = this.toolCalls = this.requests = this.errors = this.wrongRewards = this.bytes = 0;
    this.errorSamples = [];
    this.episode.reset();
    for (const l of this.byEndpoint.values()) l.reset();
  }
}

class BenchError extends Error {}

// ---------------------------------------------------------------------------------------------
// One episode

interface EpisodePlan {
  env: string;
  split: string;
  tasks: Array<Record<string, unknown>>;
  tool: string;
  input?: Record<string, unknown>;
  expectReward?: number;
}

async function timed(
  stats: Stats,
  name: string,
  req: () => Promise<HttpReply>,
  ok: (r: HttpReply) => boolean = (r) => r.status === 200,
): Promise<HttpReply> {
  const epoch = stats.epoch;
  const t0 = performance.now();
  const r = await req();
  const ms = performance.now() - t0;
  stats.requests++;
  if (epoch === stats.epoch) stats.endpoint(name).add(ms);
  if (!ok(r)) throw new BenchError(`${name}: HTTP ${r.status} ${r.body.slice(0, 200)}`);
  return r;
}

/** The sid of a /create_session answer: JSON `{sid}`, or SSE `task_id` as the reference server sends. */
function sidOf(r: HttpReply): string {
  if (r.contentType.includes("text/event-stream")) {
    const { taskId } = reassembleCall(r.body);
    if (!taskId) throw new BenchError("create_session: no task_id event");
    return taskId;
  }
  const sid = (JSON.parse(r.body) as { sid?: unknown }).sid;
  if (typeof sid !== "string") throw new BenchError("create_session: no sid");
  return sid;
}

async function openSession(
  http: BenchHttp,
  stats: Stats,
  env: string,
  split: string,
  index: number,
): Promise<string> {
  const sid = sidOf(await timed(stats, "create_session", () => http.request("POST", "/create_session")));
  await timed(stats, "create", () =>
    http.request("POST", "/create", { sid, json: { env_name: env, split, index } }),
  );
  return sid;
}

async function callTool(
  http: BenchHttp,
  stats: Stats,
  env: string,
  sid: string,
  name: string,
  input: Record<string, unknown>,
): Promise<{
  output: { reward?: number | null; finished?: boolean; blocks: Array<{ text?: string }> };
  raw: string;
}> {
  const r = await timed(stats, "call", () =>
    http.request("POST", `/${env}/call`, { sid, json: { name, input }, accept: "text/event-stream" }),
  );
  stats.toolCalls++;
  stats.bytes += r.bytes;
  const { json, error } = reassembleCall(r.body);
  if (error !== undefined || json === undefined) throw new BenchError(`call: SSE error event: ${error}`);
  const result = JSON.parse(json) as { ok: boolean; error?: string; output?: never };
  if (!result.ok) throw new BenchError(`call: {ok: false, error: ${JSON.stringify(result.error)}}`);
  return { output: result.output!, raw: json };
}

async function runEpisode(http: BenchHttp, stats: Stats, plan: EpisodePlan, n: number): Promise<void> {
  const index = n % plan.tasks.length;
  const task = plan.tasks[index]!;
  const epoch = stats.epoch;
  const t0 = performance.now();
  let sid: string | undefined;
  try {
    sid = await openSession(http, stats, plan.env, plan.split, index);
    await timed(stats, "prompt", () => http.request("GET", `/${plan.env}/prompt`, { sid }));
    const input = plan.input ?? { answer: String(task.answer) };
    const { output } = await callTool(http, stats, plan.env, sid, plan.tool, input);
    if (plan.expectReward !== undefined && output.reward !== plan.expectReward) stats.wrongRewards++;
    const deleted = sid;
    sid = undefined;
    await timed(stats, "delete", () => http.request("POST", "/delete", { sid: deleted }));
    stats.episodes++;
    if (epoch === stats.epoch) stats.episode.add(performance.now() - t0);
  } catch (e) {
    stats.error(e instanceof Error ? e.message : String(e));
    if (sid) await http.request("POST", "/delete", { sid }).catch(() => {});
  }
}

// ---------------------------------------------------------------------------------------------
// Setup: which tasks and which tool

async function planEpisodes(http: BenchHttp, cfg: Config): Promise<EpisodePlan> {
  const stats = new Stats();
  const tools = await timed(stats, "tools", () => http.request("GET", `/${cfg.env}/tools`));
  const list = (
    JSON.parse(tools.body) as { tools: Array<{ name: string; input_schema?: { properties?: object } }> }
  ).tools;
  const tool =
    cfg.tool ?? list.find((t) => t.input_schema?.properties && "answer" in t.input_schema.properties)?.name;
  if (!tool) throw new Error(`${cfg.env} has no tool with an "answer" field: give --tool and --input`);
  const num = await timed(stats, "num_tasks", () =>
    http.request("POST", `/${cfg.env}/num_tasks`, { json: { split: cfg.split } }),
  );
  const count = (JSON.parse(num.body) as { num_tasks: number }).num_tasks;
  const range = await timed(stats, "task_range", () =>
    http.request("POST", `/${cfg.env}/task_range`, {
      json: { split: cfg.split, start: 0, stop: Math.min(count, 1000) },
    }),
  );
  const tasks = (JSON.parse(range.body) as { tasks: Array<Record<string, unknown>> }).tasks;
  if (!tasks.length) throw new Error(`${cfg.env}/${cfg.split} has no tasks`);
  if (!cfg.input && tasks.some((t) => t.answer === undefined))
    throw new Error(`tasks of ${cfg.env} have no "answer": give --input`);
  return {
    env: cfg.env,
    split: cfg.split,
    tasks,
    tool,
    input: cfg.input,
    expectReward: cfg.input ? undefined : 1,
  };
}

// ---------------------------------------------------------------------------------------------
// Measuring

export interface Target {
  http: BenchHttp;
  pid?: number;
  label: string;
  /** Called when the measured window starts and when it ends (after the warm-up; at the end). */
  window?: (edge: "start" | "end") => void;
}

interface Window {
  seconds: number;
  serverCpu?: number;
  benchCpu: number;
}

/**
 * Runs `clients` loops of `work` for warmup + duration seconds (or until `maxUnits` measured
 * units), resets the stats after the warmup, and measures the window from then until every
 * client has finished its last unit.
 */
async function runLoad(
  target: Target,
  cfg: Config,
  stats: Stats,
  work: (n: number, client: number) => Promise<void>,
  units: () => number,
): Promise<Window> {
  let stop = false;
  let n = 0;
  let measuring = cfg.warmup === 0;
  // --rate: unit k starts no earlier than k / rate seconds after the start (all clients together),
  // so that two servers are compared at the same load (CPU per unit grows as throughput falls).
  const start = performance.now();
  const loop = async (client: number) => {
    while (!stop && (!measuring || units() < cfg.maxEpisodes)) {
      const k = n++;
      if (cfg.rate) {
        const wait = start + (k / cfg.rate) * 1000 - performance.now();
        if (wait > 0) await new Promise((r) => setTimeout(r, wait));
        if (stop) break;
      }
      await work(k, client);
    }
  };
  let t0 = performance.now();
  let cpu0 = target.pid ? treeCpuSeconds(target.pid) : undefined;
  let bench0 = process.cpuUsage();
  if (measuring) target.window?.("start");
  const startMeasuring = () => {
    stats.reset();
    measuring = true;
    t0 = performance.now();
    cpu0 = target.pid ? treeCpuSeconds(target.pid) : undefined;
    bench0 = process.cpuUsage();
    target.window?.("start");
  };
  const timers: NodeJS.Timeout[] = [];
  if (!measuring) timers.push(setTimeout(startMeasuring, cfg.warmup * 1000));
  timers.push(
    setTimeout(
      () => {
        stop = true;
      },
      (cfg.warmup + cfg.duration) * 1000,
    ),
  );
  // A server that refuses everything would spin: stop early on many errors and no progress.
  const watchdog = setInterval(() => {
    if (stats.errors > 1000 && units() === 0) stop = true;
  }, 250);
  await Promise.all(Array.from({ length: cfg.clients }, (_, client) => loop(client)));
  for (const t of timers) clearTimeout(t);
  clearInterval(watchdog);
  const seconds = (performance.now() - t0) / 1000;
  const serverCpu = target.pid && cpu0 !== undefined ? treeCpuSeconds(target.pid) - cpu0 : undefined;
  target.window?.("end");
  const b = process.cpuUsage(bench0);
  return { seconds, serverCpu, benchCpu: (b.user + b.system) / 1e6 };
}

const fmt = (x: number, digits = 1) => (Number.isFinite(x) ? x.toFixed(digits) : "n/a");
const mb = (bytes: number) => bytes / (1024 * 1024);

function printLatencies(stats: Stats): void {
  const rows = [...stats.byEndpoint.entries()].filter(([, l]) => l.count > 0);
  for (const [name, l] of rows) {
    console.log(
      `  ${name.padEnd(15)} n=${String(l.count).padStart(7)}  p50 ${fmt(l.percentile(50), 2).padStart(7)} ms  p99 ${fmt(l.percentile(99), 2).padStart(7)} ms`,
    );
  }
}

export async function benchEpisodes(target: Target, cfg: Config): Promise<Record<string, unknown>> {
  const say = cfg.quiet ? () => {} : console.log;
  const plan = await planEpisodes(target.http, cfg);
  const stats = new Stats();
  const w = await runLoad(
    target,
    cfg,
    stats,
    (n) => runEpisode(target.http, stats, plan, n),
    () => stats.episodes,
  );
  const call = stats.endpoint("call");
  const result = {
    mode: "episodes",
    target: target.label,
    env: cfg.env,
    clients: cfg.clients,
    seconds: Number(w.seconds.toFixed(2)),
    episodes: stats.episodes,
    episodesPerSec: Number((stats.episodes / w.seconds).toFixed(1)),
    toolCallsPerSec: Number((stats.toolCalls / w.seconds).toFixed(1)),
    requestsPerSec: Number((stats.requests / w.seconds).toFixed(1)),
    callP50Ms: Number(fmt(call.percentile(50), 2)),
    callP99Ms: Number(fmt(call.percentile(99), 2)),
    episodeP50Ms: Number(fmt(stats.episode.percentile(50), 2)),
    episodeP99Ms: Number(fmt(stats.episode.percentile(99), 2)),
    errors: stats.errors,
    wrongRewards: stats.wrongRewards,
    serverCpuMsPerEpisode:
      w.serverCpu !== undefined && stats.episodes
        ? Number(((w.serverCpu * 1000) / stats.episodes).toFixed(3))
        : null,
    serverCpuCores: w.serverCpu !== undefined ? Number((w.serverCpu / w.seconds).toFixed(2)) : null,
    benchCpuCores: Number((w.benchCpu / w.seconds).toFixed(2)),
  };
  say(`\n${target.label} — episodes on ${cfg.env}, ${cfg.clients} clients, ${fmt(w.seconds, 2)} s measured`);
  say(`  episodes/s       ${fmt(result.episodesPerSec)}   (${stats.episodes} episodes)`);
  say(`  tool calls/s     ${fmt(result.toolCallsPerSec)}   HTTP requests/s ${fmt(result.requestsPerSec)}`);
  say(`  call latency     p50 ${fmt(result.callP50Ms, 2)} ms   p99 ${fmt(result.callP99Ms, 2)} ms`);
  say(`  episode latency  p50 ${fmt(result.episodeP50Ms, 2)} ms   p99 ${fmt(result.episodeP99Ms, 2)} ms`);
  say(
    `  errors           ${stats.errors}${stats.wrongRewards ? `   wrong rewards ${stats.wrongRewards}` : ""}`,
  );
  for (const e of stats.errorSamples) say(`    ${e}`);
  if (result.serverCpuMsPerEpisode !== null)
    say(
      `  server CPU       ${fmt(result.serverCpuMsPerEpisode, 3)} ms/episode   (${fmt(result.serverCpuCores ?? Number.NaN, 2)} cores busy)`,
    );
  else say("  server CPU       n/a (give --pid, or use --spawn)");
  say(`  load generator   ${fmt(result.benchCpuCores, 2)} cores busy`);
  say(`  TCP connections  ${target.http.connections} opened in all (keep-alive: ideally = clients)`);
  say("  per endpoint:");
  if (!cfg.quiet) printLatencies(stats);
  return result;
}

export async function benchLarge(target: Target, cfg: Config): Promise<Record<string, unknown>> {
  const say = cfg.quiet ? () => {} : console.log;
  const stats = new Stats();
  // One session per client, opened before the clock starts; each client then calls `dump` in a loop.
  const sids = await Promise.all(
    Array.from({ length: cfg.clients }, () => openSession(target.http, stats, cfg.env, cfg.split, 0)),
  );
  const image = cfg.mode === "image";
  const tool = cfg.tool ?? (image ? "png" : cfg.escapes ? "escaped" : "dump");
  const input = cfg.input ?? (cfg.ascii && !image ? { size: cfg.size, ascii: true } : { size: cfg.size });
  const expected = typeof input.size === "number" && !image ? input.size : undefined;
  // Each client owns its session: calls on one session are sequential, as in a real episode.
  const work = async (_n: number, client: number) => {
    const sid = sids[client]!;
    try {
      const { output } = await callTool(target.http, stats, cfg.env, sid, tool, input);
      if (image) {
        const data = (output.blocks as Array<{ data?: string }>).find((b) => b.data)?.data ?? "";
        if (data.length < (cfg.size * 4) / 3 - 1024)
          throw new BenchError(`png returned ${data.length} base64 characters`);
      } else {
        const text = output.blocks.map((b) => b.text ?? "").join("");
        if (expected !== undefined && text.length !== expected)
          throw new BenchError(`dump returned ${text.length} characters, not ${expected}`);
      }
      stats.episodes++;
    } catch (e) {
      stats.error(e instanceof Error ? e.message : String(e));
    }
  };
  const w = await runLoad(target, cfg, stats, work, () => stats.episodes);
  await Promise.all(sids.map((sid) => target.http.request("POST", "/delete", { sid }).catch(() => {})));
  const call = stats.endpoint("call");
  const result = {
    mode: cfg.mode,
    target: target.label,
    env: cfg.env,
    clients: cfg.clients,
    size: cfg.size,
    seconds: Number(w.seconds.toFixed(2)),
    calls: stats.toolCalls,
    mbPerSec: Number((mb(stats.bytes) / w.seconds).toFixed(1)),
    callsPerSec: Number((stats.toolCalls / w.seconds).toFixed(1)),
    callP50Ms: Number(fmt(call.percentile(50), 2)),
    callP99Ms: Number(fmt(call.percentile(99), 2)),
    errors: stats.errors,
    serverCpuMsPerMb:
      w.serverCpu !== undefined && stats.bytes
        ? Number(((w.serverCpu * 1000) / mb(stats.bytes)).toFixed(2))
        : null,
    serverCpuCores: w.serverCpu !== undefined ? Number((w.serverCpu / w.seconds).toFixed(2)) : null,
    benchCpuCores: Number((w.benchCpu / w.seconds).toFixed(2)),
  };
  say(
    `\n${target.label} — ${image ? "image" : "large"} outputs (${cfg.env} ${tool} ${JSON.stringify(input)}), ${cfg.clients} clients`,
  );
  say(
    `  MB/s (SSE bytes) ${fmt(result.mbPerSec)}   (${stats.toolCalls} calls, ${fmt(mb(stats.bytes))} MB in ${fmt(w.seconds, 2)} s)`,
  );
  say(`  call latency     p50 ${fmt(result.callP50Ms, 2)} ms   p99 ${fmt(result.callP99Ms, 2)} ms`);
  say(`  errors           ${stats.errors}`);
  for (const e of stats.errorSamples) say(`    ${e}`);
  if (result.serverCpuMsPerMb !== null)
    say(
      `  server CPU       ${fmt(result.serverCpuMsPerMb, 2)} ms/MB   (${fmt(result.serverCpuCores ?? Number.NaN, 2)} cores busy)`,
    );
  say(`  load generator   ${fmt(result.benchCpuCores, 2)} cores busy`);
  return result;
}

async function benchIdle(target: Target, cfg: Config): Promise<Record<string, unknown>> {
  if (!target.pid) throw new Error("idle mode needs the server's pid: give --pid or use --spawn");
  const pid = target.pid;
  const stats = new Stats();
  const tasks = Number(
    (
      JSON.parse(
        (await target.http.request("POST", `/${cfg.env}/num_tasks`, { json: { split: cfg.split } })).body,
      ) as {
        num_tasks: number;
      }
    ).num_tasks,
  );
  // A few episodes first, so the "empty" figure is a warmed-up server rather than a cold one.
  const warm = await Promise.all(
    Array.from({ length: 50 }, (_, i) => openSession(target.http, stats, cfg.env, cfg.split, i % tasks)),
  );
  await Promise.all(warm.map((sid) => target.http.request("POST", "/delete", { sid })));
  await new Promise((r) => setTimeout(r, 500));
  const rssBefore = treeRssBytes(pid);
  const sids: string[] = [];
  let next = 0;
  const t0 = performance.now();
  const cpu0 = treeCpuSeconds(pid);
  await Promise.all(
    Array.from({ length: Math.min(cfg.clients, cfg.sessions) }, async () => {
      while (next < cfg.sessions) {
        const i = next++;
        try {
          sids.push(await openSession(target.http, stats, cfg.env, cfg.split, i % tasks));
        } catch (e) {
          stats.error(e instanceof Error ? e.message : String(e));
        }
      }
    }),
  );
  const seconds = (performance.now() - t0) / 1000;
  const cpu = treeCpuSeconds(pid) - cpu0;
  const rssAfter = treeRssBytes(pid);
  await new Promise((r) => setTimeout(r, 1000));
  const rssSettled = treeRssBytes(pid);
  let open = 0;
  await Promise.all(
    Array.from({ length: 8 }, async (_, k) => {
      for (let i = k; i < sids.length; i += 8) {
        const r = await target.http.request("POST", "/ping", { sid: sids[i] }).catch(() => null);
        if (r?.status === 200) open++;
      }
    }),
  );
  let next2 = 0;
  await Promise.all(
    Array.from({ length: Math.min(cfg.clients, 16) }, async () => {
      while (next2 < sids.length)
        await target.http.request("POST", "/delete", { sid: sids[next2++] }).catch(() => {});
    }),
  );
  const rssDeleted = treeRssBytes(pid);
  const above = rssSettled - rssBefore;
  const result = {
    mode: "idle",
    target: target.label,
    env: cfg.env,
    sessions: sids.length,
    stillOpen: open,
    errors: stats.errors,
    secondsToOpen: Number(seconds.toFixed(2)),
    rssBeforeMb: Number(mb(rssBefore).toFixed(1)),
    rssAfterMb: Number(mb(rssAfter).toFixed(1)),
    rssSettledMb: Number(mb(rssSettled).toFixed(1)),
    rssAboveEmptyMb: Number(mb(above).toFixed(1)),
    bytesPerSession: Math.round(above / Math.max(1, sids.length)),
    rssAfterDeleteMb: Number(mb(rssDeleted).toFixed(1)),
    serverCpuMsPerSession: Number(((cpu * 1000) / Math.max(1, sids.length)).toFixed(3)),
  };
  console.log(`\n${target.label} — ${sids.length} idle sessions on ${cfg.env} (create_session + create)`);
  console.log(
    `  opened in        ${fmt(seconds, 2)} s (${fmt(sids.length / seconds, 0)} sessions/s), errors ${stats.errors}`,
  );
  for (const e of stats.errorSamples) console.log(`    ${e}`);
  console.log(`  still open       ${open} (answered /ping)`);
  console.log(
    `  server RSS       empty ${fmt(result.rssBeforeMb)} MB → ${fmt(result.rssAfterMb)} MB → ${fmt(result.rssSettledMb)} MB after 1 s`,
  );
  console.log(
    `  above empty      ${fmt(result.rssAboveEmptyMb)} MB (${result.bytesPerSession} bytes/session)`,
  );
  console.log(`  after deleting   ${fmt(result.rssAfterDeleteMb)} MB`);
  console.log(`  server CPU       ${fmt(result.serverCpuMsPerSession, 3)} ms/session opened`);
  return result;
}

// ---------------------------------------------------------------------------------------------
// Main

/** `serve`'s arguments for the benchmark: its own environments (scripts/bench-env.ts) beside the built-ins. */
export function serveArgs(port: number): string[] {
  return [
    "--env",
    "scripts/bench-env.ts",
    "--builtins",
    "--no-watch",
    "--port",
    String(port),
    "--host",
    "127.0.0.1",
  ];
}

/** Starts the server `cfg.spawn` names and waits until it is done starting (bench-proc's settle). */
export async function startServer(cfg: Config): Promise<SpawnedServer> {
  const server = await spawnKind(cfg);
  await settle(server.pid);
  return server;
}

async function spawnKind(cfg: Config): Promise<SpawnedServer> {
  const port = cfg.port ?? (await freeLoopbackPort(...PORT_RANGE));
  const nodeFlags = cfg.cpuProf ? ["--cpu-prof", `--cpu-prof-dir=${path.resolve(cfg.cpuProf)}`] : [];
  const env: Record<string, string> = {
    NODE_ENV: "production",
    ORS_MAX_SESSIONS: String(Math.max(50_000, cfg.sessions * 2)),
  };
  if (cfg.spawn === "floor") {
    return spawnServer({
      label: "floor",
      command: process.execPath,
      args: [...nodeFlags, "--import", "tsx", "scripts/bench-floor.ts", "--port", String(port)],
      cwd: cfg.dir ?? ROOT,
      env,
      baseUrl: `http://127.0.0.1:${port}`,
      healthUrl: `http://127.0.0.1:${port}/health`,
    });
  }
  if (cfg.spawn === "standalone") {
    return spawnServer({
      label: "standalone",
      command: process.execPath,
      args: [...nodeFlags, "--import", "tsx", "scripts/serve.ts", ...serveArgs(port)],
      cwd: cfg.dir ?? ROOT,
      env,
      baseUrl: `http://127.0.0.1:${port}`,
      healthUrl: `http://127.0.0.1:${port}/health`,
    });
  }
  return spawnServer({
    label: "next",
    command: process.execPath,
    args: [
      ...nodeFlags,
      "--import",
      "tsx",
      "lib/app-server/main.ts",
      "--port",
      String(port),
      "--host",
      "127.0.0.1",
    ],
    cwd: cfg.dir ?? ROOT,
    env: {
      ...env,
      NEXT_DIST_DIR: cfg.nextDistDir,
      PLAYGROUND_DATA_DIR: path.join(os.tmpdir(), `ors-bench-data-${process.pid}`),
      PLAYGROUND_AUTH: "none",
      ORS_ENVS: "scripts/bench-env.ts",
      ORS_ENVS_ONLY: "0",
      ORS_ENVS_WATCH: "0",
    },
    baseUrl: `http://127.0.0.1:${port}${cfg.root ? "" : "/api/ors"}`,
    healthUrl: `http://127.0.0.1:${port}/api/ors/health`,
    timeoutMs: 120_000,
  });
}

async function main(): Promise<void> {
  if (process.argv.includes("--workers")) {
    const { benchWorkers } = await import("./bench-workers");
    return benchWorkers(process.argv.slice(2));
  }
  const cfg = parseConfig(process.argv.slice(2));
  let server: SpawnedServer | undefined;
  const onSignal = () => {
    void server?.stop().finally(() => process.exit(130));
  };
  process.once("SIGINT", onSignal);
  process.once("SIGTERM", onSignal);
  try {
    let baseUrl = cfg.url;
    let pid = cfg.pid;
    if (cfg.spawn) {
      server = await startServer(cfg);
      baseUrl = server.baseUrl;
      pid = server.pid;
      console.log(`started ${cfg.spawn} server pid ${pid} at ${baseUrl} (log ${server.logFile})`);
    }
    if (pid !== undefined && !processExists(pid)) throw new Error(`no process ${pid}`);
    const http = new BenchHttp(new URL(baseUrl!), cfg.clients, cfg.apiKey);
    const health = await http.request("GET", "/health").catch((e: Error) => {
      throw new Error(`${baseUrl} is not reachable: ${e.message}`);
    });
    if (health.status !== 200) throw new Error(`${baseUrl}/health answered ${health.status}`);
    const target: Target = { http, pid, label: cfg.spawn ? `${cfg.spawn} (${baseUrl})` : baseUrl! };
    const result =
      cfg.mode === "episodes"
        ? await benchEpisodes(target, cfg)
        : cfg.mode === "large" || cfg.mode === "image"
          ? await benchLarge(target, cfg)
          : await benchIdle(target, cfg);
    if (cfg.json) console.log(JSON.stringify(result));
    http.close();
  } finally {
    await server?.stop();
  }
}

// Run as a script (not when scripts/bench-workers.ts imports the parts above).
if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href)
  main().catch((e: unknown) => {
    console.error(`bench: ${e instanceof Error ? e.message : String(e)}`);
    process.exit(1);
  });
