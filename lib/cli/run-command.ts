// `run <server-url> --env NAME --split NAME [...]`: a policy plays a split from the command line
// (docs/runs.md "CLI"), through the same executor as the app, recording into the store the app uses
// (PLAYGROUND_DATA_DIR, or PLAYGROUND_DATABASE_URL), so the run shows in the playground. With
// PostgreSQL the run is enqueued and this process plays it with the other workers (unless
// --no-play or --detach); `run --follow ID` follows any run. A progress bar on a terminal, a plain
// summary otherwise (./run-report.ts). Exit code 0 when done (and at or above --min-success), 1 below
// it, 2 when it cannot run.
import type { Playground } from "@/lib/playground";
import { createServerRegistry, invalidServerName } from "@/lib/registry";
import type { ServerPersistence } from "@/lib/registry/persistence";
import { isRunError } from "@/lib/runs/errors";
import type { RunRecord } from "@/lib/store/types";
import { UsageError } from "./args";
import type { CommandIo } from "./io";
import { type FollowArgs, parseRunArgs, RUN_USAGE, type RunArgs } from "./run-args";
import { reportRun, untilStopped } from "./run-report";

export { RUN_USAGE } from "./run-args";

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

/** Opens the playground this command records into; null (and said why) when its store cannot be used. */
async function openPlayground(
  env: Record<string, string | undefined>,
  o: { runWorker: boolean },
  io: CommandIo,
): Promise<Playground | null> {
  // Loaded here, not at the CLI's start: the other commands need none of it.
  const { createPlayground } = await import("@/lib/playground");
  let pg: Playground | null = null;
  try {
    pg = createPlayground(env, { scriptRoots: null, runWorker: o.runWorker });
    await pg.ready;
    return pg;
  } catch (err) {
    io.stderr(`run: could not use the playground's store: ${(err as Error).message}\n`);
    await pg?.close().catch(() => {});
    return null;
  }
}

/** `run --follow ID`: follows a run played anywhere to its end; then reports it. */
async function followCommand(a: FollowArgs, io: CommandIo): Promise<number> {
  const pg = await openPlayground({ ...io.env, PLAYGROUND_DATA_DIR: a.dataDir }, { runWorker: false }, io);
  if (!pg) return 2;
  try {
    const found = await pg.store.getRun(a.follow);
    if (!found) {
      io.stderr(`run: no run with id "${a.follow}" in ${pg.storage.where}\n`);
      return 2;
    }
    io.stderr(
      `run: following ${found.id} (${found.status}): ${found.episodes} episodes of ${found.env}/${found.split} on ${found.server}\n`,
    );
    const ended = await untilStopped(pg, found.id, io);
    if (!ended) return 1;
    return await reportRun(pg, ended, { ...a, url: found.server }, io);
  } finally {
    await pg.close();
  }
}

/** The server's name, said (and made known to this process) as the playground knows it. */
async function nameServer(
  a: RunArgs,
  env: Record<string, string | undefined>,
  io: CommandIo,
): Promise<string | null> {
  let known: Awaited<ReturnType<typeof knownName>>;
  try {
    known = await knownName(a, env);
  } catch (err) {
    // PLAYGROUND_DATABASE_URL malformed or unreachable: said as the app says it at start.
    io.stderr(`run: could not use the playground's store: ${(err as Error).message}\n`);
    return null;
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
  return name;
}

/** Runs `run <url> ...` (or `run --follow ID`); resolves with the exit code. */
export async function runCommand(argv: readonly string[], io: CommandIo): Promise<number> {
  let a: RunArgs | FollowArgs | null;
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
  if ("follow" in a) return followCommand(a, io);
  const env: Record<string, string | undefined> = { ...io.env, PLAYGROUND_DATA_DIR: a.dataDir };
  const name = await nameServer(a, env, io);
  if (name === null) return 2;
  // With PostgreSQL this process is one of the queue's workers unless it only enqueues.
  const pg = await openPlayground(env, { runWorker: a.play === "play" }, io);
  if (!pg) return 2;
  try {
    if (a.policy.kind === "replay" && a.policy.run && !(await pg.store.getRun(a.policy.run)))
      a.policy = {
        kind: "replay",
        trajectory: a.policy.run,
        ...(a.policy.maxTurns ? { maxTurns: a.policy.maxTurns } : {}),
      };
    let run: RunRecord;
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
    const who = a.play === "play" ? "" : " (enqueued: the workers play it)";
    io.stderr(
      `run: ${run.id}: ${run.episodes} episode${run.episodes === 1 ? "" : "s"} of ${a.env}/${a.split} on ${name}, recorded in ${pg.storage.where}${who}\n`,
    );
    if (a.play === "detach") {
      io.stdout(`${run.id}\n`);
      return 0;
    }
    const stopOnSignal = () => void pg.runs.cancel(run.id).catch(() => {});
    io.signal?.addEventListener("abort", stopOnSignal, { once: true });
    const ended = await untilStopped(pg, run.id, io);
    io.signal?.removeEventListener("abort", stopOnSignal);
    if (!ended) return 1;
    return await reportRun(pg, ended, a, io);
  } finally {
    await pg.close();
  }
}
