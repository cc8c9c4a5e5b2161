// Command-line arguments of the app's server entry (`npm start`, `npm run dev`): where to listen and
// whether to run Next in development mode. `PORT` is the default port, as for `next start`.
import { DEFAULT_LISTEN_HOST } from "@/lib/security/listen";

export const APP_SERVER_USAGE = `usage: npm start -- [--port 3000] [--host 127.0.0.1]   (production build: npm run build first)
       npm run dev -- [--port 3000] [--host 127.0.0.1]
  --port, -p   port (default $PORT, else 3000; 0 picks a free one)
  --host, -H   listen address (default 127.0.0.1; 0.0.0.0 or :: for every interface)
  --dev        Next's development mode (on-demand compilation, hot reload)
Pages and APIs need an access token, printed at startup in the URL to open: $PLAYGROUND_TOKEN, or
one generated at each start. PLAYGROUND_AUTH=none turns it off (throwaway containers, CI jobs).`;

export interface AppServerArgs {
  port: number;
  host: string;
  dev: boolean;
  help: boolean;
}

function portOf(value: string | undefined, what: string): number {
  const port = Number(value);
  if (value === undefined || value.trim() === "" || !Number.isInteger(port) || port < 0 || port > 65535)
    throw new Error(`${what} must be a port number (0-65535), got ${JSON.stringify(value ?? "")}`);
  return port;
}

/** Parses `argv` (without node and the script); throws with the usage on anything unknown. */
export function parseAppServerArgs(
  argv: string[],
  env: Record<string, string | undefined> = process.env,
): AppServerArgs {
  const out: AppServerArgs = {
    port: env.PORT?.trim() ? portOf(env.PORT, "PORT") : 3000,
    host: DEFAULT_LISTEN_HOST,
    dev: false,
    help: false,
  };
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
    else throw new Error(`unknown argument ${JSON.stringify(arg)}\n${APP_SERVER_USAGE}`);
  }
  return out;
}
