// `start` (the CLI's default command): the playground on its production build, on loopback, pointed
// at ORS servers (`--server py=http://127.0.0.1:8080`), running the author's own server (`--spawn
// "python my_env.py --port {port}"`, restarted on changes under `--watch DIR`) and/or hosting an
// author's module (`--env ./envs.ts`, reloaded on save), through the app's server entry
// (lib/app-server), with the config file under it all (./config-file.ts; the command line wins over
// the environment, which wins over the file). Prints what a newcomer needs: the URL to open (with its
// access token; `--open` opens it), what is hosted, the servers, where the data goes, how to stop.
import { existsSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { AppServer } from "@/lib/app-server/app-server";
import { EnvironmentModuleError } from "@/lib/environments/module-exports";
import { describeEnvironmentSet } from "@/lib/environments/source";
import { invalidServerName } from "@/lib/registry/registry";
import { serverHref } from "@/lib/routes";
import { DEFAULT_LISTEN_HOST } from "@/lib/security/listen";
import type { SpawnSpec } from "@/lib/spawn/managed-server";
import { SPAWN_FLAGS_USAGE, SpawnFlagError, spawnFromFlags } from "@/lib/spawn/spawn-flags";
import { parseArgs, portOf, UsageError, usageFailure } from "./args";
import { applyConfigFile, CONFIG_FILE_NAME, ConfigFileError, loadConfigFile } from "./config-file";
import { type CommandIo, untilAborted } from "./io";
import { linkNextExternals } from "./next-externals";
import { openInBrowser } from "./open-url";

const PACKAGE_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");

export const START_USAGE = `usage: ors-playground [start] [options]

Starts the playground (the web UI and its ORS host) on this machine and prints the URL to open.

options:
  --server NAME=URL  an ORS server to explore, e.g. --server py=http://127.0.0.1:8080
                     (repeatable; added to $ORS_SERVERS)
${SPAWN_FLAGS_USAGE}
  --config FILE      the config file (default: ./${CONFIG_FILE_NAME} when there is one):
                     servers, spawned servers, model endpoints, access; the command line wins
                     over the environment, which wins over the file
  --env FILE         host the environments this TypeScript/JavaScript module exports, beside
                     the built-in examples; saving it (or a file it imports) reloads them
  --only             with --env: host your module's environments only
  --no-watch         with --env: do not reload on save
  --port, -p N       port (default $PORT, else 3000; 0 picks a free one)
  --host, -H ADDR    listen address (default 127.0.0.1; 0.0.0.0 or :: for every interface)
  --data-dir DIR     where recorded episodes and added servers are kept (default
                     $PLAYGROUND_DATA_DIR, else ~/.local/share/ors-playground, or
                     $XDG_DATA_HOME/ors-playground when that is set); with
                     $PLAYGROUND_DATABASE_URL (postgres://...) they are kept in PostgreSQL instead
  --open             open the printed URL in your browser (the spawned server's page when
                     there is one)
  -h, --help         this help

Pages and APIs need an access token; the URL it prints carries it (?token=...). The token is
$PLAYGROUND_TOKEN, or one generated at each start; PLAYGROUND_AUTH=none turns it off (for a
throwaway container or a CI job). ORS clients of its host need no token on loopback.
Stop it with Ctrl-C.
`;

/** Where the CLI keeps its data unless told: a per-user folder, not the folder it was started in. */
export function defaultDataDir(env: Record<string, string | undefined>): string {
  const base = env.XDG_DATA_HOME?.trim() || path.join(os.homedir(), ".local", "share");
  return path.join(base, "ors-playground");
}

export interface StartArgs {
  port: number;
  host: string;
  help: boolean;
  /** Open the URL in the browser once the playground listens. */
  open: boolean;
  /** Servers to run (the config file's, then `--spawn`'s). */
  spawn: SpawnSpec[];
  /** The config file read (absolute), or null. */
  config: string | null;
  /** What to say at start about the configuration (secrets in a readable file ...). */
  warnings: string[];
  /** The page `--open` and the printed URL lead to (`/s/my_env`, or `/`). */
  page: string;
}

/** `name=http://host:port` of `--server`; a UsageError naming what is wrong. */
export function parseServerFlag(value: string): { name: string; url: string } {
  const eq = value.indexOf("=");
  if (eq <= 0)
    throw new UsageError(
      `--server: expected NAME=URL (e.g. py=http://127.0.0.1:8080), got ${JSON.stringify(value)}`,
    );
  const name = value.slice(0, eq).trim();
  const url = value.slice(eq + 1).trim();
  const bad = invalidServerName(name);
  if (bad) throw new UsageError(`--server ${JSON.stringify(value)}: ${bad}`);
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new UsageError(`--server ${name}: not a URL: ${JSON.stringify(url)}`);
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:")
    throw new UsageError(`--server ${name}: the URL must start with http:// or https://`);
  return { name, url };
}

/** `a=url,b=url` without the names in `drop`. */
function withoutNames(list: string | undefined, drop: ReadonlySet<string>): string[] {
  return (list ?? "")
    .split(",")
    .map((s) => s.trim())
    .filter((s) => s && !drop.has(s.slice(0, Math.max(0, s.indexOf("="))).trim()));
}

/**
 * The page to open: the spawned server's when there is one (its log and environments), else the
 * server given by `--server` when it is the only one, else the playground's home.
 */
export function pageToOpen(o: { spawned: readonly string[]; cliServers: readonly string[] }): string {
  if (o.spawned.length === 1) return serverHref(o.spawned[0]!);
  if (o.spawned.length === 0 && o.cliServers.length === 1) return serverHref(o.cliServers[0]!);
  return "/";
}

/**
 * Parses the arguments and reads the config file (`--config`, or ./ors-playground.config.json).
 * What the app reads from the environment goes there, the command line first, then what the
 * environment had, then the file: `--server` and the file's servers into ORS_SERVERS, `--env`/`--only`/
 * `--no-watch` into ORS_ENVS*, `--data-dir` (or the file's, or the per-user default) into
 * PLAYGROUND_DATA_DIR, and the file's keys, models and access policy into theirs. Throws UsageError
 * (a command-line mistake) or ConfigFileError (a bad config file).
 */
export function parseStartArgs(
  argv: readonly string[],
  env: Record<string, string | undefined>,
  cwd: string = process.cwd(),
): StartArgs {
  const args = parseArgs(argv, {
    values: [
      "--port",
      "--host",
      "--server",
      "--env",
      "--data-dir",
      "--spawn",
      "--spawn-name",
      "--watch",
      "--restart",
      "--config",
    ],
    booleans: ["--only", "--no-watch", "--open", "--help"],
    aliases: { "-p": "--port", "-H": "--host", "--hostname": "--host", "-h": "--help" },
    repeatable: ["--server", "--watch"],
  });
  if (args.booleans.has("--help"))
    return { port: 0, host: "", help: true, open: false, spawn: [], config: null, warnings: [], page: "/" };
  if (args.positionals.length)
    throw new UsageError(
      `unexpected argument ${JSON.stringify(args.positionals[0])} (a server is given as --server NAME=URL)`,
    );

  const servers = (args.lists.get("--server") ?? []).map(parseServerFlag);
  const seen = new Set<string>();
  for (const s of servers) {
    if (seen.has(s.name)) throw new UsageError(`--server: two servers named ${JSON.stringify(s.name)}`);
    seen.add(s.name);
  }
  let cliSpawn: SpawnSpec | null;
  try {
    cliSpawn = spawnFromFlags(
      {
        command: args.values.get("--spawn"),
        name: args.values.get("--spawn-name"),
        watch: args.lists.get("--watch") ?? [],
        restart: args.values.get("--restart"),
      },
      cwd,
      invalidServerName,
    );
  } catch (e) {
    if (e instanceof SpawnFlagError) throw new UsageError(e.message);
    throw e;
  }

  // The config file fills what the environment leaves unset (and names the command line gives stay
  // the command line's).
  const loaded = loadConfigFile(args.values.get("--config"), cwd);
  const layer = loaded
    ? applyConfigFile(loaded, env, { servers: servers.map((s) => s.name) })
    : { spawn: [], warnings: [] };

  if (servers.length) {
    const cli = new Set(servers.map((s) => s.name));
    env.ORS_SERVERS = [
      ...servers.map((s) => `${s.name}=${s.url}`),
      ...withoutNames(env.ORS_SERVERS, cli),
    ].join(",");
  }

  const module = args.values.get("--env");
  if (module !== undefined) {
    if (!module.trim()) throw new UsageError("--env needs a module path, e.g. --env ./envs.ts");
    env.ORS_ENVS = module;
  }
  if ((args.booleans.has("--only") || args.booleans.has("--no-watch")) && !env.ORS_ENVS)
    throw new UsageError("--only and --no-watch go with --env (or ORS_ENVS)");
  if (args.booleans.has("--only")) env.ORS_ENVS_ONLY = "1";
  if (args.booleans.has("--no-watch")) env.ORS_ENVS_WATCH = "0";

  const dataDir = args.values.get("--data-dir");
  if (dataDir !== undefined && !dataDir.trim()) throw new UsageError("--data-dir needs a folder");
  env.PLAYGROUND_DATA_DIR = path.resolve(
    cwd,
    dataDir ?? (env.PLAYGROUND_DATA_DIR?.trim() || defaultDataDir(env)),
  );

  const host = args.values.get("--host") ?? layer.host ?? DEFAULT_LISTEN_HOST;
  if (!host.trim()) throw new UsageError("--host needs an address");
  const portValue = args.values.get("--port") ?? (env.PORT?.trim() ? env.PORT : undefined);
  const port =
    portValue === undefined ? 3000 : portOf(portValue, args.values.has("--port") ? "--port" : "PORT");

  const spawn = [...layer.spawn.filter((s) => s.name !== cliSpawn?.name), ...(cliSpawn ? [cliSpawn] : [])];
  const configured = new Set(
    [...(env.ORS_SERVERS ?? "").split(",")].map((s) => s.slice(0, Math.max(0, s.indexOf("="))).trim()),
  );
  for (const s of spawn)
    if (configured.has(s.name))
      throw new UsageError(
        `the spawned server ${JSON.stringify(s.name)} has the name of a configured server (--server, ORS_SERVERS or the config file)${s === cliSpawn ? ": give it another with --spawn-name" : ""}`,
      );
  return {
    port,
    host,
    help: false,
    open: args.booleans.has("--open"),
    spawn,
    config: loaded?.file ?? null,
    warnings: layer.warnings,
    page: pageToOpen({ spawned: spawn.map((s) => s.name), cliServers: servers.map((s) => s.name) }),
  };
}

/** The URL to open: `page` on the app, with the access token when one is required. */
export function openUrlOf(app: Pick<AppServer, "url" | "token">, page: string): string {
  return app.token ? `${app.url}${page}?token=${encodeURIComponent(app.token)}` : `${app.url}${page}`;
}

/** A folder as shown: relative to `cwd` when inside it. */
function shownPath(p: string, cwd: string): string {
  const rel = path.relative(cwd, p);
  return rel === "" ? "." : !rel.startsWith("..") && !path.isAbsolute(rel) ? `./${rel}` : p;
}

/** What the CLI prints once the playground listens. */
export async function startBanner(
  app: AppServer,
  version: string,
  o: { page?: string; config?: string | null; cwd?: string } = {},
): Promise<string> {
  const pg = app.playground;
  const cwd = o.cwd ?? process.cwd();
  const set = pg.environments.current();
  const { builtin, modules } = describeEnvironmentSet(set);
  const servers = (await pg.registry.list()).filter((s) => s.source !== "builtin");
  const col = (label: string) => `  ${label.padEnd(14)}`;
  const pad = " ".repeat(16);
  const lines = [`ORS Playground ${version} is running (production build).`, ""];
  lines.push(`${col("Open")}${openUrlOf(app, o.page ?? "/")}`);
  lines.push(`${col("ORS base URL")}${app.url}/api/ors   (for ORS clients; ${app.url} works too)`);
  const hosted: string[] = [];
  for (const [file, names] of modules)
    hosted.push(
      `${names.join(", ")}  (from ${file}${pg.environments.watching.includes(file) ? ", reloaded when you save it" : ""})`,
    );
  if (builtin.length) hosted.push(`${builtin.join(", ")}  (built-in examples)`);
  hosted.forEach((h, i) => {
    lines.push(`${i === 0 ? col("Hosted here") : pad}${h}`);
  });
  if (servers.length === 0)
    lines.push(`${col("Servers")}none yet: add one in the UI, or start with --server NAME=URL`);
  servers.forEach((s, i) => {
    lines.push(`${i === 0 ? col("Servers") : pad}${s.name.padEnd(8)} ${s.url}`);
    const run = s.source === "spawned" ? pg.spawned.get(s.name)?.status() : undefined;
    if (run) {
      const sub = `${pad}${" ".repeat(9)}`;
      lines.push(`${sub}runs: ${run.command}  (in ${shownPath(run.cwd, cwd)})`);
      lines.push(
        `${sub}${run.watch.length ? `restarted when files under ${run.watch.map((w) => shownPath(w, cwd)).join(", ")} change; ` : ""}its log: ${app.url}${serverHref(s.name)}`,
      );
    }
  });
  lines.push(`${col("Data")}${pg.storage.where}  (recorded episodes, added servers)`);
  if (o.config) lines.push(`${col("Config")}${shownPath(o.config, cwd)}`);
  app.accessNotice.lines.forEach((line, i) => {
    lines.push(`${i === 0 ? col("Access") : pad}${line}`);
  });
  lines.push(`${col("Stop")}Ctrl-C`);
  return `${lines.join("\n")}\n`;
}

/** Runs the playground until `io.signal` aborts; the exit code (2: usage, 1: could not start). */
export async function startCommand(
  argv: readonly string[],
  io: CommandIo & { version: string },
): Promise<number> {
  const env = io.env;
  const cwd = io.cwd ?? process.cwd();
  // What a spawned server gets: the environment as the user started the playground, before the
  // settings below are written into it.
  const baseEnv = { ...env };
  let args: StartArgs;
  try {
    args = parseStartArgs(argv, env, cwd);
  } catch (e) {
    if (e instanceof ConfigFileError) {
      io.stderr(`ors-playground: ${e.message}\n`);
      return 2;
    }
    return usageFailure(e, io, "ors-playground", START_USAGE);
  }
  if (args.help) {
    io.stdout(START_USAGE);
    return 0;
  }
  const distDir = path.join(PACKAGE_ROOT, env.NEXT_DIST_DIR || ".next");
  if (!existsSync(path.join(distDir, "BUILD_ID"))) {
    io.stderr(
      `ors-playground: no production build in ${distDir}. In a clone of the repository, run \`npm run build\` first.\n`,
    );
    return 1;
  }
  try {
    linkNextExternals(distDir, PACKAGE_ROOT);
  } catch (e) {
    io.stderr(
      `ors-playground: could not link the build's external packages in ${distDir}: ${(e as Error).message}\n`,
    );
    return 1;
  }
  for (const warning of args.warnings) io.stderr(`ors-playground: warning: ${warning}\n`);
  // Lines about spawned servers wait for the banner, then follow it as they come.
  let bannerShown = false;
  const early: string[] = [];
  const say = (line: string) => {
    if (bannerShown) io.stdout(`${line}\n`);
    else early.push(line);
  };
  // Before Next and React load: they pick their builds by NODE_ENV.
  env.NODE_ENV = "production";
  (await import("@/lib/app-server/source-maps")).sourceMapsOffForProduction();
  const { startAppServer } = await import("@/lib/app-server/app-server");
  let app: AppServer;
  try {
    app = await startAppServer({
      host: args.host,
      port: args.port,
      dev: false,
      spawn: { servers: args.spawn, baseEnv, say },
    });
  } catch (e) {
    const why = e instanceof EnvironmentModuleError ? e.message : (e as Error).message;
    io.stderr(`ors-playground: could not start: ${why}\n`);
    return 1;
  }
  io.stdout(await startBanner(app, io.version, { page: args.page, config: args.config, cwd }));
  if (app.accessNotice.warning) io.stderr(`\n${app.accessNotice.warning}\n\n`);
  if (early.length) io.stdout(`\n${early.map((l) => `${l}\n`).join("")}`);
  bannerShown = true;
  if (args.open) {
    const opened = await openInBrowser(openUrlOf(app, args.page), { env });
    io.stdout(
      opened.ok
        ? `Opened ${app.url}${args.page} in your browser (${opened.command}).\n`
        : `Could not open a browser (${opened.reason}): open the URL above yourself.\n`,
    );
  }
  await untilAborted(io.signal);
  io.stdout("stopping\n");
  await app.close();
  return 0;
}
