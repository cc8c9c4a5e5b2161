// `check URL`: the ORS conformance check of any server from the command line (lib/conformance), and
// with `--quality` the environment quality checks (./check-quality.ts), with `--probe` the reward
// probes (./check-probe.ts), in the same report. Prints
// the report as text or `--json`, writes `--junit` XML, and answers an exit code (docs/check.md "Exit
// codes"): 0 when no finding counts under the policy (`--strict`, waivers), 1 otherwise, 2 usage.
import fs from "node:fs";
import path from "node:path";
import {
  CHECKS,
  type CheckTask,
  type ConformanceOptions,
  DEFAULT_MAX_TIME_MS,
  DEFAULT_REQUEST_TIMEOUT_MS,
  formatReportJson,
  formatReportText,
  runConformanceCheck,
} from "@/lib/conformance";
import { attachProbe } from "@/lib/conformance/gaming/report";
import { PROBE_IDS } from "@/lib/conformance/gaming/types";
import { attachQuality } from "@/lib/conformance/quality/report";
import { QUALITY_CHECK_IDS } from "@/lib/conformance/quality/types";
import { MARKS } from "@/lib/conformance/report";
import { accessTokenFor, fetchWithTokens, TOKEN_USAGE } from "./access-token";
import { commandArgs, parseArgs, parseDuration, parseHttpUrl, UsageError } from "./args";
import { checkJUnit } from "./check-junit";
import { PROBE_USAGE, PROBE_VALUE_FLAGS, type ProbeArgs, parseProbeArgs, playProbe } from "./check-probe";
import {
  parseQualityArgs,
  playQuality,
  QUALITY_USAGE,
  QUALITY_VALUE_FLAGS,
  type QualityArgs,
} from "./check-quality";
import type { HeadlessIo } from "./io";

export const CHECK_USAGE = `usage: check <URL> [options]

Checks that the ORS server at URL speaks the protocol as the spec and the reference Python
client expect, and reports every check: breaks the reference client, differs from the spec,
error, not exercised, pass. Each finding says whose it is: the environment's author's, or the
server framework's under it (the reference Python SDK, recognised by its own behaviours).

options:
  --json                  print the report as JSON (format ors-conformance/1)
  --junit FILE            also write a JUnit XML report: one testcase per check
  --strict                count every finding, the framework's and spec differences too
  --allow ID              waive a check's findings: reported, never counted (repeatable)
  --allow-file FILE       waive the check ids in FILE: one a line, # starts a comment
  --env NAME              environment for the session checks and the quality checks (default:
                          the first with tasks)
  --task SPLIT:INDEX      task for the session checks (default: task 0 of the first split)
  --tool NAME             tool for the call checks (default: chosen from the input schemas)
  --input JSON            its input, a JSON object (default: made up from its schema)
  --idle-timeout MS       the server's idle limit: check that an idle session is gone after it
  --api-key KEY           sent as X-API-Key (default: $ORS_API_KEY)
${TOKEN_USAGE}
  --timeout MS            time limit of one request (default ${DEFAULT_REQUEST_TIMEOUT_MS / 1000}s)
  --max-time MS           time limit of the whole check (default ${DEFAULT_MAX_TIME_MS / 60_000}m)
  --ping-time MS          how long a slow tool found for the ping check runs (default 12s,
                          just over the spec's 10 s ping interval; 0 calls none)
  -h, --help              this help

${QUALITY_USAGE}
${PROBE_USAGE}
Durations are milliseconds, or with a unit: 30s, 2m.
Exit code: 0 when no finding counts, 1 otherwise, 2 for a mistake on the command line (or an
unreadable --allow-file, or a --quality environment, split or oracle that cannot be played). By
default only the author's findings that break the reference client or are errors count; the
server framework's never do, unless --strict. Every quality finding counts (unless waived).
`;

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

/** Ids `--allow` takes: the protocol checks' and the quality checks'. */
const CHECK_IDS = new Set<string>([...CHECKS.map((c) => c.id), ...QUALITY_CHECK_IDS, ...PROBE_IDS]);

/** A check id to waive, or a UsageError naming `where` it came from. */
function checkId(value: string, where: string): string {
  const id = value.trim();
  if (!CHECK_IDS.has(id))
    throw new UsageError(
      `${where}: no check ${JSON.stringify(id)} (the ids are the report's, e.g. call-chunking, unknown-path)`,
    );
  return id;
}

/**
 * The check ids of an `--allow-file`: one a line; `#` starts a comment (a whole line or after the
 * id); blank lines are skipped. An unknown id or two on one line is a UsageError naming the line.
 */
export function parseAllowFile(text: string, file: string): string[] {
  const ids: string[] = [];
  for (const [i, raw] of text
    .replace(/^\uFEFF/, "")
    .split(/\r?\n/)
    .entries()) {
    const line = raw.replace(/#.*$/, "").trim();
    if (!line) continue;
    const where = `--allow-file ${file}:${i + 1}`;
    if (/\s/.test(line)) throw new UsageError(`${where}: one check id a line, got ${JSON.stringify(line)}`);
    ids.push(checkId(line, where));
  }
  return ids;
}

export interface CheckArgs {
  options: ConformanceOptions;
  json: boolean;
  /** Where to write JUnit XML, or null. */
  junit: string | null;
  /** `--allow-file` files, read by the command (their ids join `options.allow`). */
  allowFiles: string[];
  /** `--quality` and its flags, or null. */
  quality: QualityArgs | null;
  /** The playground's access token (`--token`, or $PLAYGROUND_TOKEN for a relay URL). */
  token?: string;
  /** `--probe` and its flags, or null. */
  probe: ProbeArgs | null;
}

/** Parses the command line into the check's options; throws UsageError. Null for --help. Reads no file. */
export function parseCheckArgs(
  argv: readonly string[],
  env: Record<string, string | undefined> = {},
  cwd = process.cwd(),
): CheckArgs | null {
  const args = parseArgs(argv, {
    values: [
      "--env",
      "--task",
      "--tool",
      "--input",
      "--idle-timeout",
      "--api-key",
      "--token",
      "--timeout",
      "--max-time",
      "--ping-time",
      "--junit",
      "--allow",
      "--allow-file",
      ...QUALITY_VALUE_FLAGS,
      ...PROBE_VALUE_FLAGS,
    ],
    booleans: ["--json", "--strict", "--help", "--quality", "--probe"],
    aliases: { "-h": "--help" },
    repeatable: ["--allow", "--allow-file"],
  });
  if (args.booleans.has("--help")) return null;
  if (args.positionals.length === 0)
    throw new UsageError("give the server's URL, e.g. check http://127.0.0.1:8080");
  if (args.positionals.length > 1)
    throw new UsageError(`one URL only, got ${args.positionals.map((p) => JSON.stringify(p)).join(" ")}`);
  const v = (flag: string) => args.values.get(flag);
  const options: ConformanceOptions = { baseUrl: parseHttpUrl(args.positionals[0]!) };
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
  if (args.booleans.has("--strict")) options.strict = true;
  const allow = (args.lists.get("--allow") ?? []).map((id) => checkId(id, "--allow"));
  if (allow.length) options.allow = allow;
  const junit = v("--junit") ?? null;
  if (junit !== null && !junit.trim()) throw new UsageError("--junit: empty file name");
  const allowFiles = args.lists.get("--allow-file") ?? [];
  if (allowFiles.some((f) => !f.trim())) throw new UsageError("--allow-file: empty file name");
  const quality = parseQualityArgs(args, env, cwd);
  const probe = parseProbeArgs(args, env, cwd);
  const token = accessTokenFor(options.baseUrl, v("--token"), env);
  // The quality checks and the probes play through this machine's playground, which has no token to send.
  const played = quality ? "--quality" : probe ? "--probe" : null;
  if (token && played && v("--token") !== undefined)
    throw new UsageError(
      `--token does not go with ${played}: ${played === "--quality" ? "the quality checks" : "the probes"} play through this machine's playground`,
    );
  return {
    options,
    json: args.booleans.has("--json"),
    junit,
    allowFiles,
    quality,
    probe,
    ...(token && !played ? { token } : {}),
  };
}

/** The `--allow-file` ids added to the options, and `--junit`'s folder checked; throws UsageError. */
function readFiles(parsed: CheckArgs, cwd: string): void {
  const allow = [...(parsed.options.allow ?? [])];
  for (const file of parsed.allowFiles) {
    let text: string;
    try {
      text = fs.readFileSync(path.resolve(cwd, file), "utf8");
    } catch (e) {
      throw new UsageError(
        `--allow-file: cannot read ${file} (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`,
      );
    }
    allow.push(...parseAllowFile(text, file));
  }
  if (allow.length) parsed.options.allow = [...new Set(allow)];
  if (parsed.junit !== null) {
    const dir = path.dirname(path.resolve(cwd, parsed.junit));
    if (!fs.existsSync(dir) || !fs.statSync(dir).isDirectory())
      throw new UsageError(`--junit: the folder ${dir} does not exist`);
  }
}

/**
 * Runs `check <URL> [options]`: the conformance check, its report on stdout, progress on stderr,
 * JUnit XML to `--junit`. Answers the exit code (0 no finding counts, 1 some does, 2 usage).
 *
 * @example
 * const code = await checkCommand(["http://127.0.0.1:8080", "--json"], {
 *   stdout: (s) => process.stdout.write(s),
 *   stderr: (s) => process.stderr.write(s),
 * });
 */
export async function checkCommand(argv: readonly string[], io: HeadlessIo): Promise<number> {
  const cwd = io.cwd ?? process.cwd();
  const parsed = commandArgs(
    () => {
      const p = parseCheckArgs(argv, io.env ?? {}, cwd);
      if (p) readFiles(p, cwd);
      return p;
    },
    io,
    "check",
    CHECK_USAGE,
  );
  if (typeof parsed === "number") return parsed;
  const { options, json, junit } = parsed;
  let done = 0;
  let report = await runConformanceCheck({
    ...options,
    fetch: fetchWithTokens(io.fetch, new Map(parsed.token ? [[options.baseUrl, parsed.token]] : [])),
    signal: io.signal,
    onResult: io.progress
      ? (r) => {
          done++;
          io.stderr(`[${String(done).padStart(2)}] ${MARKS[r.outcome]} ${r.id}\n`);
        }
      : undefined,
  });
  let exit: number | null = null;
  let appUrl: string | undefined;
  // The server, its key, the waivers and the time limit, as the quality checks and the probes take them.
  const playTarget = {
    url: options.baseUrl,
    apiKey: options.apiKey,
    allow: options.allow ?? [],
    maxTimeMs: options.maxTimeMs,
  };
  if (parsed.quality && !io.signal?.aborted) {
    const quality = await playQuality(
      parsed.quality,
      { ...playTarget, env: options.env ?? report.target.environment },
      io,
    );
    report = attachQuality(report, quality.report);
    exit = quality.exit;
    appUrl = quality.appUrl;
  }
  let probeExit: number | null = null;
  if (parsed.probe && !io.signal?.aborted) {
    // With a baseline or golden episodes, their environment unless --env names one.
    const named = parsed.probe.baseline !== undefined || parsed.probe.golden !== undefined;
    const probe = await playProbe(
      parsed.probe,
      { ...playTarget, env: options.env ?? (named ? null : report.target.environment) },
      io,
    );
    report = attachProbe(report, probe.report);
    probeExit = probe.exit;
  }
  io.stdout(
    json
      ? formatReportJson(report)
      : formatReportText(report, {
          color: io.color,
          appUrl: appUrl ?? parsed.probe?.sample.appUrl ?? undefined,
        }),
  );
  if (junit !== null) {
    try {
      fs.writeFileSync(path.resolve(cwd, junit), checkJUnit(report));
    } catch (e) {
      io.stderr(`check: could not write the JUnit report ${junit}: ${(e as Error).message}\n`);
      return 1;
    }
  }
  if (exit !== null) {
    io.stderr(`check: --quality: ${report.quality?.error}\n`);
    return exit;
  }
  if (probeExit !== null) {
    io.stderr(`check: --probe: ${report.probe?.error}\n`);
    return probeExit;
  }
  return report.summary.passed ? 0 : 1;
}
