import {
  BenchError,
  benchEpisodes,
  type Config,
  callTool,
  fmt,
  mb,
  openSession,
  parseConfig,
  runLoad,
  Stats,
  startServer,
  type Target,
} from "./bench-episodes";
import { BenchHttp } from "./bench-http";
import { processExists, type SpawnedServer, treeCpuSeconds, treeRssBytes } from "./bench-proc";

async function benchLarge(target: Target, cfg: Config): Promise<Record<string, unknown>> {
  const stats = new Stats();
  // One session per client, opened before the clock starts; each client then calls `dump` in a loop.
  const sids = await Promise.all(
    Array.from({ length: cfg.clients }, () => openSession(target.http, stats, cfg.env, cfg.split, 0)),
  );
  const image = cfg.mode === "image";
  const tool = cfg.tool ?? (image ? "png" : "dump");
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
  console.log(
    `\n${target.label} — ${image ? "image" : "large"} outputs (${cfg.env} ${tool} ${JSON.stringify(input)}), ${cfg.clients} clients`,
  );
  console.log(
    `  MB/s (SSE bytes) ${fmt(result.mbPerSec)}   (${stats.toolCalls} calls, ${fmt(mb(stats.bytes))} MB in ${fmt(w.seconds, 2)} s)`,
  );
  console.log(`  call latency     p50 ${fmt(result.callP50Ms, 2)} ms   p99 ${fmt(result.callP99Ms, 2)} ms`);
  console.log(`  errors           ${stats.errors}`);
  for (const e of stats.errorSamples) console.log(`    ${e}`);
  if (result.serverCpuMsPerMb !== null)
    console.log(
      `  server CPU       ${fmt(result.serverCpuMsPerMb, 2)} ms/MB   (${fmt(result.serverCpuCores ?? Number.NaN, 2)} cores busy)`,
    );
  console.log(`  load generator   ${fmt(result.benchCpuCores, 2)} cores busy`);
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
