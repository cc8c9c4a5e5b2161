// `serve`: the ORS host on node:http, without Next.js or the playground — the built-in environments,
// or an author's module (`--env ./envs.ts`, reloaded when it changes) — behind the request policy
// (Host allow-list, no cross-site browser requests; lib/security), on loopback unless told
// otherwise, with an API key required off loopback. `npm run serve` and the CLI's `serve` run this.
// With --workers N it runs N such processes behind nginx instead (./serve-workers.ts).
import { guardListener, guardServer } from "@/lib/app-server/node-http";
import { EnvironmentModuleError } from "@/lib/environments/module-exports";
import { openRuntimeSource, runtimeSourceOptionsFromEnv } from "@/lib/environments/runtime-source";
import { describeEnvironmentSet } from "@/lib/environments/source";
import { createNodeListener, createOrsHandler, hostOptionsFromEnv, listenHttp } from "@/lib/ors/host";
import { answerLostSessions, reportReady, supervisorGone, workerIdentityFromEnv } from "@/lib/scale/worker";
import { DEFAULT_LISTEN_HOST, isLoopbackAddress, listenHostNames, newSecret } from "@/lib/security/listen";
import {
  createRequestPolicy,
  hostPathKind,
  parseHostList,
  parseOriginList,
} from "@/lib/security/policy-config";
import { parseArgs, portOf, UsageError } from "./args";
import { type CommandIo, untilAborted } from "./io";
import { serveWorkers } from "./serve-workers";

export const SERVE_USAGE = `usage: serve [--env ./envs.ts] [--port 8080] [--host 127.0.0.1] [options]

Serves ORS environments over HTTP for any ORS client (the reference Python client, a training
loop, curl), without the playground UI. Its ORS base URL is printed at startup.

options:
  --env FILE      host the environments this TypeScript/JavaScript module exports (default
                  $ORS_ENVS); without it, the built-in example environments
  --builtins      with --env: host the built-in examples too (default: your module only)
  --no-watch      with --env: do not reload the module when it or a file it imports changes
  --port, -p N    port (default $PORT, else 8080; 0 picks a free one)
  --host, -H ADDR listen address (default 127.0.0.1). Off loopback, clients need an API key:
                  $ORS_API_KEYS, or one generated and printed at startup
  --workers N     run N host processes on loopback behind nginx (on --port), each session on the
                  worker that created it; a worker that dies is restarted, and only its own
                  sessions are lost. Each worker holds at most $ORS_MAX_SESSIONS sessions.
                  Needs nginx (Debian: apt-get install nginx)
  --nginx FILE    with --workers: the nginx binary (default: found on PATH or in /usr/sbin)
  -h, --help      this help

Stop it with Ctrl-C: sessions are torn down, exit code 0.
`;

export interface ServeArgs {
  port: number;
  host: string;
  help: boolean;
  /** --workers: that many host processes behind nginx; absent, one process. */
  workers?: number;
  nginx?: string;
}

/** The most workers one machine sensibly runs (each is a Node process). */
const MAX_WORKERS = 64;

/** Parses the arguments; `--env`, `--builtins`, `--no-watch` go into `env` as ORS_ENVS* variables. */
export function parseServeArgs(argv: readonly string[], env: Record<string, string | undefined>): ServeArgs {
  const args = parseArgs(argv, {
    values: ["--port", "--host", "--env", "--workers", "--nginx"],
    booleans: ["--builtins", "--no-watch", "--help"],
    aliases: { "-p": "--port", "-H": "--host", "--hostname": "--host", "-h": "--help" },
  });
  if (args.positionals.length)
    throw new UsageError(`unexpected argument ${JSON.stringify(args.positionals[0])}`);
  const host = args.values.get("--host") ?? DEFAULT_LISTEN_HOST;
  if (!host.trim()) throw new UsageError("--host needs an address");
  const module = args.values.get("--env");
  if (module !== undefined) {
    if (!module.trim()) throw new UsageError("--env needs a module path, e.g. --env ./envs.ts");
    env.ORS_ENVS = module;
  }
  if (args.booleans.has("--builtins") || args.booleans.has("--no-watch")) {
    if (!env.ORS_ENVS) throw new UsageError("--builtins and --no-watch go with --env (or ORS_ENVS)");
    if (args.booleans.has("--builtins")) env.ORS_ENVS_ONLY = "0";
    if (args.booleans.has("--no-watch")) env.ORS_ENVS_WATCH = "0";
  }
  const portValue = args.values.get("--port") ?? (env.PORT?.trim() ? env.PORT : undefined);
  const port =
    portValue === undefined ? 8080 : portOf(portValue, args.values.has("--port") ? "--port" : "PORT");
  const workersValue = args.values.get("--workers");
  let workers: number | undefined;
  if (workersValue !== undefined) {
    workers = Number(workersValue);
    if (!/^\d+$/.test(workersValue.trim()) || workers < 1 || workers > MAX_WORKERS)
      throw new UsageError(
        `--workers must be a whole number from 1 to ${MAX_WORKERS}, got ${JSON.stringify(workersValue)}`,
      );
  }
  const nginx = args.values.get("--nginx");
  if (nginx !== undefined && workers === undefined) throw new UsageError("--nginx goes with --workers");
  return { port, host, help: args.booleans.has("--help"), workers, nginx };
}

/** Runs the standalone host until `io.signal` aborts; the exit code (2: usage, 1: could not start). */
export async function serveCommand(argv: readonly string[], io: CommandIo): Promise<number> {
  const env = io.env;
  let args: ServeArgs;
  try {
    args = parseServeArgs(argv, env);
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    io.stderr(`serve: ${e.message}\n\n${SERVE_USAGE}`);
    return 2;
  }
  if (args.help) {
    io.stdout(SERVE_USAGE);
    return 0;
  }
  const { host, port } = args;
  if (args.workers !== undefined)
    return serveWorkers({ workers: args.workers, host, port, nginx: args.nginx }, io);
  // Started by `serve --workers`: it says when it listens and answers its lost sessions.
  let worker: ReturnType<typeof workerIdentityFromEnv>;
  try {
    worker = workerIdentityFromEnv(env);
  } catch (e) {
    io.stderr(`serve: ${(e as Error).message}\n`);
    return 1;
  }
  let source: Awaited<ReturnType<typeof openRuntimeSource>>;
  try {
    // A module alone, unless --builtins: a standalone host of *your* environments.
    source = await openRuntimeSource({
      ...runtimeSourceOptionsFromEnv(env, { dev: false, moduleOnly: true }),
      cwd: io.cwd,
      log: (line) => io.stdout(`${line}\n`),
    });
  } catch (e) {
    if (!(e instanceof EnvironmentModuleError)) throw e;
    io.stderr(`serve: ${e.message}\n`);
    return 1;
  }
  const options = hostOptionsFromEnv(env);
  // Off loopback the host is reachable from the network: it never runs there without a key.
  const generatedKey = !isLoopbackAddress(host) && !options.apiKeys?.length ? newSecret() : null;
  if (generatedKey) options.apiKeys = [generatedKey];
  const handler = createOrsHandler([...source.current().environments], options);
  source.onReload(async ({ set }) => {
    await handler.host.replaceEnvironments([...set.environments]);
  });
  let listening: Awaited<ReturnType<typeof listenOrs>>;
  try {
    const listener = createNodeListener(handler);
    listening = await listenOrs(worker ? answerLostSessions(worker, listener) : listener, {
      host,
      port,
      env,
    });
  } catch (e) {
    source.close();
    await handler.close();
    io.stderr(`serve: could not listen on ${host}:${port}: ${(e as Error).message}\n`);
    return 1;
  }
  const hosted = describeEnvironmentSet(source.current());
  const names = source
    .current()
    .environments.map((e) => e.name)
    .join(", ");
  if (worker) {
    reportReady({
      type: "ready",
      url: listening.url,
      environments: source.current().environments.map((e) => e.name),
      modules: [...hosted.modules].map(([file, envs]) => ({
        file,
        environments: [...envs],
        watched: source.watching.includes(file),
      })),
    });
    await Promise.race([untilAborted(io.signal), supervisorGone()]);
    return stop();
  }
  io.stdout(`ORS host listening on ${listening.url} (environments: ${names})\n`);
  io.stdout(`  ORS base URL for clients: ${listening.url}\n`);
  for (const [file, envs] of hosted.modules)
    io.stdout(
      `  From ${file}: ${envs.join(", ")}${source.watching.includes(file) ? " (reloaded when you save it; sessions on the old code end)" : ""}\n`,
    );
  if (generatedKey)
    io.stdout(
      `  ${host} is not loopback and ORS_API_KEYS is unset: clients must send this generated key as X-API-Key:\n  ${generatedKey}\n`,
    );
  io.stdout("  Stop: Ctrl-C\n");

  await untilAborted(io.signal);
  io.stdout("stopping\n");
  return stop();

  async function stop(): Promise<number> {
    source.close();
    const stopped = listening.close();
    // Ending the sessions ends their open SSE streams, so the connections can close.
    await handler.close();
    await stopped;
    return 0;
  }
}

/**
 * Listens with an ORS host's node listener behind the request policy every standalone server
 * applies (the Host allow-list with the listen address's names, no cross-site browser requests,
 * the host's own API keys): `serve`, and `stub`.
 */
export async function listenOrs(
  listener: Parameters<typeof guardListener>[1],
  o: { host: string; port: number; env: Record<string, string | undefined> },
): Promise<Awaited<ReturnType<typeof listenHttp>>> {
  const policy = createRequestPolicy({
    hosts: [
      ...parseHostList(o.env.PLAYGROUND_ALLOWED_HOSTS, "PLAYGROUND_ALLOWED_HOSTS"),
      ...listenHostNames(o.host),
    ],
    origins: parseOriginList(o.env.PLAYGROUND_ALLOWED_ORIGINS, "PLAYGROUND_ALLOWED_ORIGINS"),
    token: null,
    orsKeys: true,
    kindOf: hostPathKind,
  });
  const listening = await listenHttp(
    guardListener(() => policy, listener),
    { host: o.host, port: o.port },
  );
  guardServer(listening.server, () => policy);
  return listening;
}
