// The command-line flags that start a server with the playground, as `ors-playground start` and the
// app's own entry (`npm start -- --spawn …`, `npm run dev -- --spawn …`) both take them: `--spawn
// CMD`, `--spawn-name NAME`, `--watch DIR` (repeatable), `--restart on-failure`.
import "server-only";
import path from "node:path";
import { CommandLineError, nameFromCommand, parseCommandLine } from "./command-line";
import type { SpawnSpec } from "./managed-server";
import { RESTART_POLICIES, type RestartPolicy } from "./types";

export const SPAWN_FLAGS_USAGE = `  --spawn "CMD"      run your ORS server: the playground starts CMD on a free port (given as
                     {port} in CMD, and as $PORT), shows its log on the server's page, and
                     registers it once it answers /health, e.g.
                       --spawn "python my_env.py --port {port}"
  --watch DIR        with --spawn: restart it when a file under DIR changes (repeatable); the
                     episodes running on it end, saying so
  --spawn-name NAME  with --spawn: its name in the playground (default: from the command, e.g.
                     my_env for python my_env.py)
  --restart on-failure
                     with --spawn: start it again when it exits by itself (waiting longer each
                     time it keeps failing); without it, a server that crashed stays down until
                     you press Restart on its page`;

/** A mistake in the spawn flags, said as the flag it is about. */
export class SpawnFlagError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "SpawnFlagError";
  }
}

export interface SpawnFlags {
  command?: string;
  name?: string;
  watch: readonly string[];
  restart?: string;
}

/**
 * The server the flags describe (null without `--spawn`), its folders resolved against `cwd`;
 * `invalidName` is the registry's rule for server names. Throws SpawnFlagError.
 */
export function spawnFromFlags(
  f: SpawnFlags,
  cwd: string,
  invalidName: (name: string) => string | null,
): SpawnSpec | null {
  if (f.command === undefined) {
    if (f.watch.length || f.name !== undefined)
      throw new SpawnFlagError("--watch and --spawn-name go with --spawn");
    if (f.restart !== undefined) throw new SpawnFlagError("--restart goes with --spawn");
    return null;
  }
  let parsed: ReturnType<typeof parseCommandLine>;
  try {
    parsed = parseCommandLine(f.command);
  } catch (e) {
    if (e instanceof CommandLineError)
      throw new SpawnFlagError(`--spawn: ${e.message} (e.g. --spawn "python my_env.py --port {port}")`);
    throw e;
  }
  const name = f.name ?? nameFromCommand(parsed) ?? "spawned";
  const bad = invalidName(name);
  if (bad)
    throw new SpawnFlagError(
      f.name === undefined
        ? `--spawn: the name taken from the command, ${JSON.stringify(name)}, cannot be used (${bad}): give one with --spawn-name`
        : `--spawn-name ${JSON.stringify(name)}: ${bad}`,
    );
  for (const dir of f.watch) if (!dir.trim()) throw new SpawnFlagError("--watch needs a folder");
  if (f.restart !== undefined && !(RESTART_POLICIES as readonly string[]).includes(f.restart))
    throw new SpawnFlagError(
      `--restart: expected ${RESTART_POLICIES.join(" or ")}, got ${JSON.stringify(f.restart)}`,
    );
  const spec: SpawnSpec = { name, command: f.command, cwd, watch: f.watch.map((d) => path.resolve(cwd, d)) };
  if (f.restart) spec.restart = f.restart as RestartPolicy;
  return spec;
}
