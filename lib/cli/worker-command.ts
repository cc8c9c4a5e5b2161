// `worker`: a worker of the runs' job queue alone (docs/runs.md "Runs as jobs") — no UI, no HTTP
// listener — on any machine that reaches the database (PLAYGROUND_DATABASE_URL) and the servers:
// it plays the episodes of the runs it can play until Ctrl-C / SIGTERM, then hands what it was
// playing back to the queue (those episodes are played again elsewhere).
import path from "node:path";
import type { Playground } from "@/lib/playground";
import { parseArgs, UsageError, usageFailure } from "./args";
import { type CommandIo, untilAborted } from "./io";

export const WORKER_USAGE = `usage: worker [options]

Plays the episodes of runs from the playground's job queue on PostgreSQL (PLAYGROUND_DATABASE_URL),
alone: no UI, no HTTP listener. Any number of workers (and app replicas, each a worker unless
PLAYGROUND_RUN_WORKER=0) play one run together; a worker takes only runs whose server it knows
(ORS_SERVERS, or added in the app), whose model endpoint it has (PLAYGROUND_MODELS) and whose script
it can load. Stopped by Ctrl-C or SIGTERM: what it was playing is played again by the others.

options:
  --slots N          episodes it plays at once, across runs (default $PLAYGROUND_RUN_WORKER_SLOTS, else 32)
  --data-dir DIR     where its servers.json is read (default $PLAYGROUND_DATA_DIR)
  -h, --help         this help
`;

/** Runs `worker`; resolves with the exit code once stopped. */
export async function workerCommand(argv: readonly string[], io: CommandIo): Promise<number> {
  let args: ReturnType<typeof parseArgs>;
  try {
    args = parseArgs(argv, {
      values: ["--slots", "--data-dir"],
      booleans: ["--help"],
      aliases: { "-h": "--help" },
    });
    if (args.positionals.length) throw new UsageError(`unexpected ${JSON.stringify(args.positionals[0])}`);
  } catch (err) {
    return usageFailure(err, io, "worker", WORKER_USAGE);
  }
  if (args.booleans.has("--help")) {
    io.stdout(WORKER_USAGE);
    return 0;
  }
  const env: Record<string, string | undefined> = { ...io.env, PLAYGROUND_RUN_WORKER: "1" };
  if (!env.PLAYGROUND_DATABASE_URL?.trim()) {
    io.stderr("worker: set PLAYGROUND_DATABASE_URL: a worker plays runs from the job queue on PostgreSQL\n");
    return 2;
  }
  const slots = args.values.get("--slots");
  if (slots !== undefined) env.PLAYGROUND_RUN_WORKER_SLOTS = slots;
  const dataDir = args.values.get("--data-dir");
  if (dataDir !== undefined) env.PLAYGROUND_DATA_DIR = path.resolve(io.cwd ?? process.cwd(), dataDir);
  let pg: Playground | null = null;
  try {
    const { createPlayground } = await import("@/lib/playground");
    pg = createPlayground(env, { runWorker: true });
    await pg.ready;
  } catch (err) {
    io.stderr(`worker: ${(err as Error).message}\n`);
    await pg?.close().catch(() => {});
    return 2;
  }
  io.stdout(`worker ${pg.instance.id} (pid ${process.pid}) playing runs from ${pg.storage.where}\n`);
  await untilAborted(io.signal);
  io.stderr(`worker ${pg.instance.id}: stopping; what it was playing goes back to the queue\n`);
  await pg.close();
  return 0;
}
