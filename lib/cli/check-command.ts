// `check URL`: the ORS conformance check of any server from the command line (lib/conformance).
// Prints the report as text (or `--json`) and answers an exit code: 0 when nothing breaks the
// reference client and nothing failed, 1 otherwise, 2 for a usage mistake.
import {
  type CheckResult,
  type CheckTask,
  type ConformanceOptions,
  DEFAULT_MAX_TIME_MS,
  DEFAULT_REQUEST_TIMEOUT_MS,
  formatReportJson,
  formatReportText,
  runConformanceCheck,
} from "@/lib/conformance";
import { parseArgs, parseDuration, UsageError } from "./args";
import type { HeadlessIo } from "./io";

export const CHECK_USAGE = `usage: check <URL> [options]

Checks that the ORS server at URL speaks the protocol as the spec and the reference Python
client expect, and reports every check: breaks the reference client, differs from the spec,
error, not exercised, pass.

options:
  --json                  print the report as JSON (format ors-conformance/1)
  --env NAME              environment for the session checks (default: the first with tasks)
  --task SPLIT:INDEX      task for the session checks (default: task 0 of the first split)
  --tool NAME             tool for the call checks (default: chosen from the input schemas)
  --input JSON            its input, a JSON object (default: made up from its schema)
  --idle-timeout MS       the server's idle limit: check that an idle session is gone after it
  --api-key KEY           sent as X-API-Key (default: $ORS_API_KEY)
  --timeout MS            time limit of one request (default ${DEFAULT_REQUEST_TIMEOUT_MS / 1000}s)
  --max-time MS           time limit of the whole check (default ${DEFAULT_MAX_TIME_MS / 60_000}m)
  --ping-time MS          how long a slow tool found for the ping check runs (default 12s,
                          just over the spec's 10 s ping interval; 0 calls none)
  -h, --help              this help

Durations are milliseconds, or with a unit: 30s, 2m.
Exit code: 0 when nothing breaks the reference client and nothing failed, 1 otherwise,
2 for a mistake on the command line.
`;

const MARKS: Record<CheckResult["outcome"], string> = {
  "breaks-reference-client": "✗",
  error: "✗",
  "differs-from-spec": "!",
  "not-exercised": "-",
  pass: "✓",
};

function parseTask(value: string): CheckTask {
  const at = value.lastIndexOf(":");
  const split = value.slice(0, at);
  const index = Number(value.slice(at + 1));
  if (at <= 0 || !Number.isInteger(index) || index < 0 || value.slice(at + 1).trim() === "")
    throw new UsageError(`--task: expected SPLIT:INDEX (e.g. train:0), got ${JSON.stringify(value)}`);
  return { split, index };
}

function parseInput(value: string): Record<string, unknown> {
  let v: unknown;
  try {
    v = JSON.parse(value);
  } catch (e) {
    throw new UsageError(`--input: not JSON (${(e as Error).message})`);
  }
  if (typeof v !== "object" || v === null || Array.isArray(v))
    throw new UsageError('--input: expected a JSON object, e.g. \'{"answer": "4"}\'');
  return v as Record<string, unknown>;
}

function parseUrl(value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new UsageError(`not a URL: ${JSON.stringify(value)} (e.g. http://127.0.0.1:8080)`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:")
    throw new UsageError(`the URL must be http:// or https://, got ${url.protocol}`);
  if (url.username || url.password)
    throw new UsageError("the URL must not carry credentials (use --api-key)");
  url.hash = "";
  url.search = "";
  return url.toString().replace(/\/+$/, "");
}

/** Parses the command line into the check's options; throws UsageError. Null for --help. */
export function parseCheckArgs(
  argv: readonly string[],
  env: Record<string, string | undefined> = {},
): { options: ConformanceOptions; json: boolean } | null {
  const args = parseArgs(argv, {
    values: [
      "--env",
      "--task",
      "--tool",
      "--input",
      "--idle-timeout",
      "--api-key",
      "--timeout",
      "--max-time",
      "--ping-time",
    ],
    booleans: ["--json", "--help"],
    aliases: { "-h": "--help" },
  });
  if (args.booleans.has("--help")) return null;
  if (args.positionals.length === 0)
    throw new UsageError("give the server's URL, e.g. check http://127.0.0.1:8080");
  if (args.positionals.length > 1)
    throw new UsageError(`one URL only, got ${args.positionals.map((p) => JSON.stringify(p)).join(" ")}`);
  const v = (flag: string) => args.values.get(flag);
  const options: ConformanceOptions = { baseUrl: parseUrl(args.positionals[0]!) };
  const envName = v("--env");
  if (envName !== undefined) {
    if (!envName.trim()) throw new UsageError("--env: empty name");
    options.env = envName;
  }
  if (v("--task") !== undefined) options.task = parseTask(v("--task")!);
  if (v("--input") !== undefined && v("--tool") === undefined)
    throw new UsageError("--input needs --tool NAME");
  if (v("--tool") !== undefined) {
    const name = v("--tool")!;
    if (!name.trim()) throw new UsageError("--tool: empty name");
    options.tool = { name, input: v("--input") !== undefined ? parseInput(v("--input")!) : undefined };
  }
  if (v("--idle-timeout") !== undefined)
    options.idleTimeoutMs = parseDuration(v("--idle-timeout")!, "--idle-timeout");
  if (v("--timeout") !== undefined) options.requestTimeoutMs = parseDuration(v("--timeout")!, "--timeout");
  if (v("--max-time") !== undefined) options.maxTimeMs = parseDuration(v("--max-time")!, "--max-time");
  if (v("--ping-time") !== undefined)
    options.slowToolSeconds = parseDuration(v("--ping-time")!, "--ping-time", { allowZero: true }) / 1000;
  const apiKey = v("--api-key") ?? env.ORS_API_KEY;
  if (apiKey) options.apiKey = apiKey;
  return { options, json: args.booleans.has("--json") };
}

/**
 * Runs `check <URL> [options]`: the conformance check, its report on stdout, progress on stderr.
 * Answers the exit code (0 usable by the reference client, 1 a break or an error, 2 usage).
 *
 * @example
 * const code = await checkCommand(["http://127.0.0.1:8080", "--json"], {
 *   stdout: (s) => process.stdout.write(s),
 *   stderr: (s) => process.stderr.write(s),
 * });
 */
export async function checkCommand(argv: readonly string[], io: HeadlessIo): Promise<number> {
  let parsed: ReturnType<typeof parseCheckArgs>;
  try {
    parsed = parseCheckArgs(argv, io.env ?? {});
  } catch (err) {
    if (err instanceof UsageError) {
      io.stderr(`check: ${err.message}\n\n${CHECK_USAGE}`);
      return 2;
    }
    throw err;
  }
  if (!parsed) {
    io.stdout(CHECK_USAGE);
    return 0;
  }
  const { options, json } = parsed;
  let done = 0;
  const report = await runConformanceCheck({
    ...options,
    fetch: io.fetch,
    signal: io.signal,
    onResult: io.progress
      ? (r) => {
          done++;
          io.stderr(`[${String(done).padStart(2)}] ${MARKS[r.outcome]} ${r.id}\n`);
        }
      : undefined,
  });
  io.stdout(json ? formatReportJson(report) : formatReportText(report, { color: io.color }));
  return report.summary.ok ? 0 : 1;
}
