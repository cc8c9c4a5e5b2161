// `npm run bench:runs`: what runs cost (docs/benchmarks.md "Runs").
//   script: N episodes of `math` at concurrency C with a script policy (an oracle reading the task),
//           through the executor — the recording relay, the recorder, the store — then the same
//           loop written directly on the ORS client without recording; on the built-in host in this
//           process, and on a standalone ORS server (scripts/serve.ts) over HTTP. Episodes/s of each,
//           their ratio (goal ≥ 0.7), CPU time per episode (this process, and the server's from
//           /proc), and steps lost (every episode's one step must be in the store: goal 0).
//   model:  M model-policy episodes of `math` against the OpenAI-compatible fixture process
//           (tests/fixtures/model-server) at concurrency C: episodes/s, success rate, tokens.
// Loopback only; the fixture is started and stopped by its process id. Figures are printed, not
// asserted (docs/architecture.md "Measuring performance").
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { allowServerOnlyUnderNode } from "@/lib/app-server/server-only-hook";
import type { OrsClient } from "@/lib/ors/client";
import { type SpawnedServer, spawnStandaloneServe, treeCpuSeconds } from "./bench-proc";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const USAGE = `Usage: npm run bench:runs -- [options]
  --part <p>          all (default) | script | model
  --target <t>        the script part's server: both (default) | local (the built-in host in
                      process) | http (a standalone ORS server, another process)
  --episodes <n>      script episodes (default 1000)
  --model-episodes <n> model episodes (default 200)
  --concurrency <n>   episodes at once (default 32)
  --workers <list>    instead: one run played by 1, 2, 4 ... \`ors-playground worker\` processes on
                      PostgreSQL against a latency-bound server (e.g. 1,2,4; scripts/bench-runs-workers.ts)
  --worker-episodes <n> episodes of that run (default 600); --slots <n>: each worker's (default 16)
  --json              print the figures as one JSON line too`;

const { values } = parseArgs({
  options: {
    part: { type: "string", default: "all" },
    target: { type: "string", default: "both" },
    episodes: { type: "string", default: "1000" },
    "model-episodes": { type: "string", default: "200" },
    concurrency: { type: "string", default: "32" },
    workers: { type: "string" },
    "worker-episodes": { type: "string", default: "600" },
    slots: { type: "string", default: "16" },
    json: { type: "boolean", default: false },
    help: { type: "boolean", default: false },
  },
});
if (values.help) {
  console.log(USAGE);
  process.exit(0);
}
const part = values.part!;
if (!["all", "script", "model"].includes(part)) {
  console.error(USAGE);
  process.exit(2);
}
const EPISODES = Number(values.episodes);
const MODEL_EPISODES = Number(values["model-episodes"]);
const CONCURRENCY = Number(values.concurrency);

await allowServerOnlyUnderNode();
if (values.workers) {
  const { benchWorkers } = await import("./bench-runs-workers");
  const figures = await benchWorkers({
    root: ROOT,
    counts: values.workers.split(",").map(Number),
    episodes: Number(values["worker-episodes"]),
    slots: Number(values.slots),
  });
  if (values.json) console.log(JSON.stringify(figures));
  process.exit(0);
}
const { createPlayground } = await import("@/lib/playground");
const { createOrsClient } = await import("@/lib/ors/client");
const { startModelServer } = await import("../tests/fixtures/model-server/spawn");

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "bench-runs-"));
const oracle = path.join(dir, "oracle.mjs");
fs.writeFileSync(
  oracle,
  `export default async function policy(turn) {
  const task = await turn.task();
  return { tool: "submit", input: { answer: String(task.answer) } };
}
`,
);
// 1,000 episodes of math: the train split's first EPISODES / 2 tasks, twice.
const tasks = `0-${Math.ceil(EPISODES / 2) - 1}`;
const repeats = 2;
const figures: Record<string, unknown> = {};
const cpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

const pg = createPlayground({ PLAYGROUND_DATA_DIR: dir, PLAYGROUND_MODELS: "" }, { scriptRoots: null });
await pg.ready;

/** One comparison: the run through the recorder, then the same loop on the client, both on `target`. */
async function scriptPart(target: "local" | "http") {
  let server: SpawnedServer | null = null;
  let play = pg;
  let name = "local";
  let direct: OrsClient;
  if (target === "http") {
    server = await spawnStandaloneServe(ROOT, "runs-serve");
    const base = server.baseUrl;
    play = createPlayground(
      {
        PLAYGROUND_DATA_DIR: fs.mkdtempSync(path.join(os.tmpdir(), "bench-runs-http-")),
        ORS_SERVERS: `bench=${base}`,
      },
      { scriptRoots: null },
    );
    await play.ready;
    name = "bench";
    direct = createOrsClient({ baseUrl: base });
  } else
    direct = createOrsClient({
      baseUrl: "http://host.internal",
      fetch: (input, init) => pg.host(new Request(input, init)),
    });
  const serverCpu = () => (server ? treeCpuSeconds(server.pid) * 1000 : 0);
  try {
    // Warm up (module loading, the JIT, SQLite's first pages, connections): a short run first.
    const warm = await play.runs.start({
      server: name,
      env: "math",
      split: "test",
      tasks: "0-63",
      concurrency: CONCURRENCY,
      policy: { kind: "script", module: oracle },
    });
    await play.runs.settled(warm.id);

    let cpu = cpuMs();
    let sCpu = serverCpu();
    let t0 = performance.now();
    const run = await play.runs.start({
      server: name,
      env: "math",
      split: "train",
      tasks,
      repeats,
      concurrency: CONCURRENCY,
      policy: { kind: "script", module: oracle },
    });
    await play.runs.settled(run.id);
    const recordedS = (performance.now() - t0) / 1000;
    const recordedCpu = cpuMs() - cpu;
    const recordedServerCpu = serverCpu() - sCpu;
    const eps = await play.store.runEpisodes(run.id);
    let steps = 0;
    for await (const t of play.store.iterate({ run: run.id }))
      steps += t.steps.filter((x) => x.ok !== null).length;
    const done = eps.filter((e) => e.status === "done").length;
    const succeeded = eps.filter((e) => e.reward === 1).length;

    // The same requests, straight on the ORS client: no relay, no recorder, no store.
    const one = async (task: number) => {
      const { sid } = await direct.createSession();
      await direct.create(sid, { env_name: "math", split: "train", index: task });
      await direct.prompt("math", sid);
      await direct.taskTools("math", sid);
      const { task: t } = await direct.task("math", "train", task);
      const r = await direct.callTool("math", sid, { name: "submit", input: { answer: String(t.answer) } });
      await direct.delete(sid);
      return r.ok && r.output.reward === 1;
    };
    for (let i = 0; i < 64; i++) await one(i);
    const keys = eps.map((e) => e.taskIndex);
    cpu = cpuMs();
    sCpu = serverCpu();
    t0 = performance.now();
    let next = 0;
    let directOk = 0;
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (next < keys.length) if (await one(keys[next++]!)) directOk++;
      }),
    );
    const directS = (performance.now() - t0) / 1000;
    const directCpu = cpuMs() - cpu;
    const directServerCpu = serverCpu() - sCpu;

    const f = (x: number, d = 1) => Number(x.toFixed(d));
    const out = {
      episodes: eps.length,
      done,
      succeeded,
      recordedPerS: f(eps.length / recordedS),
      directPerS: f(keys.length / directS),
      ratio: f(eps.length / recordedS / (keys.length / directS), 2),
      recordedCpuMs: f(recordedCpu / eps.length, 2),
      directCpuMs: f(directCpu / keys.length, 2),
      recordedServerCpuMs: f(recordedServerCpu / eps.length, 2),
      directServerCpuMs: f(directServerCpu / keys.length, 2),
      stepsLost: eps.length - steps,
      directSucceeded: directOk,
    };
    figures[`script_${target}`] = out;
    const where =
      target === "http"
        ? "a standalone ORS server over HTTP (scripts/serve.ts, another process)"
        : "the built-in host in this process";
    const serverPart = (ms: number) => (server ? ` + ${ms} ms in the server` : "");
    console.log(
      `script policy, ${eps.length} episodes of math at concurrency ${CONCURRENCY} on ${where}:\n` +
        `  through the recorder: ${out.recordedPerS} episodes/s (${recordedS.toFixed(1)} s), CPU ${out.recordedCpuMs} ms/episode${serverPart(out.recordedServerCpuMs)}; ${done} done, ${succeeded} succeeded\n` +
        `  direct on the client, nothing recorded: ${out.directPerS} episodes/s (${directS.toFixed(1)} s), CPU ${out.directCpuMs} ms/episode${serverPart(out.directServerCpuMs)}; ${directOk} succeeded\n` +
        `  ratio ${out.ratio} (goal ≥ 0.7); steps lost ${out.stepsLost} (goal 0)`,
    );
  } finally {
    if (play !== pg) await play.close();
    await server?.stop();
  }
}

async function modelPart() {
  const model = await startModelServer();
  const models = createPlayground(
    {
      PLAYGROUND_DATA_DIR: fs.mkdtempSync(path.join(os.tmpdir(), "bench-runs-model-")),
      PLAYGROUND_MODELS: `fixture=${model.baseUrl}`,
    },
    { scriptRoots: null },
  );
  try {
    const t0 = performance.now();
    const run = await models.runs.start({
      server: "local",
      env: "math",
      split: "test",
      tasks: `0-${Math.min(200, MODEL_EPISODES) - 1}`,
      repeats: Math.ceil(MODEL_EPISODES / 200),
      concurrency: CONCURRENCY,
      policy: { kind: "model", endpoint: "fixture", model: "oracle" },
    });
    await models.runs.settled(run.id);
    const s = (performance.now() - t0) / 1000;
    const eps = await models.store.runEpisodes(run.id);
    const tokens = eps.reduce((n, e) => n + (e.promptTokens ?? 0) + (e.completionTokens ?? 0), 0);
    figures.modelEpisodes = eps.length;
    figures.modelEpisodesPerS = Number((eps.length / s).toFixed(1));
    figures.modelSuccess = eps.filter((e) => e.reward === 1).length;
    figures.modelErrored = eps.filter((e) => e.status === "errored").length;
    figures.modelChatRequests = Object.values((await model.stats()).chat).reduce((a, b) => a + b, 0);
    console.log(
      `model policy, ${eps.length} episodes of math against the fixture at concurrency ${CONCURRENCY}:\n` +
        `  ${figures.modelEpisodesPerS} episodes/s (${s.toFixed(1)} s), ${figures.modelSuccess} succeeded, ${figures.modelErrored} errored, ` +
        `${figures.modelChatRequests} chat requests, ${Math.round(tokens / Math.max(1, eps.length))} tokens/episode`,
    );
  } finally {
    await models.close();
    await model.stop();
  }
}

console.log(`bench:runs on ${os.cpus().length} CPUs, Node ${process.version}`);
try {
  if (part === "all" || part === "script") {
    if (values.target !== "http") await scriptPart("local");
    if (values.target !== "local") await scriptPart("http");
  }
  if (part === "all" || part === "model") await modelPart();
  if (values.json) console.log(JSON.stringify(figures));
} finally {
  await pg.close();
  fs.rmSync(dir, { recursive: true, force: true });
}
