// `run <server-url> --env NAME --split NAME [...]`: a policy plays a split from the command line
// (docs/runs.md "CLI"), through the same executor as the app, recording into the store the app uses
// (PLAYGROUND_DATA_DIR, or PLAYGROUND_DATABASE_URL), so the run shows in the playground. A progress
// bar on a terminal, a plain summary otherwise; `--json` writes the summary, `--junit` a test case
// per task. Exit code 0 when done (and at or above --min-success), 1 below it, 2 when it cannot run.
import fs from "node:fs";
import path from "node:path";
import type { Playground } from "@/lib/playground";
import { createServerRegistry, invalidServerName } from "@/lib/registry";
import type { ServerPersistence } from "@/lib/registry/persistence";
import { isRunError } from "@/lib/runs/errors";
import { formatDuration, formatRange } from "@/lib/runs/format";
import { MAX_ATTEMPTS_LIMIT, type RunPolicy } from "@/lib/runs/spec";
import { buildSummary, HISTOGRAM_BINS, type RunSummary, runConfigOf } from "@/lib/runs/summary";
import { parseArgs, parseDuration, UsageError } from "./args";
import type { CommandIo } from "./io";
import { type JUnitCase, junitXml } from "./junit";
import { defaultDataDir } from "./start-command";

export const RUN_USAGE = `usage: run <server-url> --env NAME --split NAME [options]

Plays a split of an environment with a policy — a model, random inputs, a replay, your script —
recording every episode into the playground's store (the run shows in the app), and prints the
results: success rate, mean reward with its 95% interval, pass@k, errors.

options:
  --env NAME             the environment
  --split NAME           the split
  --tasks SEL            all (default), a range 0-19, a list 1,5,9 or 0-9,20-29, or sample:N[:SEED]
  --repeats K            attempts per task (default 1; pass@k for k = 1..K)
  --concurrency N        episodes played at once (default 4)
  --policy KIND          model (default with --model), random, replay or script
  --model-url URL        an OpenAI-compatible endpoint, e.g. http://127.0.0.1:8000/v1
  --model-endpoint NAME  or an endpoint configured in PLAYGROUND_MODELS
  --model ID             the model, e.g. gpt-4o-mini
  --api-key-env VAR      the variable holding the endpoint's key (read when sent; never stored)
  --temperature T        the model's temperature
  --stream               ask the model for streamed answers
  --script FILE          the policy module of --policy script
  --replay ID            the run (or one trajectory) --policy replay plays again
  --seed N               the seed of --policy random (default 1)
  --max-turns N          turns per episode (default: model 30, random 10, script 100)
  --success-at R         an episode succeeds when it finished with a reward ≥ R (default 1)
  --timeout DURATION     the time limit of one episode (default 10m)
  --max-attempts N       attempts per episode when infrastructure fails under it (env_error,
                         model_error, timeout; default 3): never scored 0
  --min-success RATE     exit 1 when the success rate is below RATE (0-1)
  --json FILE            write the summary as JSON (with runId); - for stdout
  --junit FILE           write a JUnit XML report: one test case per task, failed tasks marked
  --api-key KEY          sent to the ORS server as X-API-Key (default: $ORS_API_KEY)
  --data-dir DIR         the playground's data folder (default $PLAYGROUND_DATA_DIR, else the
                         per-user folder \`ors-playground start\` uses)
  -h, --help             this help

The server is named as the playground knows it: a configured or added server with that URL keeps
its name; another one on this machine is added (named after its host and port), so the app can
open, replay and fork the run's episodes. With PLAYGROUND_DATABASE_URL set, the run is recorded in
that PostgreSQL database (and the server added there), as the app's replicas keep theirs.
Durations: 30000, 30s, 10m.
Exit code: 0 when the run is done (and at or above --min-success), 1 below it (or when the run did
not finish), 2 when it cannot run (a mistake on the command line, the server unreachable, an
unknown environment or split).
`;

export interface RunArgs {
  url: string;
  env: string;
  split: string;
  tasks?: string;
  repeats?: number;
  concurrency?: number;
  successAt?: number;
  timeoutMs?: number;
  maxAttempts?: number;
  policy: RunPolicy;
  minSuccess?: number;
  json: string | null;
  junit: string | null;
  apiKey?: string;
  dataDir: string;
}

function number(
  args: ReturnType<typeof parseArgs>,
  flag: string,
  o: { int?: boolean; min?: number; max?: number } = {},
) {
  const raw = args.values.get(flag);
  if (raw === undefined) return undefined;
  const n = Number(raw);
  if (
    raw.trim() === "" ||
    !Number.isFinite(n) ||
    (o.int && !Number.isInteger(n)) ||
    (o.min !== undefined && n < o.min) ||
    (o.max !== undefined && n > o.max)
  )
    throw new UsageError(
      `${flag}: expected ${o.int ? "an integer" : "a number"}${o.min !== undefined ? ` ≥ ${o.min}` : ""}${o.max !== undefined ? ` ≤ ${o.max}` : ""}, got ${JSON.stringify(raw)}`,
    );
  return n;
}

function httpUrl(value: string, what: string): string {
  let u: URL;
  try {
    u = new URL(value);
  } catch {
    throw new UsageError(`${what}: not a URL: ${JSON.stringify(value)} (e.g. http://127.0.0.1:8080)`);
  }
  if (u.protocol !== "http:" && u.protocol !== "https:")
    throw new UsageError(`${what}: the URL must be http:// or https://`);
  if (u.username || u.password) throw new UsageError(`${what}: the URL must not carry credentials`);
  u.hash = "";
  u.search = "";
  return u.toString().replace(/\/+$/, "");
}

/** Parses the command line; throws UsageError. Null for --help. */
export function parseRunArgs(
  argv: readonly string[],
  env: Record<string, string | undefined>,
): RunArgs | null {
  const args = parseArgs(argv, {
    values: [
      "--env",
      "--split",
      "--tasks",
      "--repeats",
      "--concurrency",
      "--policy",
      "--model-url",
      "--model-endpoint",
      "--model",
      "--api-key-env",
      "--temperature",
      "--script",
      "--replay",
      "--seed",
      "--max-turns",
      "--success-at",
      "--timeout",
      "--max-attempts",
      "--min-success",
      "--json",
      "--junit",
      "--api-key",
      "--data-dir",
    ],
    booleans: ["--stream", "--help"],
    aliases: { "-h": "--help" },
  });
  if (args.booleans.has("--help")) return null;
  if (args.positionals.length !== 1)
    throw new UsageError(
      args.positionals.length
        ? `one server URL, not ${args.positionals.length}`
        : "give the server's URL, e.g. run http://127.0.0.1:8080 --env math --split test",
    );
  const url = httpUrl(args.positionals[0]!, "the server");
  const need = (flag: string) => {
    const v = args.values.get(flag);
    if (!v?.trim()) throw new UsageError(`${flag} is required`);
    return v.trim();
  };
  const maxTurns = number(args, "--max-turns", { int: true, min: 1, max: 1000 });
  const model = args.values.get("--model");
  const kind = args.values.get("--policy") ?? (model ? "model" : undefined);
  if (!kind) throw new UsageError("give --policy model|random|replay|script (or --model for a model)");
  const only = (flags: string[], policy: string) => {
    for (const f of flags)
      if (args.values.has(f) && kind !== policy) throw new UsageError(`${f} goes with --policy ${policy}`);
  };
  only(["--model-url", "--model-endpoint", "--api-key-env", "--temperature"], "model");
  if (args.booleans.has("--stream") && kind !== "model")
    throw new UsageError("--stream goes with --policy model");
  only(["--script"], "script");
  only(["--replay"], "replay");
  only(["--seed"], "random");
  let policy: RunPolicy;
  switch (kind) {
    case "model": {
      if (!model) throw new UsageError("--policy model needs --model ID");
      const urlFlag = args.values.get("--model-url");
      const named = args.values.get("--model-endpoint");
      if (!urlFlag === !named)
        throw new UsageError("give the model's endpoint: --model-url URL or --model-endpoint NAME");
      const temperature = number(args, "--temperature", { min: 0, max: 2 });
      const common = {
        model,
        ...(maxTurns ? { maxTurns } : {}),
        ...(temperature !== undefined ? { temperature } : {}),
        ...(args.booleans.has("--stream") ? { stream: true } : {}),
      };
      const keyVar = args.values.get("--api-key-env");
      if (keyVar !== undefined && !/^[A-Za-z_][A-Za-z0-9_]*$/.test(keyVar))
        throw new UsageError(`--api-key-env: the name of a variable, got ${JSON.stringify(keyVar)}`);
      if (keyVar !== undefined && !env[keyVar])
        throw new UsageError(`--api-key-env ${keyVar}: $${keyVar} is not set`);
      policy = urlFlag
        ? {
            kind: "model",
            endpoint: "cli",
            baseUrl: httpUrl(urlFlag, "--model-url"),
            apiKeyEnv: keyVar ?? null,
            ...common,
          }
        : { kind: "model", endpoint: named!, ...common };
      if (named && keyVar)
        throw new UsageError(
          "--api-key-env goes with --model-url (a configured endpoint's key is PLAYGROUND_MODEL_API_KEY_<NAME>)",
        );
      break;
    }
    case "random":
      policy = {
        kind: "random",
        seed: number(args, "--seed", { int: true }) ?? 1,
        ...(maxTurns ? { maxTurns } : {}),
      };
      break;
    case "script":
      policy = { kind: "script", module: path.resolve(need("--script")), ...(maxTurns ? { maxTurns } : {}) };
      break;
    case "replay":
      // A run's id or a trajectory's: which one is known once the store is open (runCommand).
      policy = { kind: "replay", run: need("--replay"), ...(maxTurns ? { maxTurns } : {}) };
      break;
    default:
      throw new UsageError(`--policy: model, random, replay or script, not ${JSON.stringify(kind)}`);
  }
  if (model && kind !== "model") throw new UsageError("--model goes with --policy model");
  const file = (flag: string) => {
    const v = args.values.get(flag);
    if (v === undefined) return null;
    if (!v.trim()) throw new UsageError(`${flag}: empty file name`);
    if (v !== "-" && !fs.existsSync(path.dirname(path.resolve(v))))
      throw new UsageError(`${flag}: the folder ${path.dirname(path.resolve(v))} does not exist`);
    return v;
  };
  const timeout = args.values.get("--timeout");
  return {
    url,
    env: need("--env"),
    split: need("--split"),
    tasks: args.values.get("--tasks"),
    repeats: number(args, "--repeats", { int: true, min: 1, max: 100 }),
    concurrency: number(args, "--concurrency", { int: true, min: 1, max: 256 }),
    successAt: number(args, "--success-at"),
    timeoutMs: timeout === undefined ? undefined : parseDuration(timeout, "--timeout"),
    maxAttempts: number(args, "--max-attempts", { int: true, min: 1, max: MAX_ATTEMPTS_LIMIT }),
    policy,
    minSuccess: number(args, "--min-success", { min: 0, max: 1 }),
    json: file("--json"),
    junit: file("--junit"),
    apiKey: args.values.get("--api-key") ?? env.ORS_API_KEY ?? undefined,
    dataDir: path.resolve(args.values.get("--data-dir") ?? env.PLAYGROUND_DATA_DIR ?? defaultDataDir(env)),
  };
}

/** A server name from a URL's host and port: `127-0-0-1-8080`, `localhost-3000`. */
export function serverNameOf(url: string): string {
  const u = new URL(url);
  const port = u.port || (u.protocol === "https:" ? "443" : "80");
  const base = `${u.hostname.replace(/^\[|\]$/g, "")}-${port}${u.pathname === "/" ? "" : `-${u.pathname}`}`
    .toLowerCase()
    .replace(/[^a-z0-9_-]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 32);
  return invalidServerName(base) ? `srv-${base}`.slice(0, 32) : base;
}

/**
 * The name the playground knows the server by: a known server with that URL keeps its name;
 * otherwise one is made from its host and port and, on this machine, added to the playground's
 * servers (the data folder's, or the database's with PLAYGROUND_DATABASE_URL: the app then opens
 * its episodes); a remote one is known to this process only. (`check --quality` names its server
 * the same way.)
 */
export async function knownName(
  a: Pick<RunArgs, "url" | "dataDir">,
  env: Record<string, string | undefined>,
): Promise<{ name: string; added: boolean; envOnly: string | null }> {
  // The database's added servers, when the store is there (loaded only then: `pg` and its pool).
  const { databaseUrlFrom, openPostgresDatabase } = await import("@/lib/store/postgres/db");
  const url = databaseUrlFrom(env);
  const db = url ? openPostgresDatabase(url, { poolSize: 1 }) : null;
  try {
    let persistence: ServerPersistence | undefined;
    if (db) {
      await db.ready;
      persistence = (await import("@/lib/registry/postgres-persistence")).postgresServerPersistence(
        db,
        a.dataDir,
      );
    }
    const registry = createServerRegistry({
      dataDir: a.dataDir,
      env,
      localHandler: () => () => Promise.reject(new Error("no local host here")),
      persistence,
    });
    const same = (await registry.list()).find((s) => s.source !== "builtin" && s.url === a.url);
    if (same) return { name: same.name, added: false, envOnly: null };
    const name = serverNameOf(a.url);
    try {
      await registry.add({ name, url: a.url });
      return { name, added: true, envOnly: null };
    } catch (err) {
      return { name, added: false, envOnly: (err as Error).message };
    }
  } finally {
    await db?.close();
  }
}

const pct = (x: number | null) => (x === null ? "—" : `${(x * 100).toFixed(1)}%`);
const num = (x: number | null) => (x === null ? "—" : String(Number(x.toPrecision(4))));

/** How the ended episodes ended: `12 scored, 3 stopped by the policy (2 max_turns, 1 no_tool_call), 1 env_error`. */
function outcomeLine(s: RunSummary): string | null {
  const parts: string[] = [];
  for (const [outcome, n] of Object.entries(s.outcomes)) {
    if (!n) continue;
    if (outcome === "policy_stopped")
      parts.push(
        `${n} stopped by the policy${s.stops.length ? ` (${s.stops.map((x) => `${x.count} ${x.stop}`).join(", ")})` : ""}`,
      );
    else parts.push(`${n} ${outcome}`);
  }
  if (!parts.length) return null;
  const retried = s.attempts.retried
    ? `; ${s.attempts.retried} attempt${s.attempts.retried === 1 ? "" : "s"} played again`
    : "";
  return `  outcomes: ${parts.join(", ")}${retried}`;
}

/** The plain summary the command prints. */
export function formatRunSummary(s: RunSummary, url: string): string {
  const notPlayed = s.pending + s.cancelled + s.interrupted;
  const lines = [
    `Run ${s.id}: ${s.policyLabel} on ${s.env}/${s.split} at ${s.server} (${url}): ${s.status}`,
    `  episodes ${s.episodes}: ${s.completed} scored, ${s.unscored} unscored${s.running ? `, ${s.running} running` : ""}${notPlayed ? `, ${notPlayed} not played` : ""}`,
  ];
  const outcomes = outcomeLine(s);
  if (outcomes) lines.push(outcomes);
  lines.push(
    `  success rate ${pct(s.successRate)} of ${s.completed} scored (reward ≥ ${s.successAt}${s.unscored ? `; ${s.unscored} unscored left out` : ""}), mean reward ${num(s.meanReward)}${s.ci95 ? ` (95% CI ${num(s.ci95[0])} to ${num(s.ci95[1])})` : ""}`,
    `  pass@k: ${Object.entries(s.passAtK)
      .map(([k, v]) => `pass@${k} ${num(v)}`)
      .join(", ")}`,
  );
  const ls = s.learningSignal;
  if (ls?.tasks)
    lines.push(
      `  learning signal (groups of ${ls.group}): mean ${num(ls.meanSignal)}; ${ls.alwaysFailed} of ${ls.tasks} tasks always failed, ${ls.alwaysSolved} always solved (${pct(ls.noGradient)} give no gradient)`,
    );
  if (s.turns)
    lines.push(
      `  turns: median ${s.turns.p50}, p90 ${s.turns.p90}; duration: median ${formatDuration(s.durationMs?.p50 ?? null)}, p90 ${formatDuration(s.durationMs?.p90 ?? null)}`,
    );
  if (s.tokens.episodes)
    lines.push(
      `  tokens per episode: ${Math.round(s.tokens.promptPerEpisode ?? 0)} prompt, ${Math.round(s.tokens.completionPerEpisode ?? 0)} completion`,
    );
  if (s.histogram.length > 1) {
    lines.push("  rewards:");
    const most = Math.max(...s.histogram.map((b) => b.count), 1);
    for (const b of s.histogram)
      lines.push(
        `    ${formatRange(b.from, b.to).padStart(20)}  ${"#".repeat(Math.round((b.count / most) * 20)).padEnd(20)} ${b.count}`,
      );
  }
  if (s.errors.length) {
    lines.push("  errors:");
    for (const e of s.errors.slice(0, 10)) lines.push(`    ${e.count} × ${e.message}`);
  }
  return `${lines.join("\n")}\n`;
}

/** The run as JUnit XML: a test case per task, failed when it did not succeed, an error when none completed. */
export function runJUnit(s: RunSummary, durations: Map<number, number>): string {
  const cases: JUnitCase[] = s.tasks.map((t) => {
    const c: JUnitCase = {
      classname: `run.${s.server}.${s.env}.${s.split}`,
      name: `task ${t.index}`,
      time: (durations.get(t.index) ?? 0) / 1000,
    };
    const rewards = t.rewards.map((r) => (r === null ? "—" : String(r))).join(", ");
    if (t.succeeded === false)
      c.failure = {
        message: `${t.successes} of ${t.completed} attempts succeeded (rewards ${rewards}; success: reward ≥ ${s.successAt})`,
        type: "failed",
      };
    else if (t.succeeded === null) c.error = { message: "no attempt completed", type: "errored" };
    return c;
  });
  return junitXml(`ORS run ${s.id}`, [
    { name: `${s.env}/${s.split} (${s.policyLabel})`, timestamp: s.createdAt, cases },
  ]);
}

function bar(p: {
  done: number;
  errored: number;
  running: number;
  total: number;
  rate: number | null;
  etaMs: number | null;
}): string {
  const width = 24;
  const filled = Math.round(((p.done + p.errored) / Math.max(1, p.total)) * width);
  return `\r\u001b[2K[${"#".repeat(filled)}${".".repeat(width - filled)}] ${p.done + p.errored}/${p.total} · ${p.errored} errored · ${p.running} running${p.rate ? ` · ${p.rate.toFixed(1)}/s` : ""}${p.etaMs !== null ? ` · ${formatDuration(p.etaMs)} left` : ""}`;
}

/** Runs `run <url> ...`; resolves with the exit code. */
export async function runCommand(argv: readonly string[], io: CommandIo): Promise<number> {
  let a: RunArgs | null;
  try {
    a = parseRunArgs(argv, io.env);
  } catch (err) {
    if (err instanceof UsageError) {
      io.stderr(`run: ${err.message}\n\n${RUN_USAGE}`);
      return 2;
    }
    throw err;
  }
  if (!a) {
    io.stdout(RUN_USAGE);
    return 0;
  }
  const env: Record<string, string | undefined> = { ...io.env, PLAYGROUND_DATA_DIR: a.dataDir };
  let known: Awaited<ReturnType<typeof knownName>>;
  try {
    known = await knownName(a, env);
  } catch (err) {
    // PLAYGROUND_DATABASE_URL malformed or unreachable: said as the app says it at start.
    io.stderr(`run: could not use the playground's store: ${(err as Error).message}\n`);
    return 2;
  }
  const { name, added, envOnly } = known;
  if (envOnly !== null)
    env.ORS_SERVERS = [env.ORS_SERVERS?.trim(), `${name}=${a.url}`].filter(Boolean).join(",");
  if (a.apiKey) env[`ORS_SERVER_API_KEY_${name.toUpperCase().replace(/-/g, "_")}`] = a.apiKey;
  if (added) io.stderr(`run: added the server ${a.url} to the playground as "${name}"\n`);
  if (envOnly !== null)
    io.stderr(
      `run: ${a.url} was not added to the playground's servers (${envOnly}); to open this run's episodes in the app, start it with ORS_SERVERS=${name}=${a.url}\n`,
    );

  let pg: Playground | null = null;
  try {
    // Loaded here, not at the CLI's start: the other commands need none of it.
    const { createPlayground } = await import("@/lib/playground");
    pg = createPlayground(env, { scriptRoots: null });
    try {
      await pg.ready;
    } catch (err) {
      io.stderr(`run: could not use the playground's store: ${(err as Error).message}\n`);
      return 2;
    }
    if (a.policy.kind === "replay" && a.policy.run && !(await pg.store.getRun(a.policy.run)))
      a.policy = {
        kind: "replay",
        trajectory: a.policy.run,
        ...(a.policy.maxTurns ? { maxTurns: a.policy.maxTurns } : {}),
      };
    let run: Awaited<ReturnType<Playground["runs"]["start"]>>;
    try {
      run = await pg.runs.start({
        server: name,
        env: a.env,
        split: a.split,
        ...(a.tasks !== undefined ? { tasks: a.tasks } : {}),
        ...(a.repeats !== undefined ? { repeats: a.repeats } : {}),
        ...(a.concurrency !== undefined ? { concurrency: a.concurrency } : {}),
        ...(a.successAt !== undefined ? { successAt: a.successAt } : {}),
        ...(a.timeoutMs !== undefined ? { timeoutMs: a.timeoutMs } : {}),
        ...(a.maxAttempts !== undefined ? { maxAttempts: a.maxAttempts } : {}),
        policy: a.policy,
      });
    } catch (err) {
      if (isRunError(err)) {
        io.stderr(`run: ${err.detail}\n`);
        return 2;
      }
      throw err;
    }
    io.stderr(
      `run: ${run.id}: ${run.episodes} episode${run.episodes === 1 ? "" : "s"} of ${a.env}/${a.split} on ${name}, recorded in ${pg.storage.where}\n`,
    );
    const stopOnSignal = () => void pg?.runs.cancel(run.id).catch(() => {});
    io.signal?.addEventListener("abort", stopOnSignal, { once: true });
    let unsubscribe = () => {};
    if (io.progress) {
      let last = 0;
      unsubscribe = pg.runEvents.subscribe(run.id, (e) => {
        if (e.type !== "progress" || (Date.now() - last < 200 && e.status === "running")) return;
        last = Date.now();
        io.stderr(bar({ ...e, total: e.total }));
      });
    }
    const ended = await pg.runs.settled(run.id);
    unsubscribe();
    io.signal?.removeEventListener("abort", stopOnSignal);
    if (io.progress) io.stderr("\n");
    const config = runConfigOf(ended!);
    const summary = buildSummary(
      ended!,
      await pg.store.runAggregates(run.id, { successAt: config.successAt, histogramBins: HISTOGRAM_BINS }),
    );
    if (a.json === "-") io.stdout(`${JSON.stringify({ runId: run.id, ...summary }, null, 2)}\n`);
    else io.stdout(formatRunSummary(summary, a.url));
    if (a.json && a.json !== "-")
      fs.writeFileSync(a.json, `${JSON.stringify({ runId: run.id, ...summary }, null, 2)}\n`);
    if (a.junit) {
      const durations = new Map<number, number>();
      for (const e of await pg.store.runEpisodes(run.id))
        durations.set(e.taskIndex, (durations.get(e.taskIndex) ?? 0) + (e.durationMs ?? 0));
      fs.writeFileSync(a.junit, runJUnit(summary, durations));
    }
    if (summary.status !== "done") return 1;
    if (a.minSuccess !== undefined && (summary.successRate ?? 0) < a.minSuccess) {
      io.stderr(
        `run: the success rate ${pct(summary.successRate)} is below --min-success ${pct(a.minSuccess)}\n`,
      );
      return 1;
    }
    return 0;
  } finally {
    await pg?.close();
  }
}
