// `npm run bench:host`: servers side by side in one run, each measured from outside (scripts/bench.ts's
// node:http keep-alive client, the server's CPU from /proc): every server is started once, then measured
// in turn, round after round, at one load. Figures taken minutes apart on a shared machine are never
// compared: each round's ratio to the first server is taken in the same minute (docs/benchmarks.md).
import fs from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import { benchEpisodes, benchLarge, type Config, parseConfig, startServer, type Target } from "./bench";
import { BenchHttp } from "./bench-http";
import { processExists, type SpawnedServer } from "./bench-proc";

const USAGE = `Usage: npm run bench:host -- [options] [npm run bench options: --mode, --rate, --clients, --size, --ascii, --escapes ...]
  --servers <list>      comma-separated, measured in this order, the first being the one the others are
                        compared with: floor, standalone, next (/api/ors of npm start's server entry),
                        next-root (its root ORS shapes); default floor,standalone,next
  --before <dir>        another checkout (with node_modules, and a build for next): each spawned server
                        but the floor is measured from it too, labelled "(before)"
  --url <name=url@pid>  a server started by hand (e.g. the reference Python one), repeatable; it is
                        measured where it appears in --servers (by name)
  --rounds <n>          rounds of measurements (default 5); --duration is one measurement's length
  --cpu-prof <dir>      spawned servers run with node --cpu-prof; each measured window's monotonic
                        start and end (µs, the profiles' clock) go to <dir>/windows.json`;

interface Entry {
  label: string;
  target: Target;
  server?: SpawnedServer;
  figures: number[];
  rates: number[];
}

function parse(argv: string[]) {
  const { values, tokens } = parseArgs({
    args: argv,
    options: {
      servers: { type: "string", default: "floor,standalone,next" },
      before: { type: "string" },
      url: { type: "string", multiple: true, default: [] },
      rounds: { type: "string", default: "5" },
      help: { type: "boolean", short: "h", default: false },
    },
    strict: false,
    tokens: true,
  });
  if (values.help) {
    console.log(USAGE);
    process.exit(0);
  }
  // Everything else is npm run bench's.
  const own = new Set(["servers", "before", "url", "rounds", "help"]);
  const rest: string[] = [];
  for (const t of tokens ?? []) {
    if (t.kind === "option" && !own.has(t.name)) {
      rest.push(t.rawName);
      if (t.value !== undefined) rest.push(t.value);
    } else if (t.kind === "positional") rest.push(t.value);
  }
  const rounds = Number(values.rounds);
  if (!Number.isInteger(rounds) || rounds < 1) throw new Error(`--rounds must be a whole number ≥ 1`);
  const urls = new Map<string, { url: string; pid: number }>();
  for (const u of values.url as string[]) {
    const m = /^([\w.-]+)=(.+)@(\d+)$/.exec(u);
    if (!m) throw new Error(`--url must be name=url@pid, got ${JSON.stringify(u)}`);
    urls.set(m[1]!, { url: m[2]!, pid: Number(m[3]) });
  }
  return {
    servers: String(values.servers)
      .split(",")
      .map((s) => s.trim())
      .filter(Boolean),
    before: values.before === undefined ? undefined : path.resolve(String(values.before)),
    urls,
    rounds,
    base: parseConfig([...rest, "--spawn", "floor"]),
  };
}

const SPAWNED: Record<string, Pick<Config, "spawn" | "root">> = {
  floor: { spawn: "floor", root: false },
  standalone: { spawn: "standalone", root: false },
  next: { spawn: "next", root: false },
  "next-root": { spawn: "next", root: true },
};

async function open(
  name: string,
  base: Config,
  urls: Map<string, { url: string; pid: number }>,
  dir?: string,
): Promise<Entry> {
  const outside = urls.get(name);
  if (outside) {
    if (!processExists(outside.pid)) throw new Error(`${name}: no process ${outside.pid}`);
    const http = new BenchHttp(new URL(outside.url), base.clients, base.apiKey);
    return { label: name, target: { http, pid: outside.pid, label: name }, figures: [], rates: [] };
  }
  const kind = SPAWNED[name];
  if (!kind)
    throw new Error(
      `unknown server ${JSON.stringify(name)}: floor, standalone, next, next-root or a --url name`,
    );
  const server = await startServer({ ...base, ...kind, dir });
  const label = dir ? `${name} (before)` : name;
  console.log(`started ${label}: pid ${server.pid}, ${server.baseUrl}`);
  const http = new BenchHttp(new URL(server.baseUrl), base.clients, base.apiKey);
  return { label, server, target: { http, pid: server.pid, label }, figures: [], rates: [] };
}

/** One measured window: the server's CPU per unit (ms per episode, or per MB) and units per second. */
async function measure(entry: Entry, cfg: Config): Promise<{ cpu: number; rate: number }> {
  const r =
    cfg.mode === "episodes" ? await benchEpisodes(entry.target, cfg) : await benchLarge(entry.target, cfg);
  const cpu = Number(cfg.mode === "episodes" ? r.serverCpuMsPerEpisode : r.serverCpuMsPerMb);
  const rate = Number(cfg.mode === "episodes" ? r.episodesPerSec : r.mbPerSec);
  if (Number(r.errors) > 0) console.log(`  ${entry.label}: ${r.errors} errors`);
  return { cpu, rate };
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};

function loadAverage(): string {
  try {
    return fs.readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ");
  } catch {
    return "n/a";
  }
}

async function main(): Promise<void> {
  const o = parse(process.argv.slice(2));
  if (o.base.mode === "idle") throw new Error("--mode idle is not compared: npm run bench -- --mode idle");
  const unit = o.base.mode === "episodes" ? "ms/episode" : "ms/MB";
  const entries: Entry[] = [];
  const windows: Array<{ label: string; pid?: number; round: number; startUs: number; endUs: number }> = [];
  const stop = async () => {
    for (const e of entries) {
      e.target.http.close();
      await e.server?.stop();
    }
  };
  process.once("SIGINT", () => void stop().finally(() => process.exit(130)));
  try {
    for (const name of o.servers) {
      entries.push(await open(name, o.base, o.urls));
      if (o.before && name !== "floor" && SPAWNED[name])
        entries.push(await open(name, o.base, o.urls, o.before));
    }
    console.log(`load average at the start: ${loadAverage()}`);
    // Warm every server up (JIT, caches) before any window counts.
    const quiet: Config = { ...o.base, quiet: true };
    if (o.base.warmup > 0)
      for (const e of entries) await measure(e, { ...quiet, warmup: 0, duration: o.base.warmup });
    for (let round = 0; round < o.rounds; round++) {
      // Each round starts with another server, so none is always measured first after a pause.
      const order = entries.map((_, i) => entries[(i + round) % entries.length]!);
      for (const e of order) {
        let startUs = 0;
        e.target.window = (edge) => {
          const now = Number(process.hrtime.bigint() / 1000n);
          if (edge === "start") startUs = now;
          else windows.push({ label: e.label, pid: e.target.pid, round, startUs, endUs: now });
        };
        const { cpu, rate } = await measure(e, { ...quiet, warmup: 0 });
        e.figures.push(cpu);
        e.rates.push(rate);
      }
      const row = entries.map((e) => `${e.label} ${e.figures.at(-1)!.toFixed(3)}`).join("   ");
      console.log(`round ${round + 1} (load ${loadAverage()}): ${row} ${unit}`);
    }
    console.log(`load average at the end: ${loadAverage()}`);
    const first = entries[0]!;
    console.log(
      `\n${o.base.mode}: server CPU per unit, median of ${o.rounds} rounds (× ${first.label}: median of each round's ratio)`,
    );
    for (const e of entries) {
      const ratios = e.figures.map((f, i) => f / first.figures[i]!);
      console.log(
        `  ${e.label.padEnd(22)} ${median(e.figures).toFixed(3).padStart(8)} ${unit}   × ${median(ratios).toFixed(2)} (${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)})   ${median(e.rates).toFixed(1)} ${o.base.mode === "episodes" ? "episodes/s" : "MB/s"}`,
      );
    }
    if (o.base.cpuProf) {
      fs.writeFileSync(path.join(o.base.cpuProf, "windows.json"), `${JSON.stringify(windows, null, 1)}\n`);
      console.log(`windows: ${path.join(o.base.cpuProf, "windows.json")}`);
    }
  } finally {
    await stop();
  }
}

main().catch((e: unknown) => {
  console.error(`bench:host: ${e instanceof Error ? e.message : String(e)}`);
  process.exit(1);
});
