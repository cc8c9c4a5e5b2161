// The app's HTTP server: one node:http server in front of Next's documented custom-server API
// (`next({ dev, dir, hostname, port })` + `getRequestHandler()`). Every request passes the request
// policy (lib/security) first; then, in production, ORS-shaped paths go straight to the host's
// node:http adapter and relayed ORS requests (`/api/servers/<name>/<ORS path>`) straight to the
// relay (the fast paths: Next's pipeline costs more CPU per request than the host or the relay),
// and everything else goes to Next. The one module that starts Next as a server.
import "server-only";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import path from "node:path";
import { fileURLToPath } from "node:url";
import next from "next";
import type { RuntimeSourceOptions } from "@/lib/environments/runtime-source";
import { createNodeListener, listenHttp } from "@/lib/ors/host/node-adapter";
import { errorBody, INTERNAL_ERROR_DETAIL } from "@/lib/ors/protocol";
import type { Playground } from "@/lib/playground";
import { type AccessNotice, describeAccess, resolveAccess } from "@/lib/security/access";
import {
  DEFAULT_LISTEN_HOST,
  isLoopbackAddress,
  listenHostNames,
  reachableAddress,
  urlHost,
} from "@/lib/security/listen";
import { appPolicyFromEnv, LISTEN_HOSTS_VAR } from "@/lib/security/policy-config";
import type { RequestPolicy } from "@/lib/security/request-policy";
import type { SpawnSpec } from "@/lib/spawn/managed-server";
import { checkNodeRequest, guardServer, writeAnswer } from "./node-http";
import { relayTarget } from "./relay-path";

export interface AppServerOptions {
  /** Listen address (default 127.0.0.1). */
  host?: string;
  /** Port (default 3000; 0 picks a free one). */
  port?: number;
  /** Next's development mode (compiles on demand, hot reload) instead of the production build. */
  dev?: boolean;
  /** The Next.js project folder (default: this repository). */
  dir?: string;
  /** The access token of pages and APIs (default `PLAYGROUND_TOKEN`, else one generated at this
   *  start; none with `PLAYGROUND_AUTH=none`). */
  token?: string;
  /** ORS paths straight to the host, and relayed ORS requests straight to the relay (default: in
   *  production unless `ORS_FAST_PATH=0`; never in dev, where Next's route handlers serve them, as
   *  edits to them reload). */
  fastPath?: boolean;
  /** The environments to host and what reloads them (default: from ORS_ENVS, ORS_ENVS_ONLY,
   *  ORS_ENVS_WATCH; the built-ins reload in dev). */
  environments?: RuntimeSourceOptions;
  /** Servers to start, register and watch (`start --spawn`, lib/spawn); a bad one stops the start. */
  spawn?: {
    servers: readonly SpawnSpec[];
    /** The environment as the user started the playground: what each server process gets. */
    baseEnv: Readonly<Record<string, string | undefined>>;
    /** Lines about them for the terminal (ready, exited, restarting). */
    say?: (line: string) => void;
  };
}

export interface AppServer {
  /** The base URL (`http://127.0.0.1:3000`). */
  readonly url: string;
  /** The URL to open in a browser: with `?token=` when a token is required. */
  readonly openUrl: string;
  /** The access token pages and APIs require, or null (`PLAYGROUND_AUTH=none`). */
  readonly token: string | null;
  /** Whether the token was generated at this start (it changes with the next one). */
  readonly tokenGenerated: boolean;
  /** What to say about access at start (printed by `npm start`, `npm run dev` and the CLI). */
  readonly accessNotice: AccessNotice;
  readonly dev: boolean;
  readonly fastPath: boolean;
  readonly server: Server;
  /** The playground's parts (what is hosted: `playground.environments`; the data: `registry.dataDir`). */
  readonly playground: Playground;
  /** Stops listening, then closes Next and the playground's parts (store, sessions). */
  close(): Promise<void>;
}

/** Response header set only by the fast path (tests and benchmarks check which path served). */
export const FAST_PATH_HEADER = "x-ors-fast-path";
/** Response header set only by the relay's fast path. */
export const RELAY_FAST_PATH_HEADER = "x-relay-fast-path";
const RELAY_FAST: Readonly<Record<string, string>> = { [RELAY_FAST_PATH_HEADER]: "1" };
const ORS_FAST: Readonly<Record<string, string>> = { [FAST_PATH_HEADER]: "1" };

const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");

/** The access of this start and the request policy every request passes (the path kind remembered). */
function applyAccess(env: Record<string, string | undefined>, host: string, token: string | undefined) {
  // The token: given, from PLAYGROUND_TOKEN, or generated at this start; none with PLAYGROUND_AUTH=none.
  // It goes into the environment, where Next's proxy.ts (in this process) reads the same settings.
  const access = resolveAccess(env, token);
  if (access.token) env.PLAYGROUND_TOKEN = access.token;
  else delete env.PLAYGROUND_TOKEN;
  env[LISTEN_HOSTS_VAR] = listenHostNames(host).join(",");
  // Read once (malformed PLAYGROUND_ALLOWED_HOSTS / _ORIGINS fail here, at startup). The path kind
  // is remembered for the one path just classified: the fast path asks again right after the policy.
  const settings = appPolicyFromEnv(env);
  let lastPath = "";
  let lastKind = settings.kindOf("/");
  const kindOf = (p: string) => {
    if (p !== lastPath) {
      lastKind = settings.kindOf(p);
      lastPath = p;
    }
    return lastKind;
  };
  const fixed: RequestPolicy = { ...settings, kindOf };
  return { access, settings, kindOf, policy: () => fixed };
}

/**
 * The playground's parts, built before Next (its bundles find them on globalThis, lib/playground.ts):
 * the environments, loaded outside Next's bundler from a source that reloads them when their files
 * change (a bad ORS_ENVS stops the start here, with its reason), the servers it runs, the store.
 */
async function buildPlayground(
  options: AppServerOptions,
  env: Record<string, string | undefined>,
  dev: boolean,
): Promise<Playground> {
  const { openRuntimeSource, runtimeSourceOptionsFromEnv } = await import(
    "@/lib/environments/runtime-source"
  );
  const source = await openRuntimeSource(options.environments ?? runtimeSourceOptionsFromEnv(env, { dev }));
  const { createServerSupervisor } = await import("@/lib/spawn/supervisor");
  const { invalidServerName } = await import("@/lib/registry/registry");
  const { dataDir } = await import("@/lib/store/sqlite/db");
  const spawned = await createServerSupervisor(options.spawn?.servers ?? [], {
    baseEnv: options.spawn?.baseEnv ?? env,
    say: options.spawn?.say,
    invalidName: invalidServerName,
    // The store's files change with every step recorded: never a reason to restart a server.
    ignorePaths: [dataDir(env)],
  }).catch((err: unknown) => {
    source.close();
    throw err;
  });
  const { initPlayground } = await import("@/lib/playground");
  const playground = initPlayground({ environments: source, spawned });
  // A database that cannot be reached (PLAYGROUND_DATABASE_URL) stops the start here, saying why.
  await playground.ready.catch(async (err: unknown) => {
    await playground.close().catch(() => {});
    throw err;
  });
  // Spawned servers boot while Next prepares; each is registered as ready once it answers /health.
  await spawned.start();
  return playground;
}

type Handler = (req: IncomingMessage, res: ServerResponse) => Promise<void>;

/** Next's request handler once it is ready: requests that arrive while it prepares wait for it. */
class NextGate {
  handler: Handler | null = null;
  private readonly ready: Promise<Handler>;
  private resolve!: (h: Handler) => void;
  private reject!: (e: unknown) => void;

  constructor() {
    this.ready = new Promise<Handler>((resolve, reject) => {
      this.resolve = resolve;
      this.reject = reject;
    });
    this.ready.catch(() => {});
  }

  open(h: Handler): void {
    this.handler = h;
    this.resolve(h);
  }

  fail(err: unknown): void {
    this.reject(err);
  }

  handle(req: IncomingMessage, res: ServerResponse): void {
    (this.handler ? this.handler(req, res) : this.ready.then((h) => h(req, res))).catch((err: unknown) => {
      console.error(`[app-server] ${req.method} ${(req.url ?? "").slice(0, 200)} failed:`, err);
      if (!res.headersSent) {
        res.writeHead(500, { "content-type": "application/json" });
        res.end(errorBody(INTERNAL_ERROR_DETAIL));
      } else res.destroy();
    });
  }
}

/** Every request: the policy, then (with the fast paths) the host or the relay directly, else Next. */
function requestListener(
  policy: () => RequestPolicy,
  kindOf: (path: string) => ReturnType<RequestPolicy["kindOf"]>,
  playground: Playground,
  ors: ((req: IncomingMessage, res: ServerResponse) => void) | null,
  gate: NextGate,
) {
  return (req: IncomingMessage, res: ServerResponse) => {
    const refused = checkNodeRequest(req, policy());
    if (refused) return writeAnswer(req, res, refused);
    if (ors) {
      const path = pathOf(req.url ?? "/");
      const kind = kindOf(path);
      if (kind === "ors" || kind === "health") return ors(req, res);
      // The relay's ORS shapes; its other routes (a server's page data, check, log) are Next's.
      const relayed = kind === "api" ? relayTarget(req.method ?? "GET", path) : null;
      if (relayed) {
        playground.relay
          .handleNode(req, res, relayed.name, relayed.orsPath, RELAY_FAST)
          .catch((err: unknown) => {
            console.error(`[app-server] relaying ${path.slice(0, 200)} failed:`, err);
            if (!res.headersSent) {
              res.writeHead(502, { "content-type": "application/json" });
              res.end(errorBody("relay error"));
            } else res.destroy();
          });
        return;
      }
    }
    gate.handle(req, res);
  };
}

/**
 * Starts the playground: the policy on every request, the ORS fast path, Next for the rest.
 * One per process: Next and the playground's parts are process-wide, and the policy settings go
 * through `process.env` so that Next's proxy.ts, in this process, applies the very same ones.
 */
export async function startAppServer(options: AppServerOptions = {}): Promise<AppServer> {
  const dev = options.dev ?? false;
  const host = options.host ?? DEFAULT_LISTEN_HOST;
  const env = process.env as Record<string, string | undefined>;
  env.NODE_ENV ??= dev ? "development" : "production";
  const fastPath = options.fastPath ?? (!dev && env.ORS_FAST_PATH !== "0");
  const { access, settings, kindOf, policy } = applyAccess(env, host, options.token);
  const playground = await buildPlayground(options, env, dev);
  const ors = fastPath ? createNodeListener(playground.host, ORS_FAST) : null;
  const gate = new NextGate();
  const listening = await listenHttp(requestListener(policy, kindOf, playground, ors, gate), {
    host,
    port: options.port ?? 3000,
  });
  // Next hooks protocol upgrades (dev's hot-reload socket) onto `httpServer`: give it a server that
  // never listens and sees only the upgrades the policy let through. The production app has no
  // sockets to upgrade to: those are refused with a 400.
  const upgrades = createServer();
  guardServer(
    listening.server,
    policy,
    dev
      ? (req, socket, head) => {
          if (upgrades.listenerCount("upgrade") > 0) upgrades.emit("upgrade", req, socket, head);
          else socket.destroy();
        }
      : undefined,
  );
  const app = next({
    dev,
    dir: options.dir ?? REPO_ROOT,
    hostname: isLoopbackAddress(host) ? host : reachableAddress(host),
    port: listening.port,
    httpServer: upgrades,
  });
  try {
    await app.prepare();
    gate.open(app.getRequestHandler());
  } catch (err) {
    gate.fail(err);
    await listening.close(0);
    await playground.close();
    throw err;
  }

  const url = isLoopbackAddress(host)
    ? listening.url
    : `http://${urlHost(reachableAddress(host))}:${listening.port}`;
  // Said in the store: a CLI sharing it reuses this app's server names and links to this URL.
  void playground.registry
    .list()
    .then((all) =>
      playground.store.announce({
        url,
        servers: all.filter((s) => s.source !== "builtin").map((s) => ({ name: s.name, url: s.url })),
      }),
    )
    .catch(() => {});
  let closing: Promise<void> | null = null;
  return {
    url,
    openUrl: access.token ? `${url}/?token=${encodeURIComponent(access.token)}` : url,
    token: access.token,
    tokenGenerated: access.generated,
    accessNotice: describeAccess(access, {
      where: url,
      loopback: isLoopbackAddress(host),
      orsKeys: settings.orsKeys,
      allowedHosts: settings.allowedHosts.size > 0,
    }),
    dev,
    fastPath: ors !== null,
    server: listening.server,
    playground,
    close() {
      closing ??= (async () => {
        await listening.close();
        await app.close();
        await playground.close();
      })();
      return closing;
    },
  };
}

function pathOf(target: string): string {
  const q = target.indexOf("?");
  return q < 0 ? target : target.slice(0, q);
}
