// `mcp <server-url-or-name>`: the environments of an ORS server as an MCP server (docs/mcp.md), over
// stdio (what Claude Code, Claude Desktop and Cursor launch) or Streamable HTTP with --http. Every
// episode goes through a recording relay: a running playground's, when the argument is its relay URL
// (`http://127.0.0.1:3000/api/servers/local`: the episode is live in that app), else this process's
// own, recording into the playground's store as `run` does (PLAYGROUND_DATA_DIR, or
// PLAYGROUND_DATABASE_URL). Exit code 0 when the client went away, 2 when it cannot start.
import path from "node:path";
import { guardListener, guardServer } from "@/lib/app-server/node-http";
import type { OrsBridgeOptions } from "@/lib/mcp/bridge";
import { createOrsClient, type OrsClient } from "@/lib/ors/client";
import { listenHttp } from "@/lib/ors/host";
import type { Playground } from "@/lib/playground";
import { describeAccess, resolveAccess } from "@/lib/security/access";
import { DEFAULT_LISTEN_HOST } from "@/lib/security/listen";
import { createRequestPolicy, parseOriginList } from "@/lib/security/policy-config";
import { commandArgs, parseArgs, portOf, UsageError } from "./args";
import { type CommandIo, untilAborted } from "./io";
import { httpUrlOf, recordingServer } from "./servers";
import { defaultDataDir } from "./start-command";

export const MCP_USAGE = `usage: mcp <server-url-or-name> [--env NAME] [--split NAME] [--http PORT] [options]

Serves the environments of an ORS server as an MCP server, so that any MCP client (Claude Code,
Claude Desktop, Cursor, VS Code, MCP Inspector) plays them: the tools list_tasks, start_episode,
end_episode and the environment's own. Over stdio by default; over Streamable HTTP with --http.
Every episode is recorded: in the running playground whose relay URL you give
(http://127.0.0.1:3000/api/servers/local: the episode shows live in its /live), else in the
playground's store, as \`run\` records (docs/mcp.md).

The server: a playground's relay URL, an ORS server's URL (http://127.0.0.1:8080), or the name of
a server the playground knows (local: its built-in environments; ORS_SERVERS, added ones).

options:
  --env NAME        serve this environment only (its tools are listed from the start)
  --split NAME      the split list_tasks and start_episode use when none is given
  --http PORT       Streamable HTTP on http://127.0.0.1:PORT/mcp instead of stdio (0 picks a free
                    port); clients send the access token: Authorization: Bearer <token>
                    ($PLAYGROUND_TOKEN, else one generated and printed)
  --api-key KEY     sent to the ORS server as X-API-Key (default: $ORS_API_KEY)
  --data-dir DIR    the playground's data folder the episodes are recorded in (default
                    $PLAYGROUND_DATA_DIR, else the per-user folder \`ors-playground start\` uses)
  -h, --help        this help

A running playground's relay is reached with $PLAYGROUND_TOKEN (the token it printed).
Exit code: 0 when the MCP client went away (or Ctrl-C), 2 when it cannot start.
`;

export interface McpArgs {
  /** The server as given. */
  server: string;
  /** Its URL, when a URL was given. */
  url: string | null;
  env: string | null;
  split: string | null;
  /** --http's port, or null for stdio. */
  http: number | null;
  apiKey?: string;
  dataDir: string;
}

const RELAY_PATH = /^\/api\/servers\/([^/]+)\/?$/;

/** Parses the command line; throws UsageError. Null for --help. */
export function parseMcpArgs(
  argv: readonly string[],
  env: Record<string, string | undefined>,
): McpArgs | null {
  const args = parseArgs(argv, {
    values: ["--env", "--split", "--http", "--api-key", "--data-dir"],
    booleans: ["--help"],
    aliases: { "-h": "--help" },
  });
  if (args.booleans.has("--help")) return null;
  if (args.positionals.length !== 1)
    throw new UsageError(
      args.positionals.length
        ? `one server, not ${args.positionals.length}`
        : "give the ORS server: its URL or its name, e.g. mcp http://127.0.0.1:8080 --env math",
    );
  const server = args.positionals[0]!;
  const nonEmpty = (flag: string) => {
    const v = args.values.get(flag);
    if (v !== undefined && !v.trim()) throw new UsageError(`${flag} needs a value`);
    return v?.trim() ?? null;
  };
  const http = args.values.get("--http");
  return {
    server,
    url: httpUrlOf(server),
    env: nonEmpty("--env"),
    split: nonEmpty("--split"),
    http: http === undefined ? null : portOf(http, "--http"),
    apiKey: args.values.get("--api-key") ?? env.ORS_API_KEY ?? undefined,
    dataDir: path.resolve(args.values.get("--data-dir") ?? env.PLAYGROUND_DATA_DIR ?? defaultDataDir(env)),
  };
}

/** Where the bridge sends ORS: a client per MCP session, and what to close at the end. */
interface Target {
  label: string;
  client(headers: Record<string, string>): OrsClient;
  /** Where the episodes are recorded, in words. */
  recorded: string;
  close(): Promise<void>;
}

/** A running playground's relay: it records, and its /live shows the episodes as they run. */
function relayTarget(a: McpArgs, env: Record<string, string | undefined>): Target {
  const token = env.PLAYGROUND_TOKEN?.trim();
  return {
    label: a.server,
    client: (headers) =>
      createOrsClient({
        baseUrl: a.url!,
        headers: { ...headers, ...(token ? { authorization: `Bearer ${token}` } : {}) },
        ...(a.apiKey ? { apiKey: a.apiKey } : {}),
      }),
    recorded: `by the playground at ${new URL(a.url!).origin} (its /live and /trajectories)`,
    close: async () => {},
  };
}

/** This process's own relay, recording into the playground's store (as `run` does). */
async function ownTarget(a: McpArgs, io: CommandIo): Promise<Target | null> {
  let name = a.server;
  let env: Record<string, string | undefined> = { ...io.env, PLAYGROUND_DATA_DIR: a.dataDir };
  if (a.url)
    try {
      // Named as the playground knows it (added to its servers when on this machine), as `run` does.
      ({ name, env } = await recordingServer(
        a.url,
        { dataDir: a.dataDir, apiKey: a.apiKey, command: "mcp", what: "the MCP clients' episodes are" },
        io,
      ));
    } catch (err) {
      io.stderr(`mcp: could not use the playground's store: ${(err as Error).message}\n`);
      return null;
    }
  // Loaded here, not at the CLI's start: the other commands need none of it.
  const { createPlayground } = await import("@/lib/playground");
  const pg: Playground = createPlayground(env, { scriptRoots: null });
  try {
    await pg.ready;
    if (!(await pg.registry.get(name))) {
      const known = (await pg.registry.list()).map((s) => s.name).join(", ");
      throw new Error(`no server named ${JSON.stringify(name)} (known: ${known}; or give its URL)`);
    }
  } catch (err) {
    io.stderr(`mcp: ${(err as Error).message}\n`);
    await pg.close();
    return null;
  }
  return {
    label: a.url ?? name,
    client: (headers) => pg.clientFor(name, { headers }),
    recorded: `in ${pg.storage.where} (the playground shows them under /trajectories)`,
    close: () => pg.close(),
  };
}

/** What the command gets: the CLI's io, and the package's version (said in `serverInfo`). */
export type McpIo = CommandIo & { version?: string };

function bridgeOptions(a: McpArgs, target: Target, io: McpIo): OrsBridgeOptions {
  return {
    client: target.client,
    server: target.label,
    env: a.env,
    split: a.split,
    ...(io.version ? { version: io.version } : {}),
  };
}

/** Serves Streamable HTTP at /mcp on loopback, behind the request policy and the access token. */
async function serveHttp(a: McpArgs, target: Target, io: McpIo): Promise<number> {
  let access: ReturnType<typeof resolveAccess>;
  let origins: string[];
  try {
    access = resolveAccess(io.env);
    origins = parseOriginList(io.env.PLAYGROUND_ALLOWED_ORIGINS, "PLAYGROUND_ALLOWED_ORIGINS");
  } catch (err) {
    io.stderr(`mcp: ${(err as Error).message}\n`);
    return 2;
  }
  const policy = createRequestPolicy({
    hosts: [],
    origins,
    token: access.token,
    orsKeys: false,
    kindOf: () => "api",
  });
  // Loaded here, not at the CLI's start: the other commands need none of the MCP SDK.
  const { createMcpHttpHandler } = await import("@/lib/mcp/http");
  const { nodeListener } = await import("@/lib/mcp/node-http");
  const handler = createMcpHttpHandler({ open: () => bridgeOptions(a, target, io) });
  const answer = nodeListener(async (req) =>
    new URL(req.url).pathname === "/mcp"
      ? handler.handle(req, target.label)
      : Response.json({ detail: "not found: the MCP endpoint is /mcp" }, { status: 404 }),
  );
  let listening: Awaited<ReturnType<typeof listenHttp>>;
  try {
    listening = await listenHttp(
      guardListener(() => policy, answer),
      { host: DEFAULT_LISTEN_HOST, port: a.http! },
    );
  } catch (err) {
    io.stderr(`mcp: could not listen on ${DEFAULT_LISTEN_HOST}:${a.http}: ${(err as Error).message}\n`);
    await handler.close();
    return 2;
  }
  guardServer(listening.server, () => policy);
  const notice = describeAccess(access, {
    where: listening.url,
    loopback: true,
    orsKeys: false,
    allowedHosts: false,
  });
  if (notice.warning) io.stderr(`${notice.warning}\n`);
  // One write: whoever reads the URL reads the rest with it.
  io.stdout(
    [
      `MCP server (Streamable HTTP) for the ORS server ${target.label}: ${listening.url}/mcp`,
      ...(access.token ? [`  Clients send: Authorization: Bearer ${access.token}`] : []),
      `  Episodes are recorded ${target.recorded}`,
      "  Stop: Ctrl-C\n",
    ].join("\n"),
  );
  await untilAborted(io.signal);
  await listening.close(500);
  await handler.close();
  return 0;
}

/** Runs `mcp <server> ...`; resolves with the exit code once the MCP client went away. */
export async function mcpCommand(argv: readonly string[], io: McpIo): Promise<number> {
  const a = commandArgs(() => parseMcpArgs(argv, io.env), io, "mcp", MCP_USAGE);
  if (typeof a === "number") return a;
  const relayed = a.url !== null && RELAY_PATH.test(new URL(a.url).pathname);
  const { serveMcpStdio, stdoutToStderr } = await import("@/lib/mcp/stdio");
  // Over stdio, stdout is the protocol's from the start: nothing the playground's parts print goes there.
  const restore = a.http === null ? stdoutToStderr() : () => {};
  const target = relayed
    ? relayTarget(a, io.env)
    : await ownTarget(a, io).catch((err: Error) => {
        restore();
        throw err;
      });
  if (!target) {
    restore();
    return 2;
  }
  try {
    if (a.http !== null) return await serveHttp(a, target, io);
    io.stderr(`mcp: serving ${target.label} over stdio; episodes are recorded ${target.recorded}\n`);
    await serveMcpStdio(bridgeOptions(a, target, io), { signal: io.signal });
    return 0;
  } finally {
    await target.close();
    restore();
  }
}
