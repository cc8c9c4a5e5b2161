// The speed parts of `npm run bench:relay` (docs/benchmarks.md "Relay"): what a small relayed and
// recorded call costs the app in CPU, and how long it waits.
//   calls:    C clients, each with its own session, call `dice`'s `echo` (a small SSE answer) through
//             /api/servers/<server>/ for a while; then the very same calls on /api/ors (the host,
//             no relay, nothing recorded). Printed: calls/s, p50/p99, and the app's CPU per call
//             (user + system of its process tree from /proc, from the measured window until the
//             app is idle again: work left for later, such as the recorder catching up, counts).
//   sessions: the same relayed calls from 256 sessions at once.
//   large:    the same small calls while eight clients stream 4 MiB `bigoutput` results through the
//             relay: the small calls' p50/p99 (goal: p99 under 500 ms) and the app's CPU.
//   outside:  as measured from outside the app: 64 sessions × 20 small calls each, all at once, on
//             /api/servers/<server> then on /api/ors; the app's CPU from the first call until it is
//             idle again (the recorder's writes included) per call, and the steps the store then holds.
// Loopback only; figures are printed, not asserted (docs/architecture.md "Measuring performance").
import { BenchHttp, reassembleCall } from "./bench-http";
import { treeCpuSeconds } from "./bench-proc";

export interface SpeedConfig {
  /** Clients of the `calls` part, small-call clients of the `large` part. */
  clients: number;
  /** The `outside` part: sessions calling at once, and calls each makes. */
  outsideSessions: number;
  outsideCalls: number;
  /** Sessions of the `sessions` part. */
  sessions: number;
  /** Clients streaming large results in the `large` part, and the size of each result. */
  largeClients: number;
  largeSize: number;
  warmup: number;
  duration: number;
}

export interface CallFigures {
  label: string;
  calls: number;
  failures: number;
  callsPerS: number;
  p50Ms: number;
  p99Ms: number;
  /** The app's CPU (its process tree) over the measured window, per small call. */
  cpuMsPerCall: number;
  /** Large results delivered meanwhile (the `large` part). */
  largeResults?: number;
  largeMbPerS?: number;
  lastError?: string;
}

const MB = 1024 * 1024;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The process tree's CPU seconds once it is idle (under 5 % of a core for 300 ms; 20 s at most). */
async function idleCpu(pid: number): Promise<number> {
  const until = performance.now() + 20_000;
  let last = treeCpuSeconds(pid);
  while (performance.now() < until) {
    await sleep(300);
    const now = treeCpuSeconds(pid);
    if (now - last < 0.015) return now;
    last = now;
  }
  return last;
}

function percentile(sorted: number[], p: number): number {
  if (!sorted.length) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

interface Load {
  /** The base URL of an ORS server: `<app>/api/servers/<name>` or `<app>/api/ors`. */
  base: string;
  headers: Record<string, string>;
  clients: number;
  large?: { clients: number; size: number };
}

/**
 * Runs `clients` sessions calling `echo` (and optionally large `dump`s beside them) for warm-up +
 * duration seconds; measures calls, latencies and the app's CPU in the window after the warm-up.
 */
async function measure(
  label: string,
  appPid: number,
  load: Load,
  cfg: Pick<SpeedConfig, "warmup" | "duration">,
): Promise<CallFigures> {
  const sockets = load.clients + (load.large?.clients ?? 0);
  const http = new BenchHttp(new URL(load.base), sockets, undefined, load.headers);
  let lastError = "";
  const open = async (env: string) => {
    const created = await http.request("POST", "/create_session");
    const sid = (JSON.parse(created.body) as { sid: string }).sid;
    const r = await http.request("POST", "/create", {
      sid,
      json: { env_name: env, split: "train", index: 0 },
    });
    if (r.status !== 200) throw new Error(`/create on ${env}: HTTP ${r.status} ${r.body.slice(0, 200)}`);
    return sid;
  };
  // Sessions first (not measured): the figure is the calls'.
  const small = await Promise.all(Array.from({ length: load.clients }, () => open("dice")));
  const big = await Promise.all(Array.from({ length: load.large?.clients ?? 0 }, () => open("bigoutput")));

  const start = performance.now();
  const measureFrom = start + cfg.warmup * 1000;
  const deadline = measureFrom + cfg.duration * 1000;
  let cpuBefore = 0;
  const marks = (async () => {
    await sleep(cfg.warmup * 1000);
    cpuBefore = treeCpuSeconds(appPid);
  })();
  const latencies: number[] = [];
  let calls = 0;
  let failures = 0;
  let largeResults = 0;
  let largeBytes = 0;
  const smallClient = async (sid: string, n: number) => {
    let i = 0;
    while (performance.now() < deadline) {
      const t0 = performance.now();
      try {
        const res = await http.request("POST", "/dice/call", {
          sid,
          json: { name: "echo", input: { text: `call ${n}.${i++}` } },
          accept: "text/event-stream",
          timeoutMs: 60_000,
        });
        const t1 = performance.now();
        const r = reassembleCall(res.body);
        const ok = res.status === 200 && r.json !== undefined;
        if (t0 >= measureFrom) {
          if (ok) {
            calls++;
            latencies.push(t1 - t0);
          } else failures++;
        }
        if (!ok) lastError = `HTTP ${res.status} ${r.error ?? res.body.slice(0, 200)}`;
      } catch (err) {
        failures++;
        lastError = (err as Error).message;
      }
    }
  };
  const largeClient = async (sid: string) => {
    while (performance.now() < deadline) {
      try {
        const res = await http.request("POST", "/bigoutput/call", {
          sid,
          json: { name: "dump", input: { size: load.large!.size } },
          accept: "text/event-stream",
          timeoutMs: 120_000,
        });
        if (performance.now() >= measureFrom) {
          largeBytes += res.bytes;
          if (res.status === 200) largeResults++;
        }
      } catch (err) {
        lastError = `large: ${(err as Error).message}`;
      }
    }
  };
  await Promise.all([
    ...small.map((sid, n) => smallClient(sid, n)),
    ...big.map((sid) => largeClient(sid)),
    marks,
  ]);
  // The work the calls caused but the app did later (the recorder catching up) counts too: the CPU
  // is read once the app is idle again.
  const measuredFor = (performance.now() - measureFrom) / 1000;
  const cpuAfter = await idleCpu(appPid);
  for (const sid of [...small, ...big]) await http.request("POST", "/delete", { sid }).catch(() => {});
  http.close();
  latencies.sort((a, b) => a - b);
  return {
    label,
    calls,
    failures,
    callsPerS: calls / measuredFor,
    p50Ms: percentile(latencies, 50),
    p99Ms: percentile(latencies, 99),
    cpuMsPerCall: calls ? ((cpuAfter - cpuBefore) * 1000) / calls : Number.NaN,
    ...(load.large ? { largeResults, largeMbPerS: largeBytes / MB / measuredFor } : {}),
    ...(lastError ? { lastError } : {}),
  };
}

/**
 * Sessions calling `echo` `calls` times each, all at once (after their sessions are open); the app's
 * CPU from the first call until it is idle again. `counted`: how many steps the store then holds for
 * these sessions (relayed calls only), read through the trajectories API.
 */
async function outside(
  label: string,
  app: { pid: number; baseUrl: string },
  base: string,
  headers: Record<string, string>,
  sessions: number,
  calls: number,
  countSteps: boolean,
): Promise<CallFigures & { stepsStored?: number }> {
  const http = new BenchHttp(new URL(base), sessions, undefined, headers);
  const sids = await Promise.all(
    Array.from({ length: sessions }, async () => {
      const sid = (JSON.parse((await http.request("POST", "/create_session")).body) as { sid: string }).sid;
      const r = await http.request("POST", "/create", {
        sid,
        json: { env_name: "dice", split: "train", index: 0 },
      });
      if (r.status !== 200) throw new Error(`/create: HTTP ${r.status} ${r.body.slice(0, 200)}`);
      return sid;
    }),
  );
  const latencies: number[] = [];
  let failures = 0;
  let lastError = "";
  const cpuBefore = treeCpuSeconds(app.pid);
  const start = performance.now();
  await Promise.all(
    sids.map(async (sid, n) => {
      for (let i = 0; i < calls; i++) {
        const t0 = performance.now();
        const res = await http.request("POST", "/dice/call", {
          sid,
          json: { name: "echo", input: { text: `call ${n}.${i}` } },
          accept: "text/event-stream",
          timeoutMs: 60_000,
        });
        if (res.status === 200 && reassembleCall(res.body).json !== undefined)
          latencies.push(performance.now() - t0);
        else {
          failures++;
          lastError = `HTTP ${res.status} ${res.body.slice(0, 200)}`;
        }
      }
    }),
  );
  const seconds = (performance.now() - start) / 1000;
  const cpuAfter = await idleCpu(app.pid);
  let stepsStored: number | undefined;
  if (countSteps) {
    const api = new BenchHttp(new URL(`${app.baseUrl}/api`), 1, undefined, headers);
    const listed = await api.request("GET", `/trajectories?server=local&limit=${sessions * 4}`);
    const mine = new Set(sids);
    stepsStored = (JSON.parse(listed.body) as { items: { sid: string; num_steps: number }[] }).items
      .filter((t) => mine.has(t.sid))
      .reduce((n, t) => n + t.num_steps, 0);
    api.close();
  }
  for (const sid of sids) await http.request("POST", "/delete", { sid }).catch(() => {});
  http.close();
  latencies.sort((a, b) => a - b);
  return {
    label,
    calls: latencies.length,
    failures,
    callsPerS: latencies.length / seconds,
    p50Ms: percentile(latencies, 50),
    p99Ms: percentile(latencies, 99),
    cpuMsPerCall: ((cpuAfter - cpuBefore) * 1000) / Math.max(1, latencies.length),
    ...(stepsStored !== undefined ? { stepsStored } : {}),
    ...(lastError ? { lastError } : {}),
  };
}

function print(f: CallFigures): void {
  const large =
    f.largeResults !== undefined
      ? `; meanwhile ${f.largeResults} large results (${f.largeMbPerS!.toFixed(1)} MB/s)`
      : "";
  console.log(
    `  ${f.label.padEnd(44)} ${String(f.calls).padStart(6)} calls (${f.failures} failed)  ${f.callsPerS.toFixed(0).padStart(5)}/s  ` +
      `p50 ${f.p50Ms.toFixed(1).padStart(6)} ms  p99 ${f.p99Ms.toFixed(1).padStart(7)} ms  CPU ${f.cpuMsPerCall.toFixed(3)} ms/call${large}`,
  );
  if (f.lastError) console.log(`      last failure: ${f.lastError}`);
}

/** The speed parts: `which` of calls, sessions, large. Returns their figures by name. */
export async function runSpeed(
  which: ReadonlySet<"calls" | "sessions" | "large" | "outside">,
  cfg: SpeedConfig,
  app: { pid: number; baseUrl: string },
  server: string,
  headers: Record<string, string>,
): Promise<Record<string, CallFigures>> {
  const relayed = `${app.baseUrl}/api/servers/${server}`;
  const direct = `${app.baseUrl}/api/ors`;
  const out: Record<string, CallFigures> = {};
  const run = async (key: string, label: string, load: Load) => {
    out[key] = await measure(label, app.pid, load, cfg);
    print(out[key]!);
  };
  console.log(
    `\nsmall calls (dice echo, SSE), ${cfg.warmup} s warm-up then ${cfg.duration} s measured; app CPU from /proc/${app.pid}`,
  );
  if (which.has("calls")) {
    await run("relayed", `relayed + recorded (steps/s = calls/s), ${cfg.clients} sessions`, {
      base: relayed,
      headers,
      clients: cfg.clients,
    });
    await run("direct", `/api/ors direct, ${cfg.clients} sessions`, {
      base: direct,
      headers,
      clients: cfg.clients,
    });
  }
  if (which.has("sessions"))
    await run("sessions", `relayed + recorded, ${cfg.sessions} sessions`, {
      base: relayed,
      headers,
      clients: cfg.sessions,
    });
  if (which.has("large"))
    await run(
      "underLarge",
      `relayed, ${cfg.clients} sessions + ${cfg.largeClients}×${(cfg.largeSize / MB).toFixed(0)} MiB`,
      {
        base: relayed,
        headers,
        clients: cfg.clients,
        large: { clients: cfg.largeClients, size: cfg.largeSize },
      },
    );
  if (which.has("outside")) {
    const n = `${cfg.outsideSessions} sessions × ${cfg.outsideCalls} calls`;
    if (process.env.BENCH_OUTSIDE_COLD !== "1") {
      // A round of each first, not measured: the app's first requests load and compile its modules.
      await outside("warm-up", app, relayed, headers, cfg.outsideSessions, cfg.outsideCalls, false);
      await outside("warm-up", app, direct, headers, cfg.outsideSessions, cfg.outsideCalls, false);
    }
    const relayedOut = await outside(
      `outside: relayed + recorded, ${n}`,
      app,
      relayed,
      headers,
      cfg.outsideSessions,
      cfg.outsideCalls,
      true,
    );
    out.outsideRelayed = relayedOut;
    print(relayedOut);
    out.outsideDirect = await outside(
      `outside: /api/ors direct, ${n}`,
      app,
      direct,
      headers,
      cfg.outsideSessions,
      cfg.outsideCalls,
      false,
    );
    print(out.outsideDirect);
    console.log(
      `  outside: ${relayedOut.stepsStored} steps in the store for ${relayedOut.calls} answered calls; relay / direct ${(relayedOut.cpuMsPerCall / out.outsideDirect.cpuMsPerCall).toFixed(1)}× the CPU per call; goal ≤ 1 ms per recorded call: ${relayedOut.cpuMsPerCall <= 1 ? "met" : "NOT met"}`,
    );
  }
  const r = out.relayed;
  const d = out.direct;
  if (r && d)
    console.log(
      `  relay / direct: ${(r.cpuMsPerCall / d.cpuMsPerCall).toFixed(1)}× the CPU per call; goal ≤ 1 ms per relayed call: ${r.cpuMsPerCall <= 1 ? "met" : "NOT met"}`,
    );
  if (out.underLarge)
    console.log(
      `  small calls under large outputs: p99 ${out.underLarge.p99Ms.toFixed(0)} ms; goal < 500 ms: ${out.underLarge.p99Ms < 500 ? "met" : "NOT met"}`,
    );
  return out;
}
