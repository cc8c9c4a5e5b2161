// The command line of `run` (docs/runs.md "CLI"): its usage, and its flags checked into what the
// command does — start a run (played here and by the queue's workers, by the workers only, or just
// enqueued), or follow one that exists. A mistake is a UsageError (exit code 2).
import fs from "node:fs";
import path from "node:path";
import { MAX_ATTEMPTS_LIMIT, type RunPolicy } from "@/lib/runs/spec";
import { parseArgs, parseDuration, parseHttpUrl, UsageError } from "./args";
import { defaultDataDir } from "./start-command";

export const RUN_USAGE = `usage: run <server-url> --env NAME --split NAME [options]
       run --follow RUN-ID [--json FILE] [--junit FILE] [--min-success RATE]

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
  --no-play              (PostgreSQL) enqueue the run and follow it while the workers play it
  --detach               (PostgreSQL) enqueue the run, print its id and return at once
  --follow RUN-ID        follow any run (played anywhere) to its end, then report it as above
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

/** Who plays a run this command starts: this process (and the workers), the workers only, or nobody waits. */
export type PlayMode = "play" | "no-play" | "detach";

/** `run --follow ID`: a run played elsewhere, followed to its end. */
export interface FollowArgs {
  follow: string;
  minSuccess?: number;
  json: string | null;
  junit: string | null;
  dataDir: string;
}

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
  play: PlayMode;
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

/** Parses the command line; throws UsageError. Null for --help. */
export function parseRunArgs(
  argv: readonly string[],
  env: Record<string, string | undefined>,
): RunArgs | FollowArgs | null {
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
      "--follow",
    ],
    booleans: ["--stream", "--help", "--detach", "--no-play"],
    aliases: { "-h": "--help" },
  });
  if (args.booleans.has("--help")) return null;
  const dataDir = path.resolve(
    args.values.get("--data-dir") ?? env.PLAYGROUND_DATA_DIR ?? defaultDataDir(env),
  );
  const follow = args.values.get("--follow");
  if (follow !== undefined) return followArgs(args, follow, dataDir);
  const queue = !!env.PLAYGROUND_DATABASE_URL?.trim();
  for (const flag of ["--detach", "--no-play"])
    if (args.booleans.has(flag) && !queue)
      throw new UsageError(
        `${flag} needs PLAYGROUND_DATABASE_URL: the job queue that workers play runs from`,
      );
  if (args.booleans.has("--detach") && args.booleans.has("--no-play"))
    throw new UsageError("--detach or --no-play, not both");
  if (args.positionals.length !== 1)
    throw new UsageError(
      args.positionals.length
        ? `one server URL, not ${args.positionals.length}`
        : "give the server's URL, e.g. run http://127.0.0.1:8080 --env math --split test",
    );
  const url = parseHttpUrl(args.positionals[0]!, "the server");
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
            baseUrl: parseHttpUrl(urlFlag, "--model-url"),
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
  const file = (flag: string) => fileFlag(args, flag);
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
    dataDir,
    play: args.booleans.has("--detach") ? "detach" : args.booleans.has("--no-play") ? "no-play" : "play",
  };
}

/** A file flag's value: `-` (stdout) or a path whose folder exists; null when absent. */
function fileFlag(args: ReturnType<typeof parseArgs>, flag: string): string | null {
  const v = args.values.get(flag);
  if (v === undefined) return null;
  if (!v.trim()) throw new UsageError(`${flag}: empty file name`);
  if (v !== "-" && !fs.existsSync(path.dirname(path.resolve(v))))
    throw new UsageError(`${flag}: the folder ${path.dirname(path.resolve(v))} does not exist`);
  return v;
}

/** `--follow ID`: only the report's flags go with it. */
function followArgs(args: ReturnType<typeof parseArgs>, id: string, dataDir: string): FollowArgs {
  const allowed = new Set(["--follow", "--json", "--junit", "--min-success", "--data-dir"]);
  const stray =
    [...args.values.keys()].find((f) => !allowed.has(f)) ??
    (args.positionals.length ? "a server URL" : undefined);
  if (stray) throw new UsageError(`--follow follows a run that exists: ${stray} does not go with it`);
  if (!id.trim()) throw new UsageError("--follow: give the run's id");
  return {
    follow: id.trim(),
    minSuccess: number(args, "--min-success", { min: 0, max: 1 }),
    json: fileFlag(args, "--json"),
    junit: fileFlag(args, "--junit"),
    dataDir,
  };
}
