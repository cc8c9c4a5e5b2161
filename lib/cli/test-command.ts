// `test GOLDEN.jsonl --server URL`: golden episodes as regression tests from the command line
// (lib/episodes/golden.ts). Prints a readable diff of every step that differs and a summary (or
// `--json`), writes JUnit XML for CI (`--junit`), and answers an exit code: 0 when every episode
// passed, 1 on any difference or error, 2 for a usage mistake.
import fs from "node:fs";
import path from "node:path";
import { type CompareOptions, diffText, parseIgnore, stableStringify } from "@/lib/episodes/diff";
import {
  type GoldenCase,
  type GoldenReport,
  type GoldenResult,
  type GoldenStepDifference,
  type GoldenStepView,
  runGoldenTests,
} from "@/lib/episodes/golden";
import { parseTrajectories } from "@/lib/episodes/jsonl";
import { createOrsClient, type OrsClient } from "@/lib/ors/client";
import type { Secrets } from "@/lib/ors/protocol";
import { parseArgs, parseDuration, UsageError } from "./args";
import type { HeadlessIo } from "./io";
import { type JUnitCase, type JUnitSuite, junitXml } from "./junit";

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
  --timeout MS             time limit of one request, and of silence on a tool call's stream
                           (default ${DEFAULT_TEST_TIMEOUT_MS / 1000}s)
  --max-time MS            time limit of the whole run (default ${DEFAULT_TEST_MAX_TIME_MS / 60_000}m)
  -h, --help               this help

Durations are milliseconds, or with a unit: 30s, 2m.
Exit code: 0 when every episode passed, 1 on any difference or error, 2 for a mistake on the
command line (or an unreadable file).
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
  timeoutMs: number;
  maxTimeMs: number;
}

const REPEATABLE = ["--server", "--ignore", "--mask", "--secret"] as const;
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

function parseUrl(value: string, what: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new UsageError(`${what}: not a URL: ${JSON.stringify(value)} (e.g. http://127.0.0.1:8080)`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:")
    throw new UsageError(`${what}: the URL must be http:// or https://, got ${url.protocol}`);
  if (url.username || url.password)
    throw new UsageError(`${what}: the URL must not carry credentials (use --api-key)`);
  url.hash = "";
  url.search = "";
  return url.toString().replace(/\/+$/, "");
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
    values: ["--reward-tolerance", "--junit", "--api-key", "--timeout", "--max-time"],
    booleans: ["--json", "--normalize-whitespace", "--help"],
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
      servers.set(m[1]!, parseUrl(m[2]!, `--server ${m[1]}`));
    } else {
      if (defaultServer)
        throw new UsageError("--server URL is given twice (name the others: --server NAME=URL)");
      defaultServer = parseUrl(v, "--server");
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
    timeoutMs: duration("--timeout", DEFAULT_TEST_TIMEOUT_MS),
    maxTimeMs: duration("--max-time", DEFAULT_TEST_MAX_TIME_MS),
  };
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

// ---- the text report ----

const C = {
  red: (s: string) => `\u001b[31m${s}\u001b[39m`,
  green: (s: string) => `\u001b[32m${s}\u001b[39m`,
  yellow: (s: string) => `\u001b[33m${s}\u001b[39m`,
  dim: (s: string) => `\u001b[2m${s}\u001b[22m`,
  bold: (s: string) => `\u001b[1m${s}\u001b[22m`,
  del: (s: string) => `\u001b[9;31m${s}\u001b[29;39m`,
  add: (s: string) => `\u001b[4;32m${s}\u001b[24;39m`,
};
type Paint = typeof C;
const PLAIN: Paint = {
  red: (s) => s,
  green: (s) => s,
  yellow: (s) => s,
  dim: (s) => s,
  bold: (s) => s,
  del: (s) => `[-${s}-]`,
  add: (s) => `{+${s}+}`,
};

const SHORT = 160;

function clip(s: string, n = 300): string {
  return s.length > n ? `${s.slice(0, n)}… (${s.length} characters)` : s;
}

/** The word diff of two texts (diffText, the one the UI shows) painted, long unchanged runs elided. */
function paintedDiff(expected: string, got: string, p: Paint): string {
  return diffText(expected, got)
    .map((op) => {
      if (op.op === "del") return p.del(op.text);
      if (op.op === "add") return p.add(op.text);
      return op.text.length > 120 ? `${op.text.slice(0, 50)}${p.dim(" … ")}${op.text.slice(-50)}` : op.text;
    })
    .join("");
}

/** Indents every line after the first to `pad`. */
function hang(text: string, pad: string): string {
  return text.replace(/\n/g, `\n${pad}`);
}

function showValue(v: unknown): string {
  if (v === null || v === undefined) return "none";
  if (typeof v === "string") return JSON.stringify(v);
  if (typeof v === "number") return String(v);
  return clip(stableStringify(v));
}

function textField(name: string, expected: string | null, got: string | null, p: Paint): string[] {
  const pad = "        ";
  if (expected === null || got === null)
    return [`      ${name}: expected ${showValue(expected)}, got ${showValue(got)}`];
  const short = expected.length <= SHORT && got.length <= SHORT && !`${expected}${got}`.includes("\n");
  const lines = [`      ${name}:`];
  if (short) {
    lines.push(`${pad}expected: ${expected}`, `${pad}got:      ${got}`);
  }
  lines.push(`${pad}changed:  ${hang(paintedDiff(expected, got, p), `${pad}          `)}`);
  return lines;
}

function stepLines(d: GoldenStepDifference, p: Paint): string[] {
  const e = d.expected;
  const g = d.got;
  const head = (s: GoldenStepView) => `${s.tool} ${clip(stableStringify(s.input), 120)}`;
  if (!g) return [`    step ${d.step} · ${head(e!)}: ${p.red("missing")}: the replay has no step ${d.step}`];
  if (!e) return [`    step ${d.step} · ${head(g)}: ${p.red("extra")}: the recording has no step ${d.step}`];
  const lines = [`    step ${d.step} · ${head(e)} · differs: ${d.fields.join(", ")}`];
  for (const f of d.fields) {
    if (f === "observation") lines.push(...textField("observation", e.observation, g.observation, p));
    else if (f === "error") lines.push(...textField("error", e.error, g.error, p));
    else if (f === "ok")
      lines.push(
        `      ok: expected ${e.ok === null ? "running" : e.ok ? "ok" : "failed"}, got ${g.ok ? "ok" : "failed"}`,
      );
    else lines.push(`      ${f}: expected ${showValue(e[f])}, got ${showValue(g[f])}`);
  }
  return lines;
}

const secs = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

/** One episode's result as text: a line, then the differences or the error. */
export function formatResultText(r: GoldenResult, o: { color?: boolean } = {}): string {
  const p = o.color ? C : PLAIN;
  const mark = {
    pass: p.green("PASS "),
    fail: p.red("FAIL "),
    error: p.red("ERROR"),
    skipped: p.yellow("SKIP "),
  }[r.status];
  const what = `${r.env ?? "unknown environment"} · ${r.task} · ${r.steps} step${r.steps === 1 ? "" : "s"}`;
  const lines = [
    `${mark} ${p.bold(r.id)}  ${what}  ${p.dim(`(${r.server} → ${r.url}, ${secs(r.duration_ms)})`)}`,
  ];
  if (r.error)
    lines.push(`    ${r.status === "skipped" ? "" : `${r.error.kind}: `}${hang(r.error.message, "    ")}`);
  if (r.prompt) lines.push("    prompt differs", ...textField("prompt", r.prompt.expected, r.prompt.got, p));
  for (const d of r.differences) lines.push(...stepLines(d, p));
  return `${lines.join("\n")}\n`;
}

function describeOptions(rep: GoldenReport["options"]): string {
  const parts: string[] = [];
  if (rep.ignore.length) parts.push(`ignoring ${rep.ignore.join(", ")}`);
  if (rep.reward_tolerance) parts.push(`reward tolerance ${rep.reward_tolerance}`);
  if (rep.normalize_whitespace) parts.push("whitespace normalised");
  if (rep.masks.length) parts.push(`masks ${rep.masks.map((m) => `/${m}/`).join(" ")}`);
  return parts.length ? parts.join("; ") : "exactly";
}

export function formatSummaryText(report: GoldenReport, o: { color?: boolean } = {}): string {
  const p = o.color ? C : PLAIN;
  const s = report.summary;
  const verdict = s.ok ? p.green("ok") : p.red("FAILED");
  return (
    `\nSummary: ${s.passed} passed, ${s.failed} failed, ${s.errors} error${s.errors === 1 ? "" : "s"}, ` +
    `${s.skipped} skipped (${s.total} golden episode${s.total === 1 ? "" : "s"}, compared ${describeOptions(report.options)}, ` +
    `${secs(report.duration_ms)}): ${verdict}\n`
  );
}

// ---- JUnit ----

/** The report as JUnit XML: a suite per file, a testcase per episode. */
export function goldenJUnit(report: GoldenReport): string {
  const suites = new Map<string, JUnitSuite>();
  for (const r of report.results) {
    const name = r.source ?? "golden episodes";
    let suite = suites.get(name);
    if (!suite) {
      suite = { name, timestamp: report.started_at, cases: [] };
      suites.set(name, suite);
    }
    const c: JUnitCase = {
      classname: `golden.${r.server}.${r.env ?? "unknown"}`,
      name: `${r.id} (${r.env ?? "unknown"} ${r.task})`,
      time: r.duration_ms / 1000,
    };
    if (r.status === "fail") {
      const n = r.differences.length;
      const first = r.differences[0];
      const message = [
        r.prompt ? "the prompt differs" : "",
        n
          ? `${n} step${n === 1 ? " differs" : "s differ"} (first: step ${first!.step}, ${first!.fields.join(", ")})`
          : "",
      ]
        .filter(Boolean)
        .join("; ");
      c.failure = { message, type: "difference", text: formatResultText(r) };
    } else if (r.status === "error") {
      c.error = { message: `${r.error!.kind}: ${r.error!.message}`, type: r.error!.kind };
    } else if (r.status === "skipped") {
      c.skipped = { message: r.error?.message ?? "not run" };
    }
    suite.cases.push(c);
  }
  return junitXml("ORS golden episodes", [...suites.values()]);
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
    cases = readGoldenFiles(a.files);
    urls = resolveServers(cases, a, io.stderr);
  } catch (err) {
    if (err instanceof UsageError) {
      io.stderr(`test: ${err.message}\n\n${TEST_USAGE}`);
      return 2;
    }
    throw err;
  }
  const args = a;
  const clients = new Map<string, OrsClient>();
  const clientFor = (server: string) => {
    const url = urls.get(server)!;
    let client = clients.get(url);
    if (!client) {
      client = createOrsClient({
        baseUrl: url,
        apiKey: args.apiKey,
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
    io.stdout(
      `Golden episodes: ${cases.length} from ${files}, replayed on ${where}, compared ${describeOptions({
        ignore: args.compare.ignore ? [...args.compare.ignore] : [],
        reward_tolerance: args.compare.rewardTolerance ?? 0,
        normalize_whitespace: !!args.compare.normalizeWhitespace,
        masks: (args.compare.masks ?? []).map((m) => m.source),
      })}\n\n`,
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
    onResult: args.json ? undefined : (r) => io.stdout(formatResultText(r, { color: io.color })),
  });
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
  return report.summary.ok ? 0 : 1;
}
