// `test GOLDEN.jsonl --server URL`: golden episodes as regression tests from the command line
// (lib/episodes/golden.ts). Prints a readable diff of every step that differs and a summary (or
// `--json`), writes JUnit XML for CI (`--junit`), and answers an exit code: 0 when every episode
// passed, 1 on any difference or error, 2 for a usage mistake. `--env` picks episodes by their
// environment; `--update` re-records the episodes that differ into their files (./test-update.ts).
import fs from "node:fs";
import path from "node:path";
import { type GoldenCase, rerecordedGolden, rerecordProblem, runGoldenTests } from "@/lib/episodes/golden";
import { createOrsClient, type OrsClient } from "@/lib/ors/client";
import type { Secrets } from "@/lib/ors/protocol";
import { type CompareOptions, parseIgnore } from "@/lib/trajectory/diff";
import { parseTrajectories } from "@/lib/trajectory/jsonl";
import type { Trajectory } from "@/lib/trajectory/schema";
import { accessTokenFor } from "./access-token";
import { parseArgs, parseDuration, parseHttpUrl, UsageError, usageFailure } from "./args";
import type { HeadlessIo } from "./io";
import { describeOptions, formatResultText, formatSummaryText, goldenJUnit } from "./test-report";
import { rewriteGoldenText, writeFileReplacing } from "./test-update";

export const DEFAULT_TEST_TIMEOUT_MS = 60_000;
export const DEFAULT_TEST_MAX_TIME_MS = 30 * 60_000;

export const TEST_USAGE = `usage: test <GOLDEN.jsonl>... --server URL [options]

Replays golden episodes (trajectories exported from the playground: JSON or JSONL) on an ORS
server, each in a new session on its task, and compares every step with its recording:
observations, rewards, finished flags and errors, and the prompt. Prints a diff of each step
that differs, and a summary.

options:
  --server URL             the ORS server to replay every episode on
  --server NAME=URL        the server for episodes recorded on server NAME (repeatable; a bare
                           URL is then the one for the others)
  --env NAME[,NAME]        only the episodes of these environments (repeatable)
  --update                 re-record the episodes that differ: rewrite them in their files with
                           what came back (same ids, golden marks kept) and say what changed;
                           the others stay as they are
  --ignore WHAT[,WHAT]     leave out of the comparison (repeatable): a field (observation, reward,
                           finished, ok, error, metadata, tool, input, prompt) or a JSON path in
                           metadata, observation (the blocks), input or prompt: metadata.seed,
                           observation.0.text, observation.*.detail
  --reward-tolerance X     rewards within X of the recorded ones (absolute) pass (default 0)
  --normalize-whitespace   compare texts with runs of whitespace as one space, trimmed
  --mask REGEX             what REGEX matches in texts (observations, errors, the prompt) is the
                           same on both sides, e.g. 'rolled \\d+' (repeatable)
  --junit FILE             write a JUnit XML report: one testcase per episode
  --json                   print the report as JSON (format ors-golden-report/1)
  --secret NAME[=VALUE]    a secret for /create, VALUE by default from $NAME (repeatable)
  --api-key KEY            sent as X-API-Key (default: $ORS_API_KEY)
  --token TOKEN            a playground's access token, for a URL under its /api/servers/<name>
                           (default: $PLAYGROUND_TOKEN, sent only to such a URL)
  --timeout MS             time limit of one request, and of silence on a tool call's stream
                           (default ${DEFAULT_TEST_TIMEOUT_MS / 1000}s)
  --max-time MS            time limit of the whole run (default ${DEFAULT_TEST_MAX_TIME_MS / 60_000}m)
  -h, --help               this help

Durations are milliseconds, or with a unit: 30s, 2m.
Exit code: 0 when every episode passed (with --update: passed or was re-recorded), 1 on any
difference or error, 2 for a mistake on the command line (or an unreadable file).
`;

export interface TestArgs {
  files: string[];
  /** The URL for servers not named in `servers`. */
  defaultServer: string | null;
  /** Server name → URL. */
  servers: Map<string, string>;
  compare: CompareOptions;
  junit: string | null;
  json: boolean;
  secrets: Secrets;
  apiKey: string | undefined;
  /** `--token`, the playground's access token (else $PLAYGROUND_TOKEN for relay URLs). */
  token?: string;
  timeoutMs: number;
  maxTimeMs: number;
  /** Only the episodes of these environments (empty: all). */
  envs: string[];
  /** Re-record the episodes that differ into their files. */
  update: boolean;
}

const REPEATABLE = ["--server", "--ignore", "--mask", "--secret", "--env"] as const;
type Repeatable = (typeof REPEATABLE)[number];

/** Takes the repeatable flags out of argv (`--flag value` and `--flag=value`); the rest is parseArgs'. */
function takeRepeatable(argv: readonly string[]): { rest: string[]; values: Map<Repeatable, string[]> } {
  const rest: string[] = [];
  const values = new Map<Repeatable, string[]>(REPEATABLE.map((f) => [f, []]));
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === "--") {
      rest.push(...argv.slice(i));
      break;
    }
    const eq = arg.indexOf("=");
    const flag = (eq > 0 ? arg.slice(0, eq) : arg) as Repeatable;
    if (!REPEATABLE.includes(flag)) {
      rest.push(arg);
      continue;
    }
    const value = eq > 0 ? arg.slice(eq + 1) : argv[++i];
    if (value === undefined) throw new UsageError(`${flag} needs a value`);
    values.get(flag)!.push(value);
  }
  return { rest, values };
}

function parseRegex(value: string): RegExp {
  try {
    return new RegExp(value, "g");
  } catch (e) {
    throw new UsageError(`--mask: not a regular expression: ${(e as Error).message}`);
  }
}

/** Parses the command line; throws UsageError. Null for --help. Reads no file. */
export function parseTestArgs(
  argv: readonly string[],
  env: Record<string, string | undefined> = {},
): TestArgs | null {
  const { rest, values } = takeRepeatable(argv);
  const args = parseArgs(rest, {
    values: ["--reward-tolerance", "--junit", "--api-key", "--token", "--timeout", "--max-time"],
    booleans: ["--json", "--normalize-whitespace", "--update", "--help"],
    aliases: { "-h": "--help" },
  });
  if (args.booleans.has("--help")) return null;
  if (args.positionals.length === 0)
    throw new UsageError("give one or more files of golden episodes, e.g. test golden.jsonl --server URL");

  let defaultServer: string | null = null;
  const servers = new Map<string, string>();
  for (const v of values.get("--server")!) {
    const m = /^([A-Za-z0-9][A-Za-z0-9._-]*)=(.*)$/.exec(v);
    if (m && !/^https?:\/\//i.test(v)) {
      if (servers.has(m[1]!)) throw new UsageError(`--server ${m[1]}= is given twice`);
      servers.set(m[1]!, parseHttpUrl(m[2]!, `--server ${m[1]}`));
    } else {
      if (defaultServer)
        throw new UsageError("--server URL is given twice (name the others: --server NAME=URL)");
      defaultServer = parseHttpUrl(v, "--server");
    }
  }
  if (!defaultServer && servers.size === 0)
    throw new UsageError("give the server to replay on: --server URL (or --server NAME=URL)");

  const ignore: string[] = [];
  for (const v of values.get("--ignore")!)
    for (const part of v.split(",")) {
      const entry = part.trim();
      if (!entry) throw new UsageError(`--ignore: an empty entry in ${JSON.stringify(v)}`);
      try {
        parseIgnore(entry);
      } catch (e) {
        throw new UsageError(`--ignore: ${(e as Error).message}`);
      }
      ignore.push(entry);
    }
  const compare: CompareOptions = {};
  if (ignore.length) compare.ignore = ignore;
  const tol = args.values.get("--reward-tolerance");
  if (tol !== undefined) {
    const n = Number(tol);
    if (tol.trim() === "" || !Number.isFinite(n) || n < 0)
      throw new UsageError(
        `--reward-tolerance: expected a number ≥ 0 (e.g. 0.01), got ${JSON.stringify(tol)}`,
      );
    compare.rewardTolerance = n;
  }
  if (args.booleans.has("--normalize-whitespace")) compare.normalizeWhitespace = true;
  const masks = values.get("--mask")!.map(parseRegex);
  if (masks.length) compare.masks = masks;

  const secrets: Secrets = {};
  for (const v of values.get("--secret")!) {
    const eq = v.indexOf("=");
    const name = eq >= 0 ? v.slice(0, eq) : v;
    if (!name.trim()) throw new UsageError(`--secret: expected NAME or NAME=VALUE, got ${JSON.stringify(v)}`);
    const value = eq >= 0 ? v.slice(eq + 1) : env[name];
    if (value === undefined) throw new UsageError(`--secret ${name}: no value given and $${name} is not set`);
    secrets[name] = value;
  }

  const envs: string[] = [];
  for (const v of values.get("--env")!)
    for (const part of v.split(",")) {
      const name = part.trim();
      if (!name) throw new UsageError(`--env: an empty name in ${JSON.stringify(v)}`);
      if (!envs.includes(name)) envs.push(name);
    }

  const junit = args.values.get("--junit") ?? null;
  if (junit !== null && !junit.trim()) throw new UsageError("--junit: empty file name");
  const duration = (flag: string, d: number) =>
    args.values.has(flag) ? parseDuration(args.values.get(flag)!, flag) : d;
  return {
    files: args.positionals,
    defaultServer,
    servers,
    compare,
    junit,
    json: args.booleans.has("--json"),
    secrets,
    apiKey: args.values.get("--api-key") ?? env.ORS_API_KEY ?? undefined,
    ...(args.values.has("--token") ? { token: args.values.get("--token")! } : {}),
    timeoutMs: duration("--timeout", DEFAULT_TEST_TIMEOUT_MS),
    maxTimeMs: duration("--max-time", DEFAULT_TEST_MAX_TIME_MS),
    envs,
    update: args.booleans.has("--update"),
  };
}

/** The cases of the environments `--env` names; none is a UsageError that lists what there is. */
function filterByEnv(cases: readonly GoldenCase[], envs: readonly string[], warn: (s: string) => void) {
  if (envs.length === 0) return [...cases];
  const picked = cases.filter((c) => c.trajectory.env !== null && envs.includes(c.trajectory.env));
  const there = [...new Set(cases.map((c) => c.trajectory.env ?? "unknown"))].sort();
  if (picked.length === 0)
    throw new UsageError(
      `no golden episode of ${envs.map((e) => JSON.stringify(e)).join(", ")} in the files (their environments: ${there.join(", ")})`,
    );
  for (const e of envs)
    if (!picked.some((c) => c.trajectory.env === e))
      warn(`test: --env ${e}: no golden episode of that environment in the files\n`);
  return picked;
}

/** Reads the golden episodes of every file; a file that cannot be read or parsed is a UsageError. */
export function readGoldenFiles(files: readonly string[]): GoldenCase[] {
  const cases: GoldenCase[] = [];
  for (const file of files) {
    let text: string;
    try {
      text = fs.readFileSync(file, "utf8");
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      throw new UsageError(
        `cannot read ${file}: ${code === "ENOENT" ? "no such file" : code === "EISDIR" ? "a directory" : (e as Error).message}`,
      );
    }
    const parsed = parseTrajectories(text);
    if (!parsed.ok)
      throw new UsageError(`${file} holds no valid trajectories:\n  ${parsed.errors.join("\n  ")}`);
    for (const trajectory of parsed.trajectories) cases.push({ trajectory, source: file });
  }
  return cases;
}

/** The URL of every server the episodes were recorded on; a server without one is a UsageError. */
function resolveServers(
  cases: readonly GoldenCase[],
  a: TestArgs,
  warn: (s: string) => void,
): Map<string, string> {
  const urls = new Map<string, string>();
  const missing = new Map<string, number>();
  for (const { trajectory: t } of cases) {
    const url = a.servers.get(t.server) ?? a.defaultServer;
    if (url) urls.set(t.server, url);
    else missing.set(t.server, (missing.get(t.server) ?? 0) + 1);
  }
  if (missing.size) {
    const list = [...missing].map(([s, n]) => `"${s}" (${n} episode${n === 1 ? "" : "s"})`).join(", ");
    const first = [...missing.keys()][0];
    throw new UsageError(
      `no server for episodes recorded on ${list}: give --server ${first}=URL, or --server URL for all`,
    );
  }
  for (const name of a.servers.keys())
    if (!urls.has(name))
      warn(`test: --server ${name}=...: no episode was recorded on a server named "${name}"\n`);
  return urls;
}

/**
 * Runs `test <files> --server URL [options]`: every golden episode replayed and compared, each
 * result on stdout as it comes (or the JSON report at the end), JUnit XML to `--junit`.
 * Answers the exit code (0 all passed, 1 a difference or an error, 2 usage).
 *
 * @example
 * const code = await testCommand(["golden.jsonl", "--server", "http://127.0.0.1:8080"], {
 *   stdout: (s) => process.stdout.write(s),
 *   stderr: (s) => process.stderr.write(s),
 * });
 */
export async function testCommand(argv: readonly string[], io: HeadlessIo): Promise<number> {
  let a: TestArgs | null;
  let cases: GoldenCase[];
  let urls: Map<string, string>;
  try {
    a = parseTestArgs(argv, io.env ?? {});
    if (!a) {
      io.stdout(TEST_USAGE);
      return 0;
    }
    if (a.junit !== null) {
      const dir = path.dirname(path.resolve(a.junit));
      if (!fs.existsSync(dir) || !fs.statSync(dir).isDirectory())
        throw new UsageError(`--junit: the folder ${dir} does not exist`);
    }
    cases = filterByEnv(readGoldenFiles(a.files), a.envs, io.stderr);
    urls = resolveServers(cases, a, io.stderr);
  } catch (err) {
    return usageFailure(err, io, "test", TEST_USAGE);
  }
  const args = a;
  const updates = new Map<number, Trajectory>();
  const clients = new Map<string, OrsClient>();
  const clientFor = (server: string) => {
    const url = urls.get(server)!;
    let client = clients.get(url);
    if (!client) {
      const token = accessTokenFor(url, args.token, io.env ?? {});
      client = createOrsClient({
        baseUrl: url,
        apiKey: args.apiKey,
        ...(token ? { headers: { authorization: `Bearer ${token}` } } : {}),
        fetch: io.fetch,
        timeoutMs: args.timeoutMs,
        idleTimeoutMs: args.timeoutMs,
      });
      clients.set(url, client);
    }
    return { client, url };
  };

  if (!args.json) {
    const files = args.files.length === 1 ? args.files[0] : `${args.files.length} files`;
    const where = [...new Set(urls.values())].join(", ");
    const only = args.envs.length ? ` of ${args.envs.join(", ")}` : "";
    io.stdout(
      `Golden episodes: ${cases.length}${only} from ${files}, replayed on ${where}${args.update ? " (re-recording those that differ)" : ""}, compared ${describeOptions(
        {
          ignore: args.compare.ignore ? [...args.compare.ignore] : [],
          reward_tolerance: args.compare.rewardTolerance ?? 0,
          normalize_whitespace: !!args.compare.normalizeWhitespace,
          masks: (args.compare.masks ?? []).map((m) => m.source),
        },
      )}\n\n`,
    );
  }
  const report = await runGoldenTests(cases, {
    clientFor,
    compare: args.compare,
    secrets: Object.keys(args.secrets).length ? args.secrets : undefined,
    signal: io.signal,
    maxTimeMs: args.maxTimeMs,
    onStart: io.progress
      ? (c, i) => io.stderr(`[${i + 1}/${cases.length}] ${c.trajectory.id} ${c.trajectory.env ?? ""}…\n`)
      : undefined,
    onResult: (r, i, replayed) => {
      if (args.update && r.status === "fail" && replayed) {
        const original = cases[i]!.trajectory;
        const problem = rerecordProblem(original, replayed);
        r.updated = problem === null;
        if (problem) r.update_error = problem;
        else updates.set(i, rerecordedGolden(original, replayed));
      }
      if (!args.json) io.stdout(formatResultText(r, { color: io.color }));
    },
  });
  let written = true;
  if (args.update) {
    report.summary.updated = report.results.filter((r) => r.updated).length;
    written = writeUpdates(cases, updates, io);
  }
  io.stdout(
    args.json ? `${JSON.stringify(report, null, 2)}\n` : formatSummaryText(report, { color: io.color }),
  );
  if (args.junit !== null) {
    try {
      fs.writeFileSync(args.junit, goldenJUnit(report));
    } catch (e) {
      io.stderr(`test: could not write the JUnit report ${args.junit}: ${(e as Error).message}\n`);
      return 1;
    }
  }
  if (!written) return 1;
  const settled = report.results.every((r) => r.status === "pass" || r.updated);
  return (args.update ? settled && report.results.length > 0 : report.summary.ok) ? 0 : 1;
}

/**
 * Writes the re-recorded episodes into their files (each file once, the others untouched) and says
 * which; false when a file could not be written. Nothing is written when the run was interrupted.
 */
function writeUpdates(
  cases: readonly GoldenCase[],
  updates: ReadonlyMap<number, Trajectory>,
  io: HeadlessIo,
) {
  if (updates.size === 0) return true;
  if (io.signal?.aborted) {
    io.stderr("test: interrupted: no golden file was rewritten\n");
    return true;
  }
  const byFile = new Map<string, Map<string, Trajectory>>();
  for (const [i, t] of updates) {
    const file = cases[i]!.source!;
    if (!byFile.has(file)) byFile.set(file, new Map());
    byFile.get(file)!.set(t.id, t);
  }
  let ok = true;
  for (const [file, byId] of byFile) {
    try {
      writeFileReplacing(file, rewriteGoldenText(fs.readFileSync(file, "utf8"), byId));
      const n = byId.size;
      io.stderr(
        `test: re-recorded ${n} episode${n === 1 ? "" : "s"} in ${file}: ${[...byId.keys()].join(", ")}\n`,
      );
    } catch (e) {
      ok = false;
      io.stderr(`test: could not rewrite ${file}: ${(e as Error).message}\n`);
    }
  }
  return ok;
}
