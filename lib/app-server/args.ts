// Command-line arguments of the app's server entry (`npm start`, `npm run dev`): where to listen,
// whether to run Next in development mode, and a server to run beside it (`--spawn`, as the CLI's
// `start` takes it). `PORT` is the default port, as for `next start`.
import "server-only";
import { invalidServerName } from "@/lib/registry/registry";
import { DEFAULT_LISTEN_HOST } from "@/lib/security/listen";
import type { SpawnSpec } from "@/lib/spawn/managed-server";
import { SPAWN_FLAGS_USAGE, type SpawnFlags, spawnFromFlags } from "@/lib/spawn/spawn-flags";

export const APP_SERVER_USAGE = `usage: npm start -- [--port 3000] [--host 127.0.0.1] [--spawn "CMD" ...]   (production build: npm run build first)
       npm run dev -- [--port 3000] [--host 127.0.0.1] [--spawn "CMD" ...]
  --port, -p   port (default $PORT, else 3000; 0 picks a free one)
  --host, -H   listen address (default 127.0.0.1; 0.0.0.0 or :: for every interface)
  --dev        Next's development mode (on-demand compilation, hot reload)
${SPAWN_FLAGS_USAGE}
Pages and APIs need an access token, printed at startup in the URL to open: $PLAYGROUND_TOKEN, or
one generated at each start. PLAYGROUND_AUTH=none turns it off (throwaway containers, CI jobs).`;

export interface AppServerArgs {
  port: number;
  host: string;
  dev: boolean;
  help: boolean;
  /** The server to run beside the playground (`--spawn`), if any. */
  spawn: SpawnSpec[];
}

function portOf(value: string | undefined, what: string): number {
  const port = Number(value);
  if (value === undefined || value.trim() === "" || !Number.isInteger(port) || port < 0 || port > 65535)
    throw new Error(`${what} must be a port number (0-65535), got ${JSON.stringify(value ?? "")}`);
  return port;
}

/** Flags that take a value, and the spawn flag each fills. */
const SPAWN_VALUES: Record<string, "command" | "name" | "restart"> = {
  "--spawn": "command",
  "--spawn-name": "name",
  "--restart": "restart",
};

/**
 * Parses `argv` (without node and the script), with `env` (PORT) and `cwd` (where a spawned server
 * runs); throws with the usage on anything unknown.
 */
export function parseAppServerArgs(
  argv: string[],
  env: Readonly<Record<string, string | undefined>>,
  cwd: string = process.cwd(),
): AppServerArgs {
  const out: AppServerArgs = {
    port: env.PORT?.trim() ? portOf(env.PORT, "PORT") : 3000,
    host: DEFAULT_LISTEN_HOST,
    dev: false,
    help: false,
    spawn: [],
  };
  const spawn: { -readonly [K in keyof SpawnFlags]: SpawnFlags[K] } & { watch: string[] } = { watch: [] };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const eq = arg.indexOf("=");
    const flag = arg.startsWith("--") && eq > 0 ? arg.slice(0, eq) : arg;
    const inline = flag === arg ? undefined : arg.slice(eq + 1);
    const value = () => inline ?? argv[++i];
    if (flag === "--port" || flag === "-p") out.port = portOf(value(), "--port");
    else if (flag === "--host" || flag === "-H" || flag === "--hostname") {
      const host = value();
      if (!host) throw new Error(`--host needs an address\n${APP_SERVER_USAGE}`);
      out.host = host;
    } else if (flag === "--dev") out.dev = true;
    else if (flag === "--help" || flag === "-h") out.help = true;
    else if (flag in SPAWN_VALUES || flag === "--watch") {
      const v = value();
      if (v === undefined) throw new Error(`${flag} needs a value\n${APP_SERVER_USAGE}`);
      if (flag === "--watch") spawn.watch.push(v);
      else spawn[SPAWN_VALUES[flag]!] = v;
    } else throw new Error(`unknown argument ${JSON.stringify(arg)}\n${APP_SERVER_USAGE}`);
  }
  const spec = spawnFromFlags(spawn, cwd, invalidServerName);
  if (spec) out.spawn.push(spec);
  return out;
}
