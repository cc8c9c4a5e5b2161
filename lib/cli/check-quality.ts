// `check URL --quality` (docs/check.md "Environment quality"): the quality checks' part of the check
// command — its flags, and the play: the playground loaded on the data folder the app uses, the
// server named as `run` names it (added to the app's servers when on this machine), the sample
// played and recorded there, the report joined to the protocol's.
import fs from "node:fs";
import path from "node:path";
import { unplayedQuality } from "@/lib/conformance/quality/report";
import {
  DEFAULT_QUALITY_SEED,
  DEFAULT_QUALITY_TASKS,
  MAX_QUALITY_TASKS,
  type QualityReport,
} from "@/lib/conformance/quality/types";
import type { Playground } from "@/lib/playground";
import { isRunError } from "@/lib/runs/errors";
import { integerFlag, type ParsedArgs, UsageError } from "./args";
import type { HeadlessIo } from "./io";
import { knownServer, liveApps } from "./known-server";
import { defaultDataDir } from "./start-command";

export const QUALITY_VALUE_FLAGS = [
  "--split",
  "--tasks",
  "--seed",
  "--oracle",
  "--data-dir",
  "--app-url",
] as const;

/** Where `diff --replay` links when told nothing (./diff-command.ts); check --quality finds the app it shares the store with. */
export const DEFAULT_APP_URL = "http://127.0.0.1:3000";

export const QUALITY_USAGE = `environment quality (docs/check.md "Environment quality"):
  --quality               also check the environment's quality: a seeded sample of its tasks
                          played with random valid inputs (and --oracle), each episode replayed;
                          finds answer-leak, nondeterministic, trivial-reward, oracle-below-max,
                          no-reward and tool-crash. The episodes are recorded in the playground
  --split NAME            the split to sample (default: the environment's first)
  --tasks N               tasks to sample (default ${DEFAULT_QUALITY_TASKS}, at most ${MAX_QUALITY_TASKS}; all when the split is smaller)
  --seed N                the seed of the sample and of the random inputs (default ${DEFAULT_QUALITY_SEED})
  --oracle MODULE         your oracle: a script policy module (docs/runs.md) solving each task
  --data-dir DIR          where the episodes are recorded (default $PLAYGROUND_DATA_DIR, else the
                          per-user folder \`ors-playground start\` uses)
  --app-url URL           the playground the printed links open (default: the one running on the
                          same store, else the links are paths, with the command that serves them)
`;

export interface QualityArgs {
  split?: string;
  tasks?: number;
  seed?: number;
  /** The oracle module, absolute. */
  oracle?: string;
  dataDir: string;
  /** Where the printed links go (`--app-url`); else the app sharing the store, found when played. */
  appUrl: string | null;
}

/** The quality flags of a parsed command line (null without --quality); throws UsageError. */
export function parseQualityArgs(
  args: ParsedArgs,
  env: Record<string, string | undefined>,
  cwd: string,
): QualityArgs | null {
  if (!args.booleans.has("--quality")) {
    const stray = QUALITY_VALUE_FLAGS.find((f) => args.values.has(f));
    // The probes (--probe) sample and record the same way: the flags are theirs too.
    if (stray && !args.booleans.has("--probe"))
      throw new UsageError(`${stray} goes with --quality or --probe`);
    return null;
  }
  return parseSampleFlags(args, env, cwd);
}

/** The sample's flags (--split, --tasks, --seed, --oracle, --data-dir, --app-url), for --quality and --probe. */
export function parseSampleFlags(
  args: ParsedArgs,
  env: Record<string, string | undefined>,
  cwd: string,
): QualityArgs {
  const v = (flag: string) => args.values.get(flag);
  const out: QualityArgs = {
    dataDir: path.resolve(cwd, v("--data-dir") ?? env.PLAYGROUND_DATA_DIR ?? defaultDataDir(env)),
    appUrl: null,
  };
  const split = v("--split");
  if (split !== undefined) {
    if (!split.trim()) throw new UsageError("--split: empty name");
    out.split = split;
  }
  if (v("--tasks") !== undefined) out.tasks = integerFlag(v("--tasks"), "--tasks", 1, MAX_QUALITY_TASKS, 0);
  if (v("--seed") !== undefined) out.seed = integerFlag(v("--seed"), "--seed", -(2 ** 31), 2 ** 31 - 1, 0);
  const oracle = v("--oracle");
  if (oracle !== undefined) {
    const file = path.resolve(cwd, oracle);
    if (!oracle.trim() || !fs.existsSync(file) || !fs.statSync(file).isFile())
      throw new UsageError(`--oracle: no file ${file}`);
    out.oracle = file;
  }
  const appUrl = v("--app-url");
  if (appUrl !== undefined) {
    let u: URL;
    try {
      u = new URL(appUrl);
    } catch {
      throw new UsageError(`--app-url: not a URL: ${JSON.stringify(appUrl)}`);
    }
    if (u.protocol !== "http:" && u.protocol !== "https:")
      throw new UsageError("--app-url: the URL must be http:// or https://");
    out.appUrl = appUrl.replace(/\/+$/, "");
  }
  return out;
}

export interface QualityPlayOptions {
  url: string;
  env: string | null;
  apiKey?: string;
  allow: readonly string[];
  maxTimeMs?: number;
}

/**
 * Plays the quality checks against `url`, recording into the playground of `q.dataDir`. Answers the
 * report, and 2 as `exit` when they could not play for a mistake of the command line (an unknown
 * environment or split, an oracle that fails to load), 1 when the server failed them.
 */
export async function playQuality(
  q: QualityArgs,
  o: QualityPlayOptions,
  io: HeadlessIo,
): Promise<{ report: QualityReport; exit: number | null; appUrl: string | undefined }> {
  const env: Record<string, string | undefined> = { ...io.env, PLAYGROUND_DATA_DIR: q.dataDir };
  let pg: Playground | null = null;
  let appUrl: string | undefined = q.appUrl ?? undefined;
  let name = "";
  try {
    // Loaded here, not at the CLI's start: the protocol check alone needs none of it.
    const { createPlayground } = await import("@/lib/playground");
    const { qualityDeps, runQualityChecks } = await import("@/lib/conformance/quality/run-quality");
    pg = createPlayground(env, { scriptRoots: null, runWorker: true });
    await pg.ready;
    const k = await knownServer(pg, o.url);
    name = k.name;
    if (k.added) io.stderr(`check: added the server ${o.url} to the playground as "${name}"\n`);
    if (k.tell?.why === "remote")
      io.stderr(
        `check: ${o.url} was not added to the playground's servers (${k.tell.reason}); to open the episodes in the app, start it with ORS_SERVERS=${name}=${o.url}\n`,
      );
    const keyVar = `ORS_SERVER_API_KEY_${name.toUpperCase().replace(/-/g, "_")}`;
    if (k.tell || (o.apiKey && env[keyVar] !== o.apiKey)) {
      if (k.tell) env.ORS_SERVERS = [env.ORS_SERVERS?.trim(), `${name}=${o.url}`].filter(Boolean).join(",");
      if (o.apiKey) env[keyVar] = o.apiKey;
      await pg.close();
      pg = createPlayground(env, { scriptRoots: null, runWorker: true });
      await pg.ready;
    }
    // The links go to the playground that shares this store when one runs; else they are paths.
    appUrl ??= (await liveApps(pg))[0]?.url;
    io.stderr(`check: the quality checks' episodes are recorded in ${pg.storage.where} (server "${name}")\n`);
    if (!appUrl)
      io.stderr(
        `check: no playground runs on this store now: open the links below in one started with \`ors-playground start --data-dir ${q.dataDir}\` (or with the same PLAYGROUND_DATABASE_URL)\n`,
      );
    const report = await runQualityChecks(qualityDeps(pg), {
      server: name,
      env: o.env,
      ...(q.split !== undefined ? { split: q.split } : {}),
      ...(q.tasks !== undefined ? { tasks: q.tasks } : {}),
      ...(q.seed !== undefined ? { seed: q.seed } : {}),
      ...(q.oracle !== undefined ? { oracle: q.oracle } : {}),
      allow: o.allow,
      signal: io.signal,
      ...(o.maxTimeMs !== undefined ? { maxTimeMs: o.maxTimeMs } : {}),
      onProgress: io.progress ? progressLines("quality", io) : undefined,
    });
    return { report, exit: null, appUrl };
  } catch (err) {
    if (!isRunError(err)) throw err;
    return { report: unplayedQuality(name, err.detail, o.allow), exit: err.status < 500 ? 2 : 1, appUrl };
  } finally {
    await pg?.close();
  }
}

/**
 * Progress lines on stderr for a terminal: `[quality] playing 12/48`, once per phase and at its
 * end, and every `every` episodes between (the probes play thousands).
 */
export function progressLines(
  label: string,
  io: Pick<HeadlessIo, "stderr">,
  every = Number.POSITIVE_INFINITY,
): (p: { phase: string; done: number; total: number }) => void {
  let phase = "";
  return (p) => {
    if (p.phase === phase && p.done !== p.total && p.done % every !== 0) return;
    phase = p.phase;
    io.stderr(`[${label}] ${p.phase}${p.total ? ` ${p.done}/${p.total}` : ""}\n`);
  };
}
