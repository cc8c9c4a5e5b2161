// `stub <run-or-file>`: a stand-in ORS server (docs/ci.md "A stand-in server") — a recorded run (by
// id, from the store the app uses) or a file of recorded trajectories served by our host, each call
// answered with the recorded result of the same task, step and input (lib/conformance/stub). With
// `--surface` the server's surface is served too (read from it now, or from a file); `--save FILE`
// writes the stub file instead of serving, for a CI without the real environment.
import fs from "node:fs";
import path from "node:path";
import {
  DEFAULT_SURFACE_PROMPTS,
  DEFAULT_SURFACE_SEED,
  DEFAULT_SURFACE_TASKS,
  MAX_SURFACE_TASKS,
  readSurface,
  type Surface,
} from "@/lib/conformance/diff/surface";
import { stubEnvironments } from "@/lib/conformance/stub/environments";
import { formatStubFile, parseStubFile, type StubRecord } from "@/lib/conformance/stub/record";
import { createOrsClient, isOrsClientError } from "@/lib/ors/client";
import { createNodeListener, createOrsHandler, hostOptionsFromEnv } from "@/lib/ors/host";
import { DEFAULT_LISTEN_HOST, isLoopbackAddress, newSecret } from "@/lib/security/listen";
import type { Trajectory } from "@/lib/trajectory/schema";
import { integerFlag, parseArgs, portOf, UsageError } from "./args";
import { type CommandIo, untilAborted } from "./io";
import { listenOrs } from "./serve-command";
import { resolveServer } from "./servers";
import { defaultDataDir } from "./start-command";

export const STUB_USAGE = `usage: stub <run-or-file> [options]

Serves recorded episodes as an ORS server: a run the playground recorded (its id), or a file of
recorded trajectories (an export's JSONL, or a stub file written with --save). It serves the
recorded environments, tools, splits, tasks and prompts, and answers each call with the recorded
result of the same task, step and input. A call off the record answers a tool error naming what
was recorded at that step. For a CI without the real environment, offline demos, reproducing a bug.

options:
  --surface SOURCE  serve the server's whole surface too (every split, task spec and tool, as diff
                    reads it): a server (URL or name) read now, or a file (a stub file, a surface)
  --save FILE       write the stub file (the surface and the trajectories) instead of serving
  --lenient         off the record, answer the nearest recorded result (and say so in its
                    metadata's "stub" field) instead of a tool error
  --port, -p N      port (default $PORT, else 8080; 0 picks a free one)
  --host, -H ADDR   listen address (default 127.0.0.1); off loopback clients need an API key
                    ($ORS_API_KEYS, or one generated and printed)
  --tasks N         with a --surface server: task specs read per split (default ${DEFAULT_SURFACE_TASKS})
  --prompts N       with a --surface server: prompts read per split (default ${DEFAULT_SURFACE_PROMPTS})
  --seed N          the seed of that sample (default ${DEFAULT_SURFACE_SEED}; diff's, so diff reads the same)
  --api-key KEY     sent to the --surface server as X-API-Key (default: $ORS_API_KEY)
  --data-dir DIR    the playground's data folder, where runs are (default $PLAYGROUND_DATA_DIR, else
                    the per-user folder \`ors-playground start\` uses)
  -h, --help        this help

Exit code: 0 when stopped (Ctrl-C) or saved, 1 when it could not listen, 2 for a mistake (an unknown
run, a file that is not recorded trajectories, a --surface server that cannot be read).
`;

export interface StubArgs {
  source: string;
  surface?: string;
  save: string | null;
  lenient: boolean;
  port: number;
  host: string;
  tasks: number;
  prompts: number;
  seed: number;
  apiKey?: string;
  dataDir: string;
}

/** Parses the command line; throws UsageError. Null for --help. */
export function parseStubArgs(
  argv: readonly string[],
  env: Record<string, string | undefined> = {},
  cwd = process.cwd(),
): StubArgs | null {
  const args = parseArgs(argv, {
    values: [
      "--surface",
      "--save",
      "--port",
      "--host",
      "--tasks",
      "--prompts",
      "--seed",
      "--api-key",
      "--data-dir",
    ],
    booleans: ["--lenient", "--help"],
    aliases: { "-h": "--help", "-p": "--port", "-H": "--host" },
  });
  if (args.booleans.has("--help")) return null;
  if (args.positionals.length !== 1)
    throw new UsageError("give one run id or one file of recorded trajectories, e.g. stub episodes.jsonl");
  const v = (flag: string) => args.values.get(flag);
  const save = v("--save");
  if (save !== undefined && !save.trim()) throw new UsageError("--save: empty file name");
  const surface = v("--surface");
  if (surface !== undefined && !surface.trim()) throw new UsageError("--surface: empty");
  const apiKey = v("--api-key") ?? env.ORS_API_KEY;
  return {
    source: args.positionals[0]!,
    ...(surface !== undefined ? { surface } : {}),
    save: save === undefined ? null : path.resolve(cwd, save),
    lenient: args.booleans.has("--lenient"),
    port: portOf(v("--port") ?? env.PORT ?? "8080", v("--port") !== undefined ? "--port" : "PORT"),
    host: v("--host") ?? DEFAULT_LISTEN_HOST,
    tasks: integerFlag(v("--tasks"), "--tasks", 0, MAX_SURFACE_TASKS, DEFAULT_SURFACE_TASKS),
    prompts: integerFlag(v("--prompts"), "--prompts", 0, 100, DEFAULT_SURFACE_PROMPTS),
    seed: integerFlag(v("--seed"), "--seed", -(2 ** 31), 2 ** 31 - 1, DEFAULT_SURFACE_SEED),
    ...(apiKey ? { apiKey } : {}),
    dataDir: path.resolve(cwd, v("--data-dir") ?? env.PLAYGROUND_DATA_DIR ?? defaultDataDir(env)),
  };
}

function readFileOrNull(file: string): string | null {
  try {
    return fs.statSync(file).isFile() ? fs.readFileSync(file, "utf8") : null;
  } catch {
    return null;
  }
}

/** A run's episodes from the playground's store, oldest first. */
async function runTrajectories(
  id: string,
  a: StubArgs,
  env: Record<string, string | undefined>,
): Promise<Trajectory[]> {
  const { createPlayground } = await import("@/lib/playground");
  const pg = createPlayground({ ...env, PLAYGROUND_DATA_DIR: a.dataDir }, { scriptRoots: null });
  try {
    await pg.ready;
    const run = await pg.store.getRun(id);
    if (!run) throw new UsageError(`${id}: no such file, and no run with that id in ${pg.storage.where}`);
    const out: Trajectory[] = [];
    for (const e of await pg.store.runEpisodes(id)) {
      const t = e.trajectoryId ? await pg.store.get(e.trajectoryId) : null;
      if (t) out.push(t);
    }
    if (!out.length) throw new UsageError(`run ${id} has no recorded episode`);
    return out;
  } finally {
    await pg.close();
  }
}

async function surfaceFrom(
  a: StubArgs,
  cwd: string,
  env: Record<string, string | undefined>,
  record: StubRecord,
): Promise<Surface> {
  const text = readFileOrNull(path.resolve(cwd, a.surface!));
  if (text !== null) {
    const s = parseStubFile(text).surface;
    if (!s) throw new UsageError(`--surface ${a.surface}: the file holds no surface`);
    return s;
  }
  const server = await resolveServer(a.surface!, a.dataDir, { ...env, PLAYGROUND_DATA_DIR: a.dataDir });
  const client = createOrsClient({
    baseUrl: server.url,
    apiKey: a.apiKey ?? server.apiKey,
    timeoutMs: 60_000,
  });
  const recorded = new Set(record.trajectories.map((t) => t.env).filter((e): e is string => !!e));
  const read = async (name?: string) =>
    readSurface(client, { env: name, tasks: a.tasks, prompts: a.prompts, seed: a.seed });
  try {
    // One recorded environment: read alone (diff --env reads the same). Several: every one.
    if (recorded.size === 1) return await read([...recorded][0]);
    return await read();
  } catch (err) {
    throw new UsageError(
      `--surface ${a.surface}: ${isOrsClientError(err) ? err.detail : (err as Error).message}`,
    );
  }
}

async function load(a: StubArgs, io: CommandIo): Promise<StubRecord> {
  const cwd = io.cwd ?? process.cwd();
  const text = readFileOrNull(path.resolve(cwd, a.source));
  let record: StubRecord;
  if (text !== null) {
    try {
      record = parseStubFile(text);
    } catch (err) {
      throw new UsageError(`${a.source}: ${(err as Error).message}`);
    }
  } else record = { surface: null, trajectories: await runTrajectories(a.source, a, io.env) };
  if (a.surface) record = { ...record, surface: await surfaceFrom(a, cwd, io.env, record) };
  return record;
}

/** Runs `stub`: serves until `io.signal` aborts (or saves); the exit code. */
export async function stubCommand(argv: readonly string[], io: CommandIo): Promise<number> {
  let a: StubArgs | null;
  let record: StubRecord;
  try {
    a = parseStubArgs(argv, io.env, io.cwd ?? process.cwd());
    if (!a) {
      io.stdout(STUB_USAGE);
      return 0;
    }
    record = await load(a, io);
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    io.stderr(`stub: ${e.message}\n${e.message.startsWith("give") ? `\n${STUB_USAGE}` : ""}`);
    return 2;
  }
  if (a.save) {
    fs.writeFileSync(a.save, formatStubFile(record));
    io.stdout(
      `stub: wrote ${a.save}: ${record.trajectories.length} episodes${record.surface ? `, the surface of ${record.surface.url}` : ""}\n`,
    );
    return 0;
  }
  const { environments, skipped } = stubEnvironments(record, {
    lenient: a.lenient,
    log: (line) => io.stderr(`[stub] ${line}\n`),
  });
  for (const s of skipped) io.stderr(`stub: not served: ${s}\n`);
  if (!environments.length) {
    io.stderr("stub: nothing to serve: no recorded environment has tools and splits\n");
    return 2;
  }
  // An unknown tool is an error of the call, as the spec lists it (the host's own behaviour).
  const options = hostOptionsFromEnv(io.env);
  const generatedKey = !isLoopbackAddress(a.host) && !options.apiKeys?.length ? newSecret() : null;
  if (generatedKey) options.apiKeys = [generatedKey];
  const handler = createOrsHandler(environments, options);
  let listening: Awaited<ReturnType<typeof listenOrs>>;
  try {
    listening = await listenOrs(createNodeListener(handler), { host: a.host, port: a.port, env: io.env });
  } catch (e) {
    await handler.close();
    io.stderr(`stub: could not listen on ${a.host}:${a.port}: ${(e as Error).message}\n`);
    return 1;
  }
  const names = environments.map((e) => e.name).join(", ");
  io.stdout(`ORS stub listening on ${listening.url} (environments: ${names})\n`);
  io.stdout(
    `  ${record.trajectories.length} recorded episodes${record.surface ? `; the surface of ${record.surface.url} (read ${record.surface.readAt})` : ""}${a.lenient ? "; lenient" : ""}\n`,
  );
  if (generatedKey) io.stdout(`  clients must send this generated key as X-API-Key:\n  ${generatedKey}\n`);
  io.stdout("  Stop: Ctrl-C\n");
  await untilAborted(io.signal);
  const stopped = listening.close();
  await handler.close();
  await stopped;
  return 0;
}
