// The body of scripts/serve.ts, loaded after the `server-only` resolve hook is in place: the host
// on node:http behind the request policy (Host allow-list, no cross-site browser requests; see
// lib/security), on loopback unless told otherwise, with an API key required off loopback.
import { builtinEnvironments } from "@/envs";
import { guardListener, guardServer, listenHttp } from "@/lib/app-server/node-http";
import { createNodeListener, createOrsHandler, hostOptionsFromEnv } from "@/lib/ors/host";
import { DEFAULT_LISTEN_HOST, isLoopbackAddress, listenHostNames, newSecret } from "@/lib/security/listen";
import {
  createRequestPolicy,
  hostPathKind,
  parseHostList,
  parseOriginList,
} from "@/lib/security/policy-config";

const USAGE = "usage: npm run serve -- [--port 8080] [--host 127.0.0.1]";

export function parseServeArgs(argv: string[]): { port: number; host: string } {
  let port = Number(process.env.PORT ?? 8080);
  let host = DEFAULT_LISTEN_HOST;
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
  const env = process.env;
  const options = hostOptionsFromEnv(env);
  // Off loopback the host is reachable from the network: it never runs there without a key.
  const generatedKey = !isLoopbackAddress(host) && !options.apiKeys?.length ? newSecret() : null;
  if (generatedKey) options.apiKeys = [generatedKey];
  const handler = createOrsHandler(builtinEnvironments, options);
  const policy = createRequestPolicy({
    hosts: [
      ...parseHostList(env.PLAYGROUND_ALLOWED_HOSTS, "PLAYGROUND_ALLOWED_HOSTS"),
      ...listenHostNames(host),
    ],
    origins: parseOriginList(env.PLAYGROUND_ALLOWED_ORIGINS, "PLAYGROUND_ALLOWED_ORIGINS"),
    token: null,
    orsKeys: true,
    kindOf: hostPathKind,
  });
  const listening = await listenHttp(
    guardListener(() => policy, createNodeListener(handler)),
    { host, port },
  );
  guardServer(listening.server, () => policy);
  const names = builtinEnvironments.map((e) => e.name).join(", ");
  console.log(`ORS host listening on ${listening.url} (environments: ${names})`);
  if (generatedKey)
    console.log(
      `  ${host} is not loopback and ORS_API_KEYS is unset: clients must send this generated key as X-API-Key:\n  ${generatedKey}`,
    );
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) process.exit(1);
    stopping = true;
    console.log(`${signal}: stopping`);
    const stopped = listening.close();
    // Ending the sessions ends their open SSE streams, so the connections can close.
    handler
      .close()
      .then(() => stopped)
      .then(
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
