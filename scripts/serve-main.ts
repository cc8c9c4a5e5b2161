// The body of scripts/serve.ts, loaded after the `server-only` resolve hook is in place.
import { builtinEnvironments } from "@/envs";
import { createOrsHandler, hostOptionsFromEnv, serveNode } from "@/lib/ors/host";

const USAGE = "usage: npm run serve -- [--port 8080] [--host 127.0.0.1]";

export function parseServeArgs(argv: string[]): { port: number; host: string } {
  let port = Number(process.env.PORT ?? 8080);
  let host = "127.0.0.1";
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const [flag, inline] = arg.includes("=") ? arg.split("=", 2) : [arg, undefined];
    const value = () => inline ?? argv[++i];
    if (flag === "--port" || flag === "-p") port = Number(value());
    else if (flag === "--host" || flag === "-H") host = String(value());
    else if (flag === "--help" || flag === "-h") {
      console.log(USAGE);
      process.exit(0);
    } else throw new Error(`unknown argument ${JSON.stringify(arg)}\n${USAGE}`);
  }
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`invalid --port\n${USAGE}`);
  return { port, host };
}

export async function runServe(argv: string[]): Promise<void> {
  const { port, host } = parseServeArgs(argv);
  const handler = createOrsHandler(builtinEnvironments, hostOptionsFromEnv());
  const server = await serveNode(handler, { port, host });
  const names = builtinEnvironments.map((e) => e.name).join(", ");
  console.log(`ORS host listening on ${server.url} (environments: ${names})`);
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) process.exit(1);
    stopping = true;
    console.log(`${signal}: stopping`);
    server.close().then(
      () => process.exit(0),
      (e) => {
        console.error(e);
        process.exit(1);
      },
    );
  };
  // An environment's stray promise must not bring the server down.
  process.on("unhandledRejection", (e) => console.error("[ors-host] unhandled rejection:", e));
  process.on("SIGTERM", () => stop("SIGTERM"));
  process.on("SIGINT", () => stop("SIGINT"));
}
