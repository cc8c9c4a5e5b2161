// `npm run bench:runs -- --workers 1,2,4` (docs/benchmarks.md "Runs over workers"): one run of N
// episodes of `math` played by 1, 2, then 4 `ors-playground worker` processes on a throwaway
// PostgreSQL cluster, against a latency-bound server (tests/runs/latency-proxy.ts: 50–200 ms more on
// every /create and /call, in front of the standalone host), its session cap above the load.
// Prints episodes/s for each worker count (enqueue to done), and its ratio to one worker's.
// Everything on loopback, stopped by its process id; figures printed, not asserted.
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { startLatencyProxy } from "../tests/runs/latency-proxy";
import { startPostgresCluster } from "../tests/support/postgres";
import { spawnStandaloneServe } from "./bench-proc";

export interface WorkersBenchOptions {
  root: string;
  counts: number[];
  episodes: number;
  /** Episodes one worker plays at once. */
  slots: number;
}

/** Starts a worker process; resolves once it says it plays, with its stop. */
async function startWorker(root: string, env: Record<string, string>, slots: number) {
  const child = spawn(process.execPath, ["bin/ors-playground.mjs", "worker", "--slots", String(slots)], {
    cwd: root,
    env: {
      ...process.env,
      ...env,
      PLAYGROUND_DATA_DIR: fs.mkdtempSync(path.join(os.tmpdir(), "bench-worker-")),
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  await new Promise<void>((resolve, reject) => {
    let out = "";
    child.stdout.on("data", (d: Buffer) => {
      out += d.toString();
      if (/playing runs from/.test(out)) resolve();
    });
    child.once("exit", (code) => reject(new Error(`a worker exited with ${code} before playing`)));
  });
  return async () => {
    const exited = new Promise((r) => child.once("exit", r));
    process.kill(child.pid!, "SIGTERM");
    await Promise.race([exited, new Promise((r) => setTimeout(r, 15_000))]);
    if (child.exitCode === null) process.kill(child.pid!, "SIGKILL");
  };
}

export async function benchWorkers(o: WorkersBenchOptions): Promise<Record<string, unknown>> {
  const say = (m: string) => console.error(`[bench:runs --workers] ${m}`);
  const cluster = await startPostgresCluster({ log: (m) => console.error(`[postgres] ${m}`) });
  say(`PostgreSQL on port ${cluster.port}`);
  const host = await spawnStandaloneServe(o.root, "workers-serve");
  const base = host.baseUrl;
  const proxy = await startLatencyProxy(base);
  say(`the host at ${base}, behind the latency proxy at ${proxy.url}`);
  const oracle = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "bench-workers-")), "oracle.mjs");
  fs.writeFileSync(
    oracle,
    'export default async function policy(turn) {\n  const task = await turn.task();\n  return { tool: "submit", input: { answer: String(task.answer) } };\n}\n',
  );
  const figures: Record<string, unknown> = {};
  try {
    const { createPlayground } = await import("@/lib/playground");
    for (const n of o.counts) {
      const url = await cluster.createDatabase(`bench_workers_${n}`);
      const env = {
        PLAYGROUND_DATABASE_URL: url,
        ORS_SERVERS: `lat=${proxy.url}`,
        ORS_SERVER_MAX_SESSIONS_LAT: "10000",
        PLAYGROUND_AUTH: "none",
        // The oracle's folder: a worker loads scripts from its allowed folders only.
        PLAYGROUND_SCRIPT_ROOTS: path.dirname(oracle),
      };
      // The database migrated once, by the process that enqueues (it plays nothing).
      const pg = createPlayground(
        { ...env, PLAYGROUND_DATA_DIR: fs.mkdtempSync(path.join(os.tmpdir(), "bench-enqueue-")) },
        { runWorker: false, scriptRoots: null },
      );
      await pg.ready;
      say(`${n} worker(s) starting`);
      const stops = await Promise.all(Array.from({ length: n }, () => startWorker(o.root, env, o.slots)));
      try {
        say(`${n} worker(s) playing`);
        const started = Date.now();
        const run = await pg.runs.start({
          server: "lat",
          env: "math",
          split: "train",
          tasks: `0-${o.episodes - 1}`,
          concurrency: 256,
          policy: { kind: "script", module: oracle },
        });
        const why = setInterval(async () => {
          const p = await pg.runs.placement((await pg.store.getRun(run.id))!).catch(() => null);
          if (p?.waiting) say(`waiting: ${p.waiting}`);
        }, 10_000);
        const ended = await pg.runs.settled(run.id).finally(() => clearInterval(why));
        const seconds = (Date.now() - started) / 1000;
        const a = await pg.store.runAggregates(run.id, { successAt: 1, histogramBins: 10 });
        figures[`workers${n}`] = {
          status: ended?.status,
          episodes: a.counts.done,
          seconds: Number(seconds.toFixed(2)),
          episodesPerSecond: Number((a.counts.done / seconds).toFixed(2)),
          mostSessions: proxy.sessions().most,
        };
        console.log(
          `${n} worker${n === 1 ? "" : "s"} × ${o.slots} slots: ${a.counts.done} episodes in ${seconds.toFixed(1)} s = ${(a.counts.done / seconds).toFixed(1)} episodes/s`,
        );
      } finally {
        await Promise.all(stops.map((s) => s()));
        await pg.close();
      }
    }
    const one = (figures.workers1 as { episodesPerSecond?: number } | undefined)?.episodesPerSecond;
    if (one)
      for (const n of o.counts)
        console.log(
          `  ${n}: ${((figures[`workers${n}`] as { episodesPerSecond: number }).episodesPerSecond / one).toFixed(2)}× one worker`,
        );
    return figures;
  } finally {
    await proxy.close();
    await host.stop();
    await cluster.stop();
  }
}
