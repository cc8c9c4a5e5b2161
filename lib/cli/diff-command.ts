// `diff A B`: what changed between two versions of an ORS server (docs/ci.md) — the surface diff
// (lib/conformance/diff), and with `--replay RUN` the scores: a recorded run replayed on B through
// the playground of the data folder the app uses. Prints the report, writes `--json`, `--markdown`
// and `--junit`, and answers 0 (nothing breaking, no flip beyond --max-flips), 1, or 2 (could not run).
import fs from "node:fs";
import path from "node:path";
import type { BehaviourDiff } from "@/lib/conformance/diff/behaviour";
import {
  buildDiffReport,
  type DiffReport,
  type DiffSide,
  formatDiffJson,
  formatDiffMarkdown,
  formatDiffText,
} from "@/lib/conformance/diff/report";
import { runSurfaceDiff, type SurfaceDiffResult } from "@/lib/conformance/diff/run";
import {
  DEFAULT_SURFACE_PROMPTS,
  DEFAULT_SURFACE_SEED,
  DEFAULT_SURFACE_TASKS,
  MAX_SURFACE_TASKS,
  SurfaceError,
} from "@/lib/conformance/diff/surface";
import { createOrsClient, isOrsClientError } from "@/lib/ors/client";
import { commandArgs, integerFlag, parseArgs, UsageError } from "./args";
import { DEFAULT_APP_URL } from "./check-quality";
import { diffJUnit } from "./diff-junit";
import type { HeadlessIo } from "./io";
import { recordingServer, resolveServer, serverUrl } from "./servers";
import { defaultDataDir } from "./start-command";

export const DIFF_USAGE = `usage: diff <A> <B> [options]

Compares two ORS servers — two versions of an environment — and says what changed: the contract
(environments, tools and their input schemas, splits, task specs, prompts), each change breaking,
compatible or cosmetic; and with --replay, the scores (a recorded run's actions replayed on B: the
tasks that flipped, the paired mean difference). A and B are URLs, or servers the playground knows
by name (ORS_SERVERS, or added in the app).

options:
  --env NAME          compare this environment (on both sides)
  --env-a NAME        A's environment (default --env, else every one)
  --env-b NAME        B's environment (default --env): for an environment renamed
  --tasks N           task specs read per split (default ${DEFAULT_SURFACE_TASKS}, at most ${MAX_SURFACE_TASKS}); a larger
                      split is compared by its count beyond them
  --prompts N         prompts read per split, a seeded sample (default ${DEFAULT_SURFACE_PROMPTS}; 0 reads none)
  --seed N            the seed of that sample (default ${DEFAULT_SURFACE_SEED})
  --replay RUN        replay the recorded run RUN on B and compare the scores task by task
  --max-flips N       tasks that may flip before the exit code is 1 (default 0)
  --json FILE         write the report as JSON (schemaVersion 1); - for stdout
  --markdown FILE     write a short Markdown report (a PR comment); - for stdout
  --junit FILE        write a JUnit XML report: a test case per change and per flip
  --api-key KEY       sent to both servers as X-API-Key (default: $ORS_API_KEY)
  --data-dir DIR      the playground's data folder: its servers, and where --replay records
                      (default $PLAYGROUND_DATA_DIR, else the per-user folder \`ors-playground start\` uses)
  --app-url URL       the playground the printed links open (default ${DEFAULT_APP_URL})
  -h, --help          this help

Exit code: 0 when nothing is breaking and no more tasks flipped than --max-flips, 1 otherwise, 2 when
the diff could not run (a mistake on the command line, a server unreachable, an unknown environment
or run, a part of a surface that could not be read).
`;

export interface DiffArgs {
  a: string;
  b: string;
  envA?: string;
  envB?: string;
  tasks: number;
  prompts: number;
  seed: number;
  replay?: string;
  maxFlips: number;
  json: string | null;
  markdown: string | null;
  junit: string | null;
  apiKey?: string;
  dataDir: string;
  appUrl: string;
}

function name(raw: string | undefined, flag: string): string | undefined {
  if (raw !== undefined && !raw.trim()) throw new UsageError(`${flag}: empty name`);
  return raw;
}

function file(raw: string | undefined, flag: string, cwd: string): string | null {
  if (raw === undefined) return null;
  if (!raw.trim()) throw new UsageError(`${flag}: empty file name`);
  if (raw === "-") return "-";
  const dir = path.dirname(path.resolve(cwd, raw));
  if (!fs.existsSync(dir) || !fs.statSync(dir).isDirectory())
    throw new UsageError(`${flag}: the folder ${dir} does not exist`);
  return path.resolve(cwd, raw);
}

/** Parses the command line; throws UsageError. Null for --help. */
export function parseDiffArgs(
  argv: readonly string[],
  env: Record<string, string | undefined> = {},
  cwd = process.cwd(),
): DiffArgs | null {
  const args = parseArgs(argv, {
    values: [
      "--env",
      "--env-a",
      "--env-b",
      "--tasks",
      "--prompts",
      "--seed",
      "--replay",
      "--max-flips",
      "--json",
      "--markdown",
      "--junit",
      "--api-key",
      "--data-dir",
      "--app-url",
    ],
    booleans: ["--help"],
    aliases: { "-h": "--help" },
  });
  if (args.booleans.has("--help")) return null;
  if (args.positionals.length !== 2)
    throw new UsageError(
      `give the two servers to compare, e.g. diff http://127.0.0.1:8080 http://127.0.0.1:8081 (got ${args.positionals.length})`,
    );
  const v = (flag: string) => args.values.get(flag);
  const both = name(v("--env"), "--env");
  const outputs = [v("--json"), v("--markdown")].filter((x) => x === "-");
  if (outputs.length > 1) throw new UsageError("only one of --json and --markdown can go to stdout (-)");
  const appUrl = v("--app-url");
  if (appUrl !== undefined && !/^https?:\/\/[^\s]+$/.test(appUrl))
    throw new UsageError(`--app-url: not an http(s) URL: ${JSON.stringify(appUrl)}`);
  const replay = name(v("--replay"), "--replay");
  const apiKey = v("--api-key") ?? env.ORS_API_KEY;
  return {
    a: args.positionals[0]!,
    b: args.positionals[1]!,
    envA: name(v("--env-a"), "--env-a") ?? both,
    envB: name(v("--env-b"), "--env-b") ?? both,
    tasks: integerFlag(v("--tasks"), "--tasks", 0, MAX_SURFACE_TASKS, DEFAULT_SURFACE_TASKS),
    prompts: integerFlag(v("--prompts"), "--prompts", 0, 100, DEFAULT_SURFACE_PROMPTS),
    seed: integerFlag(v("--seed"), "--seed", -(2 ** 31), 2 ** 31 - 1, DEFAULT_SURFACE_SEED),
    ...(replay !== undefined ? { replay } : {}),
    maxFlips: integerFlag(v("--max-flips"), "--max-flips", 0, 1_000_000, 0),
    json: file(v("--json"), "--json", cwd),
    markdown: file(v("--markdown"), "--markdown", cwd),
    junit: file(v("--junit"), "--junit", cwd),
    ...(apiKey ? { apiKey } : {}),
    dataDir: path.resolve(cwd, v("--data-dir") ?? env.PLAYGROUND_DATA_DIR ?? defaultDataDir(env)),
    appUrl: (appUrl ?? DEFAULT_APP_URL).replace(/\/+$/, ""),
  };
}

/** A failure that means the diff could not run (exit 2), said on stderr. */
class CannotRun extends Error {}

function cannotRunMessage(err: unknown): string | null {
  if (err instanceof CannotRun || err instanceof SurfaceError || err instanceof UsageError)
    return err.message;
  if (isOrsClientError(err)) return err.detail;
  const e = err as { name?: string; detail?: string; message?: string };
  if (e?.name === "RunError" || e?.name === "ReplayError") return e.detail ?? e.message ?? String(err);
  return null;
}

async function behaviour(d: DiffArgs, bUrl: string, io: HeadlessIo): Promise<BehaviourDiff> {
  // Loaded only for --replay: the surface diff needs none of the playground.
  const { createPlayground } = await import("@/lib/playground");
  const { replayAndCompare } = await import("@/lib/conformance/diff/behaviour");
  const known = await recordingServer(
    bUrl,
    { dataDir: d.dataDir, apiKey: d.apiKey, command: "diff", what: "the replay's episodes are" },
    io,
  );
  const env = known.env;
  const pg = createPlayground(env, { scriptRoots: null });
  try {
    await pg.ready;
    io.stderr(`diff: replaying run ${d.replay} on ${known.name}\n`);
    return await replayAndCompare(
      { runs: pg.runs, store: pg.store },
      { run: d.replay!, server: known.name, env: d.envB, signal: io.signal },
    );
  } finally {
    await pg.close();
  }
}

function write(target: string, text: string, io: HeadlessIo) {
  if (target === "-") io.stdout(text);
  else fs.writeFileSync(target, text);
}

async function surfaces(
  d: DiffArgs,
  io: HeadlessIo,
): Promise<{ a: DiffSide; b: DiffSide; r: SurfaceDiffResult }> {
  const env = { ...io.env, PLAYGROUND_DATA_DIR: d.dataDir };
  const [ra, rb] = await Promise.all([
    resolveServer(d.a, d.dataDir, env),
    resolveServer(d.b, d.dataDir, env),
  ]);
  const client = (s: { url: string; apiKey?: string }) =>
    createOrsClient({ baseUrl: s.url, apiKey: d.apiKey ?? s.apiKey, fetch: io.fetch, timeoutMs: 60_000 });
  io.stderr(`diff: reading ${serverUrl(ra)} and ${serverUrl(rb)}\n`);
  const r = await runSurfaceDiff(
    { client: client(ra), env: d.envA },
    { client: client(rb), env: d.envB },
    { tasks: d.tasks, prompts: d.prompts, seed: d.seed, signal: io.signal },
  );
  return {
    a: { server: d.a, url: ra.url, env: d.envA ?? null },
    b: { server: d.b, url: rb.url, env: d.envB ?? null },
    r,
  };
}

/**
 * Runs `diff A B [options]`; resolves with the exit code.
 *
 * @example
 * await diffCommand(["http://127.0.0.1:8080", "http://127.0.0.1:8081", "--markdown", "diff.md"], io);
 */
export async function diffCommand(argv: readonly string[], io: HeadlessIo): Promise<number> {
  const cwd = io.cwd ?? process.cwd();
  const d = commandArgs(() => parseDiffArgs(argv, io.env ?? {}, cwd), io, "diff", DIFF_USAGE);
  if (typeof d === "number") return d;
  const started = Date.now();
  let report: DiffReport;
  try {
    const { a, b, r } = await surfaces(d, io);
    const scores = d.replay ? await behaviour(d, b.url, io) : null;
    report = buildDiffReport({
      a,
      b,
      startedAt: started,
      options: { tasks: d.tasks, prompts: d.prompts, seed: d.seed, maxFlips: d.maxFlips },
      changes: r.changes,
      unread: r.unread,
      behaviour: scores,
    });
  } catch (err) {
    const why = cannotRunMessage(err);
    if (why === null) throw err;
    io.stderr(`diff: ${why}\n`);
    return 2;
  }
  const stdoutTaken = d.json === "-" || d.markdown === "-";
  if (!stdoutTaken) io.stdout(formatDiffText(report, { color: io.color, appUrl: d.appUrl }));
  try {
    if (d.json) write(d.json, formatDiffJson(report), io);
    if (d.markdown) write(d.markdown, formatDiffMarkdown(report, { appUrl: d.appUrl }), io);
    if (d.junit) fs.writeFileSync(d.junit, diffJUnit(report));
  } catch (e) {
    io.stderr(`diff: could not write a report: ${(e as Error).message}\n`);
    return 2;
  }
  if (report.unread.length || report.behaviour?.error) {
    io.stderr(
      `diff: incomplete: ${[...report.unread.map((u) => `${u.side.toUpperCase()} ${u.env}: ${u.error}`), report.behaviour?.error].filter(Boolean).join("; ")}\n`,
    );
    return 2;
  }
  return report.passed ? 0 : 1;
}
