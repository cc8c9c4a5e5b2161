// `run <server-url> --env NAME --split NAME [...]`: a policy plays a split from the command line
// (docs/runs.md "CLI"), through the same executor as the app, recording into the store the app uses
// (PLAYGROUND_DATA_DIR, or PLAYGROUND_DATABASE_URL), so the run shows in the playground. With
// PostgreSQL the run is enqueued and this process plays it with the other workers (unless
// --no-play or --detach); `run --follow ID` follows any run. A progress bar on a terminal, a plain
// summary otherwise (./run-report.ts). Exit code 0 when done (and at or above --min-success), 1 below
// it, 2 when it cannot run.
import type { Playground } from "@/lib/playground";
import { isRunError } from "@/lib/runs/errors";
import type { RunRecord } from "@/lib/store/types";
import { commandArgs } from "./args";
import type { CommandIo } from "./io";
import { knownServer } from "./known-server";
import { type FollowArgs, parseRunArgs, RUN_USAGE, type RunArgs } from "./run-args";
import { reportRun, untilStopped } from "./run-report";

export { RUN_USAGE } from "./run-args";

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

/**
 * The playground this run records into, knowing the server by the name the playground gives it
 * (./known-server.ts): reopened with `ORS_SERVERS` (and its key) when this process must be told.
 */
async function openFor(
  a: RunArgs,
  env: Record<string, string | undefined>,
  io: CommandIo,
  say: (line: string) => void,
): Promise<{ pg: Playground; name: string } | null> {
  const runWorker = a.play === "play";
  let pg = await openPlayground(env, { runWorker }, io);
  if (!pg) return null;
  const k = await knownServer(pg, a.url);
  if (k.added) say(`added the server ${a.url} to the playground as "${k.name}"`);
  if (k.tell?.why === "app")
    say(`the playground at ${k.tell.appUrl} knows ${a.url} as "${k.name}": recorded under that name`);
  if (k.tell?.why === "remote")
    say(
      `${a.url} was not added to the playground's servers (${k.tell.reason}); to open this run's episodes in the app, start it with ORS_SERVERS=${k.name}=${a.url}`,
    );
  const keyVar = `ORS_SERVER_API_KEY_${k.name.toUpperCase().replace(/-/g, "_")}`;
  const needsKey = !!a.apiKey && env[keyVar] !== a.apiKey;
  if (k.tell || needsKey) {
    if (k.tell) env.ORS_SERVERS = [env.ORS_SERVERS?.trim(), `${k.name}=${a.url}`].filter(Boolean).join(",");
    if (a.apiKey) env[keyVar] = a.apiKey;
    await pg.close();
    pg = await openPlayground(env, { runWorker }, io);
    if (!pg) return null;
  }
  return { pg, name: k.name };
}

/** Runs `run <url> ...` (or `run --follow ID`); resolves with the exit code. */
export async function runCommand(argv: readonly string[], io: CommandIo): Promise<number> {
  const a = commandArgs(() => parseRunArgs(argv, io.env), io, "run", RUN_USAGE);
  if (typeof a === "number") return a;
  if ("follow" in a) return followCommand(a, io);
  const env: Record<string, string | undefined> = { ...io.env, PLAYGROUND_DATA_DIR: a.dataDir };
  // With PostgreSQL this process is one of the queue's workers unless it only enqueues.
  const opened = await openFor(a, env, io, (line) => io.stderr(`run: ${line}\n`));
  if (!opened) return 2;
  const { pg, name } = opened;
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
