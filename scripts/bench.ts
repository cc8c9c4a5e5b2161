// `npm run bench`: load an ORS server on loopback and report what it costs.
//   episodes (default): N clients run whole episodes (create_session → create → prompt → call → delete)
//   large:              N clients call bigoutput `dump` for 1 MB results, reassembling the SSE (MB/s)
//   image:              the same with one 1 MB PNG image block per call (scripts/bench-env.ts)
//   idle:               open 10,000 sessions and report the server's RSS before/after
//   --workers N:        `serve --workers N` behind nginx against one process direct, then the relay
//                       on PostgreSQL (scripts/bench-workers.ts)
// Besides throughput and latency it reports the server's own CPU time per episode from /proc (the
// figure that is stable from run to run on a shared 2-core machine; docs/architecture.md "Measuring performance").

import { BenchHttp } from "./bench-http";
import { benchEpisodes, benchIdle, benchLarge, parseConfig, startServer, type Target } from "./bench-load";
import { processExists, type SpawnedServer } from "./bench-proc";

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

main().catch((e: unknown) => {
  console.error(`bench: ${e instanceof Error ? e.message : String(e)}`);
  process.exit(1);
});
